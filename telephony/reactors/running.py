"""An app's reactors together: a task each, started, stopped, waited for and shown in health as one."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Sequence

from ..clock import Clock
from .leases import Lease, LocalLease
from .reactor import FAILING, Backoff, Log, Reactor, ReactorRunner

log = logging.getLogger(__name__)


class Reactors:
    """The reactors of one app: a task each, started together, cancelled and awaited together."""

    def __init__(self, runners: Sequence[ReactorRunner]) -> None:
        self.runners = list(runners)
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(r.run(), name=f"reactor-{r.name}") for r in self.runners]
        for runner, task in zip(self.runners, self._tasks, strict=True):
            task.add_done_callback(functools.partial(_ended, runner))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for runner in self.runners:
            try:
                await runner.stop()
            except Exception:
                log.exception("reactor %s could not record its position at stop", runner.name)

    def health(self) -> dict[str, dict[str, object]]:
        return {r.name: r.health() for r in self.runners}

    async def reached(self, position: int) -> None:
        """Return once every reactor has dealt with every event up to `position` (tests, scenarios)."""
        await asyncio.gather(*(r.reached(position) for r in self.runners))

    async def settled(self, head: Callable[[], int]) -> None:
        """Return once every reactor that is not failing has dealt with the whole log, what they append
        on the way included: the log's `head` stays where they all are."""
        while True:
            position = head()
            await asyncio.gather(*(r.settled(position) for r in self.runners))
            if head() == position:
                return

    @property
    def failing(self) -> list[str]:
        return [r.name for r in self.runners if r.state in FAILING]


def _ended(runner: ReactorRunner, task: asyncio.Task[None]) -> None:
    """A runner's task ends only when cancelled; anything else is a fault health must show."""
    if not task.cancelled() and (exc := task.exception()) is not None:
        runner.state, runner.last_error = "failed", type(exc).__name__
        runner.moved()
        log.error("reactor %s stopped", runner.name, exc_info=exc)


def runners(reactors: Sequence[Reactor], event_log: Log, clock: Clock, backoff: Backoff | None = None,
            lease_of: Callable[[str], Lease] = LocalLease) -> Reactors:  # fmt: skip
    return Reactors([ReactorRunner(r, event_log, clock, backoff=backoff, lease=lease_of(r.lease or r.name))
                     for r in reactors])  # fmt: skip
