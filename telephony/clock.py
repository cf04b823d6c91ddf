"""An injectable clock: real time by default, movable forward (never back) by tests and demos.

Two kinds, one interface:
- a flowing clock (the default) is wall-clock time plus an offset that moves only forward;
- a virtual clock (`Clock.virtual()`, for tests and scenarios) stands still: time passes only when it
  is moved (`POST /_telephony/clock`, which runs the timers due on the way). A task's own delay
  (`sleep`, the login throttle's) passes at once on it and moves nothing.

A reproducible clock (`Clock.reproducible(start)`, for scenario runs) is a virtual clock that is its
own real time too: what reads real time through it (a mail's `Date:`, a sealed secret's time) reads
the clock, so the same requests write the same log, byte for byte.

`set_epoch(moment)` refuses a moment the clock has passed; `reach(moment)` moves to it only when the
clock has not passed it, reading the clock once (a flowing clock goes on between two readings).
`wait_until(moment)` waits for the clock to reach a moment however it gets there (real time passing,
or a move). Time is bounded to years 1970–9998, so it stays a valid timestamp after any move.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import time
from collections.abc import Callable
from datetime import UTC, datetime

WIRE_FORMAT = "%Y-%m-%d %H:%M:%S"
LATEST = datetime(9999, 1, 1, tzinfo=UTC).timestamp() - 1
"""The last moment the clock may show: one second before year 9999."""


class ClockError(ValueError):
    """The clock was asked to move backwards, or beyond the times it can show."""


class Clock:
    """Seconds since the epoch as this server sees them; `advance` and `set_to` move it forward only."""

    def __init__(self, start: float | None = None, *, virtual: bool = False,
                 wall: Callable[[], float] = time.time) -> None:  # fmt: skip
        """`wall` reads wall-clock time (tests pass one they control)."""
        self._virtual = virtual
        self._wall = wall
        self._offset = 0.0 if start is None else start - wall()
        self._stood = wall() if start is None else start
        self._waiters: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._alarm: asyncio.TimerHandle | None = None

    @classmethod
    def virtual(cls, start: float | None = None) -> Clock:
        """A clock that stands still between moves (starting now, or at `start`)."""
        return cls(start, virtual=True)

    @classmethod
    def reproducible(cls, start: float) -> Clock:
        """A virtual clock starting at `start` whose `wall` reads the clock itself."""
        clock = cls(start, virtual=True, wall=lambda: start)
        clock._wall = clock.time
        return clock

    @property
    def is_virtual(self) -> bool:
        return self._virtual

    def flow(self, wall: Callable[[], float] = time.time) -> None:
        """A virtual clock starts flowing with real time (`wall`) from the moment it shows, as a demo's
        does once its history is made; a flowing clock is left as it is."""
        if self._virtual:
            self._wall, self._virtual = wall, False
            self._offset = self._stood - wall()
            self._wake()

    def wall(self) -> float:
        """Real time, for transport metadata (a mail's `Date:`): wall-clock time, unless reproducible."""
        return self._wall()

    @property
    def offset(self) -> float:
        """How far this clock is ahead of wall-clock time, in seconds."""
        return self.time() - self._wall()

    def time(self) -> float:
        """Seconds since the epoch, as this clock sees them."""
        return self._stood if self._virtual else self._wall() + self._offset

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.time(), UTC)

    def advance(self, seconds: float) -> None:
        if not seconds >= 0:
            raise ClockError("the clock only moves forward")
        self.reach(self.time() + seconds)

    def set_to(self, moment: datetime) -> None:
        self.set_epoch(moment.replace(tzinfo=moment.tzinfo or UTC).timestamp())

    def set_epoch(self, target: float) -> None:
        """Move the clock to `target` seconds since the epoch (never back, never past `LATEST`)."""
        if target < self.time():
            raise ClockError("the clock only moves forward")
        self.reach(target)

    def reach(self, target: float) -> bool:
        """Move the clock to `target` unless it shows `target` or later already (a flowing clock may have
        passed it since it was chosen): it never goes back. True when it moved."""
        if not target <= LATEST:
            raise ClockError(f"the clock cannot go beyond {wire_time(LATEST)}")
        now = self.time()  # read once: what it shows and how far to move are the same moment's
        if target <= now:
            return False
        if self._virtual:
            self._stood = target
        else:
            self._offset += target - now
        self._wake()
        return True

    def restore(self, offset: float, epoch: float) -> None:
        """After a restart: a flowing clock is `offset` seconds ahead of wall-clock time again; a
        virtual clock shows `epoch` again. Never moves the clock back."""
        self.reach(self.shown(offset, epoch))

    def shown(self, offset: float, epoch: float) -> float:
        """What this clock shows once a move recorded as `offset` and `epoch` is restored here."""
        return min(epoch if self._virtual else self._wall() + offset, LATEST)

    async def wait_until(self, moment: float) -> None:
        """Return once the clock shows `moment` or later: by real time passing, or by a move."""
        if self.time() >= moment:
            return
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        heapq.heappush(self._waiters, (moment, next(self._order), future))
        self._arm(loop)
        try:
            await future
        finally:
            if not future.done():
                future.cancel()

    async def sleep(self, seconds: float) -> None:
        """A delay the calling task lives through; on a virtual clock it passes at once."""
        if self._virtual:
            await asyncio.sleep(0)
            return
        await self.wait_until(self.time() + max(0.0, seconds))

    def _wake(self) -> None:
        now = self.time()
        while self._waiters and self._waiters[0][0] <= now:
            _, _, future = heapq.heappop(self._waiters)
            if not future.done():
                future.set_result(None)
        while self._waiters and self._waiters[0][2].done():
            heapq.heappop(self._waiters)
        if self._waiters:
            with contextlib.suppress(RuntimeError):  # moved outside a loop (a CLI), nobody waits
                self._arm(asyncio.get_running_loop())

    def _arm(self, loop: asyncio.AbstractEventLoop) -> None:
        """On a flowing clock, one real-time alarm for the earliest waiter."""
        if self._virtual or not self._waiters:
            return
        if self._alarm is not None:
            self._alarm.cancel()
        self._alarm = loop.call_later(max(0.0, self._waiters[0][0] - self.time()), self._wake)


def wire_time(moment: datetime | float) -> str:
    """The API's `YYYY-MM-DD HH:MM:SS` UTC text form."""
    if isinstance(moment, float | int):
        moment = datetime.fromtimestamp(moment, UTC)
    return moment.astimezone(UTC).strftime(WIRE_FORMAT)


def parse_wire_time(text: str) -> datetime:
    """Parse `YYYY-MM-DD HH:MM:SS` or a bare `YYYY-MM-DD` as UTC."""
    fmt = WIRE_FORMAT if len(text) > 10 else "%Y-%m-%d"
    return datetime.strptime(text, fmt).replace(tzinfo=UTC)


def wire_epoch(text: str | None) -> float | None:
    """The epoch seconds of a wire time (or a bare date); None for none."""
    return parse_wire_time(text).timestamp() if text else None
