"""A tiny projection for contract tests: events counted per stream."""

from __future__ import annotations

import sqlite3

from telephony.eventlog import RecordedEvent
from telephony.projections import Projection

from .things import ThingHappened, ThingUndone


class StreamCounts(Projection):
    name = "stream_counts"
    version = 1
    tables = ("test_stream_counts",)
    handles = frozenset({ThingHappened, ThingUndone})
    reads_envelope = True  # counts by stream

    def create(self, conn: sqlite3.Connection) -> None:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS test_stream_counts (stream TEXT PRIMARY KEY, n INTEGER, total INTEGER)"
        )

    def apply(self, conn: sqlite3.Connection, event: RecordedEvent) -> None:
        match event.event:
            case ThingHappened(n=n):
                delta = 1
            case ThingUndone(n=n):
                delta = -1
        conn.execute(
            "INSERT INTO test_stream_counts VALUES (?, ?, ?) ON CONFLICT (stream) DO UPDATE "
            "SET n = test_stream_counts.n + excluded.n, total = test_stream_counts.total + excluded.total",
            (event.stream, delta, n),
        )

    @staticmethod
    def read(conn: sqlite3.Connection) -> dict[str, int]:
        return dict(conn.execute("SELECT stream, n FROM test_stream_counts"))


class EnvelopeTrail(Projection):
    """Every event's envelope as a row: what a projection that reads provenance sees."""

    name = "envelope_trail"
    tables = ("test_envelope_trail",)
    handles = frozenset({ThingHappened})
    reads_envelope = True

    def create(self, conn: sqlite3.Connection) -> None:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS test_envelope_trail (position INTEGER PRIMARY KEY, stream TEXT, "
            "version INTEGER, request_id TEXT, recorded_at TEXT, hash TEXT)"
        )

    def apply(self, conn: sqlite3.Connection, event: RecordedEvent) -> None:
        row = (event.position, event.stream, event.version, event.meta.request_id, event.recorded_at, event.hash)
        conn.execute("INSERT INTO test_envelope_trail VALUES (?, ?, ?, ?, ?, ?)", row)
