"""Feeds events to projections, keeps their checkpoints and rebuilds the ones that are stale."""

from __future__ import annotations

import sqlite3
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence

from tqdm import tqdm

from ..eventlog import store
from ..eventlog.records import RecordedEvent
from ..eventlog.upcasting import Upcasters
from .base import Projection

CHECKPOINTS = """
CREATE TABLE IF NOT EXISTS projection_checkpoints (
    name TEXT PRIMARY KEY, version INTEGER NOT NULL, position INTEGER NOT NULL
)
"""
REBUILD_COMMIT_EVERY = 100_000


class Projections:
    """The set of projections one app runs, dispatched by event type."""

    def __init__(self, projections: Sequence[Projection], upcasters: Upcasters | None = None) -> None:
        self.all = list(projections)
        self.upcasters = upcasters
        self._by_type: dict[str, list[Projection]] = defaultdict(list)
        for projection in self.all:
            for type_ in projection.handles:
                self._by_type[type_].append(projection)

    def apply(self, conn: sqlite3.Connection, event: RecordedEvent) -> None:
        for projection in self._by_type.get(event.type, ()):
            projection.apply(conn, event)

    def checkpoint(self, conn: sqlite3.Connection, position: int) -> None:
        conn.execute("UPDATE projection_checkpoints SET position = ?", (position,))

    def stale(self, conn: sqlite3.Connection) -> list[Projection]:
        """Projections whose stored version differs from their code, or that lag behind the log."""
        conn.execute(CHECKPOINTS)
        stored = {
            name: (v, p) for name, v, p in conn.execute("SELECT name, version, position FROM projection_checkpoints")
        }
        last, _ = store.head(conn)
        return [p for p in self.all if stored.get(p.name) != (p.version, last)]

    def prepare(self, conn: sqlite3.Connection, *, progress: bool = True) -> list[str]:
        """Create missing tables and rebuild stale projections; returns the names rebuilt."""
        stale = self.stale(conn)
        if stale:
            self.rebuild(conn, stale, progress=progress)
        return [p.name for p in stale]

    def rebuild(
        self,
        conn: sqlite3.Connection,
        projections: Iterable[Projection] | None = None,
        *,
        until: int | None = None,
        progress: bool = True,
    ) -> int:
        """Drop and refill `projections` (all by default) from the log; returns events applied."""
        targets = list(self.all if projections is None else projections)
        subset = Projections(targets, self.upcasters)
        conn.execute(CHECKPOINTS)
        conn.execute("BEGIN IMMEDIATE")
        for projection in targets:
            projection.drop(conn)
            projection.create(conn)
            conn.execute(
                "INSERT OR REPLACE INTO projection_checkpoints (name, version, position) VALUES (?, ?, 0)",
                (projection.name, projection.version),
            )
        total = store.count(conn, until=until)
        applied, position = 0, 0
        bar = tqdm(
            total=total,
            desc="rebuilding projections",
            unit="ev",
            file=sys.stderr,
            disable=None if progress else True,
            mininterval=0.5,
        )
        for row in store.raw_rows(conn, until=until, chunk=5000):
            position = row[0]
            if row[3] in subset._by_type:
                subset.apply(conn, store.decode_row(row, self.upcasters))
            applied += 1
            if applied % 5000 == 0:
                bar.update(5000)
            if applied % REBUILD_COMMIT_EVERY == 0:
                subset._checkpoint_names(conn, targets, position)
                conn.execute("COMMIT")
                conn.execute("BEGIN IMMEDIATE")
        bar.update(applied % 5000)
        bar.close()
        subset._checkpoint_names(conn, targets, store.head(conn)[0] if until is None else position)
        conn.execute("COMMIT")
        return applied

    @staticmethod
    def _checkpoint_names(conn: sqlite3.Connection, targets: Sequence[Projection], position: int) -> None:
        conn.executemany(
            "UPDATE projection_checkpoints SET position = ? WHERE name = ?",
            [(position, p.name) for p in targets],
        )
