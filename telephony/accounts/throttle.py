"""Brute-force protection for the login family: slow down, then refuse for a while.

Failures are counted per email and per remote address within a window, on the injectable clock,
and the delays are slept on it too (a virtual clock lives through them at once).
Each failure past the first delays its answer a little more; at `max_failures` the key is locked
for `lockout_seconds` and every attempt gets 429, whose `Retry-After` says in how many seconds the
lock lifts. A success clears the email's count. This is request hygiene, not state of record, so it
lives in memory.
"""

from __future__ import annotations

import math
from collections import deque

from ..api.errors import TooManyRequests
from ..clock import Clock
from ..config import Auth

STEP_DELAY = 0.05
MAX_DELAY = 0.5


class Throttle:
    def __init__(self, settings: Auth, clock: Clock) -> None:
        self._settings = settings
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._locked_until: dict[str, float] = {}

    def check(self, *keys: str) -> None:
        now = self._clock.time()
        for key in keys:
            until = self._locked_until.get(key, 0.0)
            if now < until:
                wait = math.ceil(until - now)
                raise TooManyRequests(f"Too many failed attempts; try again in {wait} seconds", retry_after=wait)

    async def failed(self, *keys: str) -> None:
        now = self._clock.time()
        worst = 0
        for key in keys:
            window = self._failures.setdefault(key, deque())
            window.append(now)
            while window and window[0] < now - self._settings.failure_window_seconds:
                window.popleft()
            limit = self._settings.max_failures_per_address if key.startswith("addr:") else self._settings.max_failures
            if len(window) >= limit:
                self._locked_until[key] = now + self._settings.lockout_seconds
                window.clear()
            worst = max(worst, len(window))
        await self._clock.sleep(min(MAX_DELAY, STEP_DELAY * max(0, worst - 1)))

    def succeeded(self, key: str) -> None:
        self._failures.pop(key, None)
