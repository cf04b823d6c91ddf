"""An injectable clock: real time by default, movable forward (never back) by tests and demos."""

from __future__ import annotations

import time
from datetime import UTC, datetime

WIRE_FORMAT = "%Y-%m-%d %H:%M:%S"


class ClockError(ValueError):
    """The clock was asked to move backwards."""


class Clock:
    """Wall-clock time plus an offset; `advance` and `set_to` move the offset forward only."""

    def __init__(self, start: float | None = None) -> None:
        self._offset = 0.0 if start is None else start - time.time()

    def time(self) -> float:
        """Seconds since the epoch, as this clock sees them."""
        return time.time() + self._offset

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.time(), UTC)

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ClockError("the clock only moves forward")
        self._offset += seconds

    def set_to(self, moment: datetime) -> None:
        target = moment.replace(tzinfo=moment.tzinfo or UTC).timestamp()
        if target < self.time():
            raise ClockError("the clock only moves forward")
        self._offset += target - self.time()


def wire_time(moment: datetime | float) -> str:
    """The API's `YYYY-MM-DD HH:MM:SS` UTC text form."""
    if isinstance(moment, float | int):
        moment = datetime.fromtimestamp(moment, UTC)
    return moment.astimezone(UTC).strftime(WIRE_FORMAT)


def parse_wire_time(text: str) -> datetime:
    """Parse `YYYY-MM-DD HH:MM:SS` or a bare `YYYY-MM-DD` as UTC."""
    fmt = WIRE_FORMAT if len(text) > 10 else "%Y-%m-%d"
    return datetime.strptime(text, fmt).replace(tzinfo=UTC)
