"""What a projection is: a read model fed by the event types it declares."""

from __future__ import annotations

import sqlite3
from typing import ClassVar

from ..eventlog.records import RecordedEvent


class Projection:
    """A durable read model kept in SQLite tables, written in the same transaction as the events.

    Subclasses set `name`, `version` (bump it to rebuild from the log at the next start), `tables`
    (the tables it owns, dropped on rebuild), `handles` (event types) and implement `create` and
    `apply`, and `index` when they have secondary indexes. `apply` does no I/O beyond its own tables.
    """

    name: str
    version: ClassVar[int] = 1
    tables: tuple[str, ...] = ()
    handles: frozenset[str] = frozenset()
    reads_envelope: ClassVar[bool] = False
    """True when `apply` reads more of an event than its position, type, schema and data: its envelope
    (stream, version, meta, recorded_at, hash). Rebuilds skip reading the envelope when no projection does."""
    rebuilding: bool = False
    """True while a rebuild replays the log: aggregates may then wait for `index`."""

    def create(self, conn: sqlite3.Connection) -> None:
        raise NotImplementedError

    def apply(self, conn: sqlite3.Connection, event: RecordedEvent) -> None:
        raise NotImplementedError

    def index(self, conn: sqlite3.Connection) -> None:
        """Create secondary indexes and settle aggregates. A rebuild calls it after the replay:
        sorting once at the end is much cheaper than keeping indexes up to date row by row."""

    def drop(self, conn: sqlite3.Connection) -> None:
        for table in self.tables:
            conn.execute(f'DROP TABLE IF EXISTS "{table}"')
