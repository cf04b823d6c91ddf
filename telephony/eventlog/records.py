"""The shapes that go into and come out of the event log."""

from __future__ import annotations

from typing import Any

import msgspec

ANY_VERSION = -1
"""`expected_version` meaning: append whatever the stream's current version is."""
NO_STREAM = 0
"""`expected_version` meaning: the stream must not exist yet."""


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


class NewEvent(msgspec.Struct, kw_only=True, frozen=True):
    """An event about to be appended. `expected_version` guards the stream (optimistic concurrency)."""

    stream: str
    type: str
    data: Any
    expected_version: int = ANY_VERSION
    schema: int = 1


class RecordedEvent(msgspec.Struct, kw_only=True, frozen=True):
    """An event as stored: its global position, stream version and place in the hash chain."""

    position: int
    stream: str
    version: int
    type: str
    schema: int
    data: Any
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
