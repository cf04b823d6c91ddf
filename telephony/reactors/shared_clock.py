"""One clock for every process on a shared log: a move another process made (its `clock.moved` event)
moves this process's clock too, and runs the timers that became due on the way here.

The process that moved the clock ran its own timers before it recorded the move; a process that
holds a duty's lease runs that duty's timers when the move reaches it. A move never goes back, so
this process's own moves, seen again as commits, move nothing.
"""

from __future__ import annotations

import asyncio
import contextlib

from ..clock import Clock
from ..domain.events.log import ClockMoved
from ..eventlog.records import RecordedEvent
from .scheduler import Scheduler


class SharedClock:
    """A commit follower (`follow_commit`); `close` waits for the moves under way."""

    def __init__(self, clock: Clock, scheduler: Scheduler) -> None:
        self._clock = clock
        self._scheduler = scheduler
        self._moves: set[asyncio.Task[int]] = set()

    async def follow_commit(self, events: list[RecordedEvent], head: int) -> None:
        moved = [e.event for e in events if isinstance(e.event, ClockMoved)]
        if not moved:
            return
        target = self._clock.shown(moved[-1].offset, moved[-1].epoch)
        if target > self._clock.time():  # a task: the timers' appends commit after this follower returns
            move = asyncio.get_running_loop().create_task(self._scheduler.advance_to(target), name="clock-follow")
            self._moves.add(move)
            move.add_done_callback(self._moves.discard)

    async def close(self) -> None:
        for move in list(self._moves):
            with contextlib.suppress(Exception):
                await move
