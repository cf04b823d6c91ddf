"""The shapes that go into and come out of the event log: events to record (`NewEvent`, the domain's one
shape) and recorded events, each with its typed event and its place in the log."""

from __future__ import annotations

import msgspec

from ..datadir import DataDirUnusable
from ..domain.events import ANY_VERSION, NO_STREAM, Event, NewEvent

__all__ = [
    "ANY_VERSION",
    "NO_STREAM",
    "ConcurrencyError",
    "LogClosed",
    "LogDamaged",
    "Metadata",
    "NewEvent",
    "RecordedEvent",
    "UnreadableEvent",
]


class Metadata(msgspec.Struct, kw_only=True, omit_defaults=True, frozen=True):
    """Who caused an event, and through which request."""

    user_id: int | None = None
    token_kind: str | None = None
    token_id: str | None = None
    customer_id: int | None = None
    api_version: str | None = None
    request_id: str | None = None
    remote_addr: str | None = None
    source: str | None = None


class RecordedEvent(msgspec.Struct, kw_only=True, frozen=True):
    """An event as stored: its global position, stream version and place in the hash chain, and the
    typed event (`type` is its stored tag, `schema` the version of its shape it is read in)."""

    position: int
    stream: str
    version: int
    type: str
    schema: int
    event: Event
    meta: Metadata
    recorded_at: str
    hash: str


class LogClosed(RuntimeError):
    """The log takes no appends now (it is closing, or its writer stopped)."""


class ConcurrencyError(Exception):
    """A stream was not at the version the writer expected; nothing of that append was stored."""

    def __init__(self, stream: str, expected: int, actual: int) -> None:
        super().__init__(f"stream {stream!r} is at version {actual}, expected {expected}")
        self.stream, self.expected, self.actual = stream, expected, actual


WAY_BACK = ("`telephony verify` finds the first bad position; restore the data dir from a backup or an export "
            '(docs/operations.md, "A damaged log")')  # fmt: skip


class LogDamaged(DataDirUnusable):
    """An event of the log is not what was written: the message names its position and the way back."""

    def __init__(self, position: int, what: str) -> None:
        super().__init__(f"the event at position {position} {what}; {WAY_BACK}")
        self.position = position


class UnreadableEvent(LogDamaged, ValueError):
    """An event's stored data cannot be read as its type."""
