"""Live traffic: calls (and now and then a text thread) at a steady rate on the clock, for as long as the
demo runs, each through the same routing as any call (`activity.py`).

The gaps between them are drawn from a generator seeded by the demo's seed (exponential, averaging
60 / rate seconds), and so are the calls: the same seed gives the same calls in the same order. Each
is a timer on the app's scheduler at the clock time it falls due, so on a moved clock (the tests') the
traffic keeps pace with the clock, as it does with real time on a flowing one.
"""

from __future__ import annotations

import random

from ..reactors.scheduler import Scheduler
from . import activity
from .history import attempt
from .operator import Operator
from .plan import Plan

KEY = "demo-traffic"
TEXTS_EVERY = 8
"""One text thread for every this many calls, on average."""


class LiveTraffic:
    def __init__(self, op: Operator, plan: Plan, users: tuple[int, ...], scheduler: Scheduler,
                 rate: float) -> None:  # fmt: skip
        """`rate` calls a minute on the scheduler's clock."""
        self._op, self._plan, self._users, self._scheduler = op, plan, users, scheduler
        self._mean_gap = 60.0 / rate
        self._rng = random.Random(f"demo-traffic:{plan.seed}")
        self.made = 0
        """Requests the server took."""

    def start(self) -> None:
        self._next()

    def stop(self) -> None:
        self._scheduler.cancel(KEY)

    def _next(self) -> None:
        gap = self._rng.expovariate(1.0 / self._mean_gap)
        self._scheduler.at(self._scheduler.now() + gap, KEY, self._tick)

    async def _tick(self) -> None:
        actions = [activity.call(self._rng, self._plan, self._users)]
        if self._rng.random() < 1 / TEXTS_EVERY:
            actions += activity.text_thread(self._rng, self._plan)
        self._next()
        for action in actions:
            self.made += await attempt(self._op, action)
