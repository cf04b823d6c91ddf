"""The clock's offset as the operator last set it: `clock.moved` events, folded in memory.

Moving the clock through the control API is an event like any other, so a restart (or a replay)
puts the clock as far ahead of wall-clock time as it was.
"""

from __future__ import annotations

from ..domain.events.log import ClockMoved
from ..eventlog.records import NewEvent, RecordedEvent
from .memory import MemoryProjection


def clock_moved(offset: float, now: float) -> NewEvent:
    """The clock now reads `now`, `offset` seconds ahead of wall-clock time."""
    return NewEvent(stream="clock", event=ClockMoved(offset=offset, epoch=now))


class ClockOffset(MemoryProjection):
    name = "clock_offset"
    handles = frozenset({ClockMoved})
    kept_as = tuple[float, float]

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.offset = 0.0
        self.epoch = 0.0

    def apply(self, event: RecordedEvent) -> None:
        match event.event:
            case ClockMoved(offset=offset, epoch=epoch):
                self.offset, self.epoch = offset, epoch

    def state(self) -> tuple[float, float]:
        return self.offset, self.epoch

    def snapshot(self) -> tuple[float, float]:
        return self.state()

    def restore(self, kept: tuple[float, float]) -> None:
        self.offset, self.epoch = kept
