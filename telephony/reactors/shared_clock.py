"""One clock for every process on a shared log: a move another process made (its `clock.moved` event)
moves this process's clock too, and runs the timers that became due on the way here.

The process that moved the clock ran its own timers before it recorded the move; a process that
holds a duty's lease runs that duty's timers when the move reaches it, then says so to the others
(`reached`: the move's position and the duties it holds). The move's answer waits (`everywhere`) until
every duty's holder has said so, as a move on one process waits for every timer due on the way: a
client that moves the clock on one process and reads on another finds the steps taken. A duty nobody
holds for `WAIT_SECONDS` (its holder died and none took it yet) is not waited for longer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Collection
from typing import Protocol

from ..clock import Clock
from ..domain.events.log import ClockMoved
from ..eventlog.records import RecordedEvent
from .scheduler import Scheduler

log = logging.getLogger(__name__)
WAIT_SECONDS = 10.0
"""Real seconds a move's answer waits at most for the duties' holders to have followed it."""


class Channel(Protocol):
    """Where the processes of the log tell each other how far their moves got (`eventlog.pg_notices`)."""

    heard: Callable[[str], None]

    async def send(self, payload: str) -> None: ...


class SharedClock:
    """A commit follower (`follow_commit`) over one channel; `close` waits for the moves under way."""

    def __init__(self, clock: Clock, scheduler: Scheduler, channel: Channel, held: Callable[[], list[str]],
                 duties: Collection[str]) -> None:  # fmt: skip
        """`held` names the duties this process holds now; `duties` every duty whose timers a move runs."""
        self._clock, self._scheduler, self._channel = clock, scheduler, channel
        self._held, self._duties = held, frozenset(duties)
        self._reached: dict[str, int] = {}
        """How far each duty's holder has followed the moves (a move's position)."""
        self._moved = asyncio.Event()
        self._moves: set[asyncio.Task[None]] = set()
        channel.heard = self._heard

    async def follow_commit(self, events: list[RecordedEvent], head: int) -> None:
        moves = [e for e in events if isinstance(e.event, ClockMoved)]
        if moves:  # a task: the timers' appends commit after this follower returns
            move = asyncio.get_running_loop().create_task(self._follow(moves[-1]), name="clock-follow")
            self._moves.add(move)
            move.add_done_callback(self._moves.discard)

    async def everywhere(self, position: int) -> None:
        """Return once every duty's holder has followed the move at `position` (or `WAIT_SECONDS` passed)."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(WAIT_SECONDS):
                while lagging := [d for d in self._duties if self._reached.get(d, 0) < position]:
                    await self._moved.wait()
                return
        log.warning("clock move at %s: no holder of %s followed it in %.0fs", position, lagging, WAIT_SECONDS)

    async def close(self) -> None:
        for move in list(self._moves):
            with contextlib.suppress(Exception):
                await move

    async def _follow(self, recorded: RecordedEvent) -> None:
        moved = recorded.event
        assert isinstance(moved, ClockMoved)
        target = self._clock.shown(moved.offset, moved.epoch)
        if target > self._clock.time():
            await self._scheduler.advance_to(target)
        await self._channel.send(f"{recorded.position} {','.join(self._held())}")

    def _heard(self, payload: str) -> None:
        position, _, names = payload.partition(" ")
        for name in filter(None, names.split(",")):
            self._reached[name] = max(self._reached.get(name, 0), int(position))
        moved, self._moved = self._moved, asyncio.Event()
        moved.set()
