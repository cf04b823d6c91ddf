"""What a projection is: a read model fed by the event types it declares."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import ClassVar

from ..domain.events import Event, tag_of
from ..eventlog.connection import Connection
from ..eventlog.records import RecordedEvent


class Projection:
    """A durable read model kept in SQLite tables, written in the same transaction as the events.

    Subclasses set `name`, `version` (bump it when `apply` changes meaning), `tables` (the tables it
    owns, dropped on rebuild), `handles` (the event types, as their classes) and implement `create` and
    `apply` (matching on the event's type), and `index` when they have secondary indexes. `apply` does
    no I/O beyond its own tables.

    The stored version of a projection is its `fingerprint`: `version` and a digest of its
    `declaration` (kind, tables, event types, indexes, id rules...), so a changed declaration
    rebuilds it from the log at the next start, as a bumped `version` does.
    """

    name: str
    version: ClassVar[int] = 1
    tables: tuple[str, ...] = ()
    handles: frozenset[type[Event]] = frozenset()
    reads_envelope: bool = False
    """True when `apply` reads more of an event than its position, type, schema and data: its envelope
    (stream, version, meta, recorded_at, hash). Rebuilds skip reading the envelope when no projection
    does, and live appends hide it from projections that do not say so, so none can work live and
    break on replay."""
    rebuilding: bool = False
    """True while a rebuild replays the log: rows and aggregates may then wait for `settle`."""
    replays_json: Mapping[str, Callable[[Connection, bytes], None]] = {}
    """Event types a rebuild may hand over as their data's stored JSON, undecoded, with what takes it:
    a projection that keeps part of an event as it was written, or reads only a few of its fields,
    need not decode all of it. Used while `rebuilding` only, for types no upcaster may change; `apply`
    stays the meaning of every event."""
    rebuild_cost: float = 1.0
    """The work of replaying one of its events, relative to a plain document table's: weighs the split
    of `verify`'s rebuild between two processes (`audit.split`)."""

    def declaration(self) -> tuple:
        """Everything that shapes the read model; subclasses add theirs."""
        return (type(self).__qualname__, self.tables, tuple(sorted(self.tags)), self.reads_envelope)

    @property
    def tags(self) -> frozenset[str]:
        """The stored types of the events it handles."""
        return frozenset(tag_of(cls) for cls in self.handles)

    @property
    def fingerprint(self) -> str:
        digest = hashlib.sha256(repr(self.declaration()).encode()).hexdigest()[:16]
        return f"{self.version}:{digest}"

    def create(self, conn: Connection) -> None:
        raise NotImplementedError

    def apply(self, conn: Connection, event: RecordedEvent) -> None:
        raise NotImplementedError

    def settle(self, conn: Connection) -> None:
        """Write the rows a rebuild held back and settle aggregates; a rebuild calls it after the replay."""

    gathering: bool = False
    """While the writer applies one request's events: a projection that changes one row per event (a
    count, a sequence) may add the changes up and write them once, at `gathered`. PostgreSQL slows on a
    row updated again and again in one transaction: each update leaves a version only the commit frees."""

    def gathered(self, conn: Connection) -> None:
        """Write what was added up while `gathering` (at the request's end, inside its savepoint)."""

    def forget(self, conn: Connection) -> None:
        """Drop what was added up while `gathering` (the request failed)."""

    def index(self, conn: Connection) -> None:
        """Create secondary indexes; a rebuild calls it after `settle`: sorting once at the end is much
        cheaper than keeping indexes up to date row by row. SQLite derives an index from the rows, so
        a rebuild made only to compare rows leaves them out."""

    def drop(self, conn: Connection) -> None:
        for table in self.tables:
            conn.execute(f'DROP TABLE IF EXISTS "{table}"')
