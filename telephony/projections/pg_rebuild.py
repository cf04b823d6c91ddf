"""Projections kept in a PostgreSQL log's database: their checkpoints, and the rebuild of stale ones.

The projections' own SQL runs on a `PgConnection` (SQLite's placeholders, portable statements). A
rebuild takes the commit lock, so no process appends while it replays (see `pg_store`)."""

from __future__ import annotations

from typing import Any

from ..eventlog import pg_store, store
from .base import Projection

CHECKPOINTS = """
CREATE TABLE IF NOT EXISTS projection_checkpoints (
    name TEXT PRIMARY KEY, version TEXT NOT NULL, position BIGINT NOT NULL
)
"""
CHUNK = 5000


def stale(conn: Any, projections: list[Projection]) -> list[Projection]:
    """Projections whose stored version differs from their code, or that lag behind the log."""
    conn.execute(CHECKPOINTS)
    stored = {name: (v, p) for name, v, p in conn.execute("SELECT name, version, position FROM projection_checkpoints")}
    last, _ = store.head(conn)
    return [p for p in projections if stored.get(p.name) != (p.fingerprint, last)]


def rebuild(conn: Any, runner: Any, targets: list[Projection]) -> int:
    """Drop, recreate and refill `targets` from the log in one transaction; the position replayed to."""
    conn.execute("BEGIN")
    try:
        pg_store.lock(conn)
        conn.execute(CHECKPOINTS)
        for projection in targets:
            projection.drop(conn)
            projection.create(conn)
            conn.execute(
                "INSERT INTO projection_checkpoints (name, version, position) VALUES (?, ?, 0) "
                "ON CONFLICT (name) DO UPDATE SET version = excluded.version, position = 0",
                (projection.name, projection.fingerprint),
            )
        subset = type(runner)(targets, runner.catalogue)
        last = store.head(conn)[0]
        types = sorted({tag for projection in targets for tag in projection.tags})
        for rows in store.raw_chunks(conn, until=last, types=types, chunk=CHUNK) if types else ():
            for row in rows:
                subset.apply(conn, store.decode_row(row, runner.catalogue))
        for projection in targets:
            projection.settle(conn)
            projection.index(conn)
        conn.executemany("UPDATE projection_checkpoints SET position = ? WHERE name = ?",
                         [(last, p.name) for p in targets])  # fmt: skip
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return last
