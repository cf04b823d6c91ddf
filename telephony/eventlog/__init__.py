"""The append-only, hash-chained event log: the only source of truth."""

from .connection import Connection
from .log import LOG_FILE, EventLog
from .records import (
    ANY_VERSION,
    NO_STREAM,
    ConcurrencyError,
    LogClosed,
    LogDamaged,
    Metadata,
    NewEvent,
    RecordedEvent,
    UnreadableEvent,
)
from .writer import Decision

__all__ = [
    "ANY_VERSION",
    "LOG_FILE",
    "NO_STREAM",
    "ConcurrencyError",
    "Connection",
    "Decision",
    "EventLog",
    "LogClosed",
    "LogDamaged",
    "Metadata",
    "NewEvent",
    "RecordedEvent",
    "UnreadableEvent",
]
