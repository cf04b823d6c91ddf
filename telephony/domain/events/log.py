"""Events of the log's own upkeep: the clock moved, a file stored, ids reserved, statements cleared."""

from __future__ import annotations

from .base import Event


class ClockMoved(Event, frozen=True, kw_only=True, tag="clock.moved"):
    """The operator moved the clock: it now reads `epoch`, `offset` seconds ahead of wall-clock time.
    On the stream `clock`."""

    offset: float
    """Seconds the clock is ahead of wall-clock time."""
    epoch: float
    """What the clock reads (clock time, epoch seconds)."""


class BlobStored(Event, frozen=True, kw_only=True, tag="blob.stored"):
    """An uploaded or generated file, stored once by content, on `blob-<sha256>`."""

    sha256: str
    """The file's SHA-256: its name (its stream is `blob-<sha256>`)."""
    media_type: str
    """The file's media type (`audio/mpeg`, ...)."""
    base64: str
    """The file's bytes, in base64."""


class SequenceReserved(Event, frozen=True, kw_only=True, tag="sequence.reserved"):
    """A kind's highest id is raised without a record (an import carries the exporting log's)."""

    kind: str
    """The kind of record (`cdr`, ...)."""
    last: int
    """The kind's highest id from now on."""


class StatementsCleared(Event, frozen=True, kw_only=True, tag="statement.cleared"):
    """The customer cleared its billing statements (`DELETE /statements`), on `statements-<customer>`."""

    customer_id: int
    """The customer whose statements were cleared."""


LOG_EVENTS = (ClockMoved, BlobStored, SequenceReserved, StatementsCleared)
