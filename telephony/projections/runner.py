"""Feeds events to projections, keeps their checkpoints and rebuilds the ones that are stale."""

from __future__ import annotations

import gc
import os
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager

import msgspec
from tqdm import tqdm

from ..domain.events import EVENTS, Catalogue
from ..eventlog import store
from ..eventlog.connection import Connection, plain
from ..eventlog.records import RecordedEvent, UnreadableEvent
from . import pg_rebuild
from .base import Projection

CHECKPOINTS = """
CREATE TABLE IF NOT EXISTS projection_checkpoints (
    name TEXT PRIMARY KEY, version NOT NULL, position INTEGER NOT NULL
)
"""
REBUILD_COMMIT_EVERY = 100_000
REBUILD_CHUNK = 5000
BULK_SETTINGS = {"synchronous": "1", "cache_size": "-131072", "secure_delete": "OFF",  # synchronous 1: NORMAL
                 "threads": str(min(4, os.cpu_count() or 1))}  # fmt: skip
SECURE_DELETE = {0: "OFF", 1: "ON", 2: "FAST"}


@contextmanager
def _bulk_settings(conn: Connection) -> Iterator[None]:
    """A rebuild need not survive a power cut (an unfinished one is redone at the next start), so it
    commits without waiting for the disk (NORMAL: in WAL mode the file stays consistent, and the log
    itself is never written here) and sorts in a larger cache. It drops the old tables without zeroing
    their pages (`secure_delete`, on in many builds, rewrote every page of them: 3 s for a million
    documents, 0.2 s without): whatever they held, the log in the same file holds too. The settings
    come back afterwards, also after a rebuild that failed (its transaction rolled back first: a
    safety level cannot change inside one). Indexes are sorted by as many threads as there are cores
    (up to 4): a fifth off each index of a million documents on two. A connection already less safe
    than NORMAL (a scratch database) stays so."""
    saved = {name: conn.execute(f"PRAGMA {name}").fetchone()[0] for name in BULK_SETTINGS}
    for name, value in BULK_SETTINGS.items():
        conn.execute(f"PRAGMA {name}={min(int(value), saved[name]) if name == 'synchronous' else value}")
    try:
        yield
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        for name, value in saved.items():
            conn.execute(f"PRAGMA {name}={SECURE_DELETE[value] if name == 'secure_delete' else int(value)}")


@contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """A rebuild allocates millions of short-lived dicts and makes no reference cycles: the cycle
    collector would only walk the records held back, again and again. Reference counting still frees
    everything; the collector is back afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class Projections:
    """The set of projections one app runs, dispatched by event type."""

    def __init__(self, projections: Sequence[Projection], catalogue: Catalogue = EVENTS) -> None:
        self.all = list(projections)
        self.catalogue = catalogue
        """The event types of the log, by tag: how their stored data is read (and upcast)."""
        self._by_type: dict[str, list[Projection]] = defaultdict(list)
        self._gatherers = [p for p in self.all if type(p).gathered is not Projection.gathered]
        for projection in self.all:
            for type_ in projection.tags:
                self._by_type[type_].append(projection)

    def apply(self, conn: Connection, event: RecordedEvent) -> None:
        """Apply a live event; projections that do not read the envelope see it without one, as on replay."""
        content = None
        for projection in self._by_type.get(event.type, ()):
            if projection.reads_envelope:
                projection.apply(conn, event)
            else:
                content = content or store.without_envelope(event)
                projection.apply(conn, content)

    @property
    def _reads_envelope(self) -> bool:
        return any(projection.reads_envelope for projection in self.all)

    def gather(self) -> None:
        """Until `gathered` or `forget`: the projections that can add up a request's changes do."""
        for projection in self._gatherers:
            projection.gathering = True

    def gathered(self, conn: Connection) -> None:
        for projection in self._gatherers:
            projection.gathering = False
            projection.gathered(conn)

    def forget(self, conn: Connection) -> None:
        for projection in self._gatherers:
            projection.gathering = False
            projection.forget(conn)

    def checkpoint(self, conn: Connection, position: int) -> None:
        conn.execute("UPDATE projection_checkpoints SET position = ?", (position,))

    def stale(self, conn: Connection) -> list[Projection]:
        """Projections whose stored version differs from their code, or that lag behind the log."""
        conn.execute(CHECKPOINTS)
        stored = {
            name: (v, p) for name, v, p in conn.execute("SELECT name, version, position FROM projection_checkpoints")
        }
        last, _ = store.head(conn)
        return [p for p in self.all if stored.get(p.name) != (p.fingerprint, last)]

    def prepare(self, conn: Connection, *, progress: bool = True) -> list[str]:
        """Create missing tables and rebuild stale projections; returns the names rebuilt. On a
        PostgreSQL log, with `pg_rebuild`."""
        if conn.dialect == "postgresql":
            pg_stale = pg_rebuild.stale(conn, self.all)
            if pg_stale:
                pg_rebuild.rebuild(conn, self, pg_stale)
            return [p.name for p in pg_stale]
        stale = self.stale(conn)
        if stale:
            self.rebuild(conn, stale, progress=progress)
        return [p.name for p in stale]

    def rebuild(
        self,
        conn: Connection,
        projections: Iterable[Projection] | None = None,
        *,
        until: int | None = None,
        progress: bool = True,
        log: Connection | None = None,
        indexes: bool = True,
        watch: Callable[[tuple], bytes] | None = None,
    ) -> int:
        """Drop and refill `projections` (all by default) from the log; returns the position replayed to.

        The log is read from `log` when given (another database: a scratch rebuild reads the live log
        where it lies), else from `conn`; `indexes=False` leaves secondary indexes out (a rebuild only
        to compare rows). Only the rows of handled types are read and decoded; commits come every
        `REBUILD_COMMIT_EVERY` positions so the WAL stays small. A `watch` is handed every stored row
        of the log (all types, whole) before it is applied and gives back its data made plain: the
        hash chain is checked so (`audit.Chain`) on the same read.
        """
        targets = list(self.all if projections is None else projections)
        with _bulk_settings(conn), _without_cycle_collection():
            last = self._replay(conn, log or conn, targets, until, progress, watch)
            for projection in targets:
                projection.settle(conn)
                if indexes:
                    projection.index(conn)
                projection.rebuilding = False
            self._checkpoint_names(conn, targets, last)
            conn.execute("COMMIT")
            return last

    def _replay(self, conn: Connection, log: Connection, targets: list[Projection],
                until: int | None, progress: bool, watch: Callable[[tuple], bytes] | None = None) -> int:  # fmt: skip
        """Recreate `targets` and feed them the log up to `until`, leaving the last transaction open."""
        subset = Projections(targets, self.catalogue)
        conn.execute(CHECKPOINTS)
        conn.execute("BEGIN IMMEDIATE")
        for projection in targets:
            projection.drop(conn)
            projection.rebuilding = True
            projection.create(conn)
            conn.execute(
                "INSERT OR REPLACE INTO projection_checkpoints (name, version, position) VALUES (?, ?, 0)",
                (projection.name, projection.fingerprint),
            )
        head = store.head(log)[0]
        last = head if until is None else min(until, head)
        committed = 0
        with tqdm(total=last, desc="rebuilding projections", unit="ev", file=sys.stderr,
                  disable=None if progress else True, mininterval=0.5) as bar:  # fmt: skip
            types = sorted(subset._by_type)
            columns = store.COLUMNS if subset._reads_envelope or watch else store.CONTENT_COLUMNS
            read = None if watch else types
            chunks = store.raw_chunks(log, until=last, types=read, chunk=REBUILD_CHUNK, columns=columns)
            for chunk in chunks if types or watch else ():
                subset._apply_rows(conn, log, chunk, watch)
                position = chunk[-1][0]
                bar.update(position - bar.n)
                if position - committed >= REBUILD_COMMIT_EVERY:
                    subset._checkpoint_names(conn, targets, position)
                    conn.execute("COMMIT")
                    conn.execute("BEGIN IMMEDIATE")
                    committed = position
            bar.update(last - bar.n)
        return last

    def _apply_rows(self, conn: Connection, log: Connection, rows: list[tuple],
                    watch: Callable[[tuple], bytes] | None = None) -> None:  # fmt: skip
        """Decode stored rows (read from `log`) and apply each to the projections of its type (the rebuild's hot loop);
        a projection that takes a type as stored JSON (`replays_json`) is handed it undecoded. Rows
        are read whole (with their envelope) when a projection or the `watch` needs it."""
        envelope = self._reads_envelope or watch is not None
        decode = store.decode_row if envelope else store.decode_content_row
        type_at, data_at = (3, 5) if envelope else (1, 3)
        catalogue = self.catalogue
        takers = self._takers()
        for row in rows:
            data = plain(log, row[data_at]) if watch is None else watch(row)
            if (found := takers.get(row[type_at])) is None:
                continue  # read for the watch only
            undecoded, decoded = found
            try:
                for take in undecoded:
                    take(conn, data)
            except msgspec.DecodeError as exc:  # its stored JSON, read as it lies
                raise UnreadableEvent(row[0], f"cannot be read: {exc}") from exc
            if decoded:
                event = decode(row, catalogue, data)
                for apply in decoded:
                    apply(conn, event)

    def _takers(self) -> dict[str, tuple[tuple, tuple]]:
        """Per type: what takes its stored JSON (see `replays_json`; never a type an upcaster may
        change) and what applies it decoded."""
        found = {}
        for type_, projections in self._by_type.items():
            upcast = self.catalogue.changes(type_)
            undecoded = () if upcast else tuple(p.replays_json[type_] for p in projections if type_ in p.replays_json)
            decoded = tuple(p.apply for p in projections if upcast or type_ not in p.replays_json)
            found[type_] = (undecoded, decoded)
        return found

    @staticmethod
    def _checkpoint_names(conn: Connection, targets: Sequence[Projection], position: int) -> None:
        conn.executemany(
            "UPDATE projection_checkpoints SET position = ? WHERE name = ?",
            [(position, p.name) for p in targets],
        )
