"""Replay equality: every projection rebuilt from the log into a scratch database and compared with the
live tables, table by table, the log and the live tables read in one snapshot."""

from __future__ import annotations

import tempfile
from pathlib import Path

from ..eventlog import LOG_FILE, store
from ..eventlog.connection import SqliteConnection
from ..projections import Projection, Projections
from ..projections.fresh import FRESH_SETTINGS
from ..redaction import redact
from .chain import Broken, Chain, Problem

CHAIN_COST = 0.25
"""The work of checking one event's hash on the rows a rebuild reads anyway, relative to replaying it
into a plain document table (measured on a million CDRs: 2 s against the conversations' 7.7 s)."""
FRESH, LIVE = "fresh", "main"
"""The schemas of the comparing connection: the scratch rebuild (attached) and the live database."""


def _tables(projections: Projections) -> list[str]:
    return [table for projection in projections.all for table in projection.tables]


def verify_projections(conn: SqliteConnection, projections: Projections, chain: Chain | None = None) -> Problem | None:
    """Rebuild every projection from the log of `conn` (read where it lies) in a scratch database and
    compare, table by table. With a `chain`, the rebuild reads every event and checks the hash chain on
    the way; when it breaks, nothing is compared (`chain.problem` says why) and None is returned.

    The rebuild reads the log and the comparison reads the live tables in one read transaction of `conn`:
    a server writing to the data dir meanwhile moves neither side (its commits come after the snapshot),
    so what differs differs at the snapshot's position, which the problem names."""
    conn.execute(f"PRAGMA mmap_size={store.MAPPED}")  # the log, read through
    with tempfile.TemporaryDirectory(prefix="telephony-verify-") as scratch:
        path = Path(scratch) / LOG_FILE
        fresh = _scratch(path)
        conn.execute(f"ATTACH DATABASE ? AS {FRESH}", (str(path),))  # before the transaction: not within one
        try:
            conn.execute("BEGIN")
            try:
                at = projections.rebuild(fresh, log=conn, indexes=False, progress=False, watch=chain)
            except Broken:
                return None
            for table in _tables(projections):
                if (problem := _difference(conn, table)) is not None:
                    return Problem(None, problem, at=at)
            return None
        finally:
            _drop_term_tables(conn)
            if conn.in_transaction:
                conn.execute("COMMIT")
            fresh.close()
            conn.execute(f"DETACH DATABASE {FRESH}")


def _scratch(path: Path) -> SqliteConnection:
    """A database thrown away after one comparison, made as a full rebuild's new file is (`fresh`): no
    journal, no waits for the disk (in WAL mode a rebuild of a million documents wrote every page twice
    and waited at each checkpoint), read mapped."""
    conn = store.connect(path, synchronous="NORMAL")
    for setting in FRESH_SETTINGS:
        conn.execute(f"PRAGMA {setting}")
    return conn


def split(conn: SqliteConnection, projections: Projections, beside: float) -> tuple[Projections, Projections]:
    """Two groups of `projections` whose rebuilds take about as long, the second after other work worth
    `beside` events applied: each projection weighs the events of its types in the log times its
    `rebuild_cost`, and the heaviest go first to the lighter group. Each group keeps the set's order."""
    counts = dict(conn.execute("SELECT type, count(*) FROM events GROUP BY type").fetchall())

    def weight(projection: Projection) -> float:
        return projection.rebuild_cost * sum(counts.get(type_, 0) for type_ in projection.tags)

    groups: tuple[list[Projection], list[Projection]] = ([], [])
    loads = [0.0, beside]
    for projection in sorted(projections.all, key=weight, reverse=True):
        lighter = 0 if loads[0] <= loads[1] else 1
        groups[lighter].append(projection)
        loads[lighter] += weight(projection)
    order = {id(projection): n for n, projection in enumerate(projections.all)}
    first, second = (sorted(group, key=lambda p: order[id(p)]) for group in groups)
    return Projections(first, projections.catalogue), Projections(second, projections.catalogue)


def _difference(conn: SqliteConnection, table: str) -> str | None:
    """The first difference between the scratch (`FRESH`) and the `LIVE` table: their columns (a live
    table of another shape, as an older version made it, is one), then their rows. Rows keyed by an
    integer are looked up one way only: when every scratch row is in the live table as it is and both
    hold as many rows, the live table holds no other (keys are unique), so the other way is read only
    when the counts differ."""
    columns = _columns(conn, FRESH, table)
    if (live := _columns(conn, LIVE, table)) != columns:
        shape = "has other columns than a fresh replay makes" if live else "is missing"
        return f"the live table {table!r} {shape}"
    keys = [(name, type_) for name, type_, _, pk in columns if pk]
    key = keys[0][0] if len(keys) == 1 and keys[0][1].upper() == "INTEGER" else None
    for left, right, side in ((FRESH, LIVE, "missing from"), (LIVE, FRESH, "unexpected in")):
        if key is not None and left == LIVE and _count(conn, FRESH, table) == _count(conn, LIVE, table):
            return None
        cursor = conn.execute(_first_unmatched(conn, left, right, table, [c[0] for c in columns], key))
        if (row := cursor.fetchone()) is not None:
            shown = redact(dict(zip([c[0] for c in cursor.description], row[:3], strict=False)))
            return f"row {shown!r}... {side} the live table {table!r}"
    return None


def _columns(conn: SqliteConnection, schema: str, table: str) -> list[tuple]:
    """A table's columns: name, declared type, NOT NULL and place in the primary key."""
    return [(name, type_, notnull, pk) for _, name, type_, notnull, _, pk in
            conn.execute(f'PRAGMA {schema}.table_info("{table}")')]  # fmt: skip


def _count(conn: SqliteConnection, schema: str, table: str) -> int:
    return conn.execute(f'SELECT count(*) FROM {schema}."{table}"').fetchone()[0]


def _first_unmatched(conn: SqliteConnection, left: str, right: str, table: str, names: list[str],
                     key: str | None) -> str:  # fmt: skip
    """SQL for the first row of `left`'s `table` that `right`'s lacks: by its integer `key` when it has
    one (one scan with ordered lookups), else with EXCEPT (which sorts all of the other side)."""
    if key is None:
        ours, theirs = _readable(conn, left, table), _readable(conn, right, table)
        return f"SELECT * FROM {ours} EXCEPT SELECT * FROM {theirs} LIMIT 1"
    same = "".join(f' AND b."{name}" IS a."{name}"' for name in names if name != key)
    return (
        f'SELECT a.* FROM {left}."{table}" a WHERE NOT EXISTS (SELECT 1 FROM {right}."{table}" b '
        f'WHERE b."{key}" = a."{key}"{same}) LIMIT 1'
    )


def _drop_term_tables(conn: SqliteConnection) -> None:
    """Drop the temporary tables `_readable` made: the next comparison on `conn` reads its indexes anew."""
    made = conn.execute("SELECT name FROM temp.sqlite_master WHERE type = 'table' AND name LIKE '%_terms%'")
    for (name,) in made.fetchall():
        conn.execute(f'DROP TABLE temp."{name}"')


def _readable(conn: SqliteConnection, schema: str, table: str) -> str:
    """What to compare of a table: its rows; for a full-text index (which holds no rows to read), each
    term with the number of documents and of places it is found in (`fts5vocab`), read once into a
    temporary table (reading them walks the whole index; each side is compared twice)."""
    found = conn.execute(f"SELECT sql FROM {schema}.sqlite_master WHERE name = ?", (table,)).fetchone()
    if found is None or "USING fts5(" not in (found[0] or ""):
        return f'{schema}."{table}"'
    vocab = f"{schema}_{table}_terms"
    conn.execute(f'CREATE VIRTUAL TABLE IF NOT EXISTS temp."{vocab}_read" USING fts5vocab({schema}, "{table}", row)')
    conn.execute(f'CREATE TEMP TABLE IF NOT EXISTS "{vocab}" AS SELECT * FROM temp."{vocab}_read"')
    return f'temp."{vocab}"'
