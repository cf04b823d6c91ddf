"""Audit of a log: the hash chain, replay equality, and point-in-time copies.

`verify_chain` recomputes every event's hash; `verify_projections` rebuilds every projection from the log
into a scratch database and compares it with the live tables; `fold_memory` folds the in-memory ones (a
server compares its live ones with such a fold, `POST /_telephony/verify`); `replay_into` copies the log
up to a position or time (from SQLite or PostgreSQL) into a new data dir and rebuilds its projections."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import tempfile
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from .eventlog import LOG_FILE, RecordedEvent, compression, store
from .eventlog.compression import plain
from .eventlog.hashing import GENESIS, canonical_bytes, chain_hash
from .eventlog.pg_connection import Snapshot
from .projections import Projection, Projections, snapshots
from .projections.fresh import FRESH_SETTINGS
from .projections.memory import MemoryProjections, restores
from .redaction import redact

CARRIED_FILES = ("control-key.sha256", "secret.key")
"""Files of a data dir that belong with its log (keys), copied by `replay_into`."""
CHAIN_COST = 0.25
"""The work of checking one event's hash on the rows a rebuild reads anyway, relative to replaying it
into a plain document table (measured on a million CDRs: 2 s against the conversations' 7.7 s)."""


@dataclass(frozen=True)
class Problem:
    position: int | None
    what: str

    def __str__(self) -> str:
        where = f"position {self.position}" if self.position is not None else "projections"
        return f"{where}: {self.what}"


def _as_bytes(value: object) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()


class Chain:
    """The hash chain checked row by row: called with each stored row in position order, it gives back
    the row's data made plain, or raises `Broken` at the first event whose position, hash or any
    stored byte is not what the chain says. A rebuild can check it on the rows it reads anyway
    (`Projections.rebuild(watch=...)`), so `verify` reads and decompresses the log once for both."""

    def __init__(self, progress=None) -> None:
        self._previous, self._expected, self._progress = GENESIS, 1, progress
        self.problem: Problem | None = None

    def __call__(self, row: tuple) -> bytes:
        position, stream, version, type_, schema, data, meta, recorded_at, digest = row
        if position != self._expected:
            self._broken(self._expected, f"position {self._expected} is missing (found {position} next)")
        try:
            content = plain(_as_bytes(data))
        except compression.UnreadableData as exc:
            self._broken(position, f"the event's data cannot be read: {exc}")
        canonical = canonical_bytes(position, stream, version, type_, schema, recorded_at, content, _as_bytes(meta))
        if chain_hash(self._previous, canonical) != digest:
            self._broken(position, "hash does not match the event's stored bytes")
        self._previous, self._expected = _as_bytes(digest), self._expected + 1
        if self._progress is not None:
            self._progress(1)
        return content

    def _broken(self, position: int, what: str) -> NoReturn:
        self.problem = Problem(position, what)
        raise Broken(self.problem)


class Broken(Exception):
    """The hash chain does not hold (`Chain`)."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


def verify_chain(conn: sqlite3.Connection, progress=None) -> Problem | None:
    """The first event whose position, hash or any stored byte is not what the chain says."""
    chain = Chain(progress)
    try:
        for row in store.raw_rows(conn, chunk=5000):
            chain(row)
    except Broken as exc:
        return exc.problem
    return None


def _tables(projections: Projections) -> list[str]:
    return [table for projection in projections.all for table in projection.tables]


def verify_projections(
    conn: sqlite3.Connection, projections: Projections, chain: Chain | None = None
) -> Problem | None:
    """Rebuild every projection from the log (read where it lies) in a scratch database and compare,
    table by table. With a `chain`, the rebuild reads every event and checks the hash chain on the way;
    when it breaks, nothing is compared (`chain.problem` says why) and None is returned."""
    conn.execute(f"PRAGMA mmap_size={store.MAPPED}")  # the log, read through
    with tempfile.TemporaryDirectory(prefix="telephony-verify-") as scratch:
        fresh = _scratch(Path(scratch) / LOG_FILE)
        try:
            projections.rebuild(fresh, log=conn, indexes=False, progress=False, watch=chain)
        except Broken:
            fresh.close()
            return None
        fresh.execute("ATTACH DATABASE ? AS live", (_path_of(conn),))
        fresh.execute(f"PRAGMA live.mmap_size={store.MAPPED}")
        try:
            for table in _tables(projections):
                if (problem := _difference(fresh, table)) is not None:
                    return problem
        finally:
            fresh.execute("DETACH DATABASE live")
            fresh.close()
    return None


def _scratch(path: Path) -> sqlite3.Connection:
    """A database thrown away after one comparison, made as a full rebuild's new file is (`fresh`): no
    journal, no waits for the disk (in WAL mode a rebuild of a million documents wrote every page twice
    and waited at each checkpoint), read mapped."""
    conn = store.connect(path, synchronous="NORMAL")
    for setting in FRESH_SETTINGS:
        conn.execute(f"PRAGMA {setting}")
    return conn


def split(conn: sqlite3.Connection, projections: Projections, beside: float) -> tuple[Projections, Projections]:
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


def _difference(conn: sqlite3.Connection, table: str) -> Problem | None:
    """The first difference between the scratch (`main`) and the `live` table: their columns (a live
    table of another shape, as an older version made it, is one), then their rows. Rows keyed by an
    integer are looked up one way only: when every scratch row is in the live table as it is and both
    hold as many rows, the live table holds no other (keys are unique), so the other way is read only
    when the counts differ."""
    columns = _columns(conn, "main", table)
    if (live := _columns(conn, "live", table)) != columns:
        shape = "has other columns than a fresh replay makes" if live else "is missing"
        return Problem(None, f"the live table {table!r} {shape}")
    keys = [(name, type_) for name, type_, _, pk in columns if pk]
    key = keys[0][0] if len(keys) == 1 and keys[0][1].upper() == "INTEGER" else None
    for left, right, side in (("main", "live", "missing from"), ("live", "main", "unexpected in")):
        if key is not None and left == "live" and _count(conn, "main", table) == _count(conn, "live", table):
            return None
        cursor = conn.execute(_first_unmatched(conn, left, right, table, [c[0] for c in columns], key))
        if (row := cursor.fetchone()) is not None:
            shown = redact(dict(zip([c[0] for c in cursor.description], row[:3], strict=False)))
            return Problem(None, f"row {shown!r}... {side} the live table {table!r}")
    return None


def _columns(conn: sqlite3.Connection, schema: str, table: str) -> list[tuple]:
    """A table's columns: name, declared type, NOT NULL and place in the primary key."""
    return [(name, type_, notnull, pk) for _, name, type_, notnull, _, pk in
            conn.execute(f'PRAGMA {schema}.table_info("{table}")')]  # fmt: skip


def _count(conn: sqlite3.Connection, schema: str, table: str) -> int:
    return conn.execute(f'SELECT count(*) FROM {schema}."{table}"').fetchone()[0]


def _first_unmatched(conn: sqlite3.Connection, left: str, right: str, table: str, names: list[str],
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


class _LogFile:
    """A closed log read as in-memory projections read a live one: in chunks, up to its head."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self.position = store.head(conn)[0]

    async def chunks(self, after: int = 0, *, until: int | None = None, types: Sequence[str] | None = None,
                     size: int = 1000) -> AsyncIterator[list[RecordedEvent]]:  # fmt: skip
        for rows in store.raw_chunks(self._conn, after=after, until=until, types=list(types or ()), chunk=size):
            yield [store.decode_row(row) for row in rows]


def fold_memory(conn: sqlite3.Connection, memory: MemoryProjections, kept: bool = True) -> Problem | None:
    """Fold the in-memory projections from the log: one that cannot replay it is a problem, and so is
    a stored snapshot that differs from the fold at its position (`kept`: the log may hold some)."""
    return asyncio.run(_fold_comparing(conn, memory, snapshots.load(conn, memory.kept) if kept else []))


async def _fold_comparing(conn: sqlite3.Connection, memory: MemoryProjections,
                          kept: list[snapshots.Snapshot]) -> Problem | None:  # fmt: skip
    reader = _LogFile(conn)
    head = reader.position
    stops = sorted({snapshot.position for snapshot in kept} | {head})
    reader.position = stops[0]
    await memory.attach(reader)
    by_name = {projection.name: projection for projection in memory.all}
    for stop in stops:
        await memory.fold(memory.folded, reader, stop)
        for name, failure in memory.failures.items():
            return Problem(None, f"in-memory projection {name!r} failed to fold the log: {failure}")
        for snapshot in kept:
            if snapshot.position == stop and not restores(by_name[snapshot.name], snapshot.state):
                return Problem(stop, f"the snapshot of in-memory projection {snapshot.name!r} differs from a fold")
    return None


def _readable(conn: sqlite3.Connection, schema: str, table: str) -> str:
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


def _path_of(conn: sqlite3.Connection) -> str:
    return conn.execute("PRAGMA database_list").fetchone()[2]


def _copy_events(src: sqlite3.Connection, dst: sqlite3.Connection, until: int | None, until_time: str | None) -> int:
    """Copy the log's events (up to a point) and the dictionaries they need."""
    dst.execute("BEGIN IMMEDIATE")
    copied = last = 0
    insert = f"INSERT INTO events ({store.COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)"
    for rows in store.raw_chunks(src, until=until, until_time=until_time, chunk=5000):
        dst.executemany(insert, rows)
        copied, last = copied + len(rows), rows[-1][0]
    compression.copy(src, dst, before=last)
    dst.execute("COMMIT")
    return copied


def replay_into(
    data_dir: Path,
    out_dir: Path,
    projections: Projections,
    *,
    until: int | None = None,
    until_time: str | None = None,
    progress: bool = True,
    log_url: str = "",
) -> int:
    """Write the state at `until` (position) or `until_time` into a new data dir, with the data dir's keys,
    from its SQLite log or from the PostgreSQL log at `log_url` (read at one moment)."""
    if (out_dir / LOG_FILE).exists():
        raise FileExistsError(f"{out_dir / LOG_FILE} exists; replay writes into a new data dir")
    out_dir.mkdir(parents=True, exist_ok=True)
    src: Any = Snapshot(log_url) if log_url else store.connect(data_dir / LOG_FILE, readonly=True)
    dst = store.connect(out_dir / LOG_FILE, synchronous="NORMAL")
    try:
        copied = _copy_events(src, dst, until, until_time)
        projections.rebuild(dst, progress=progress)
    finally:
        src.close()
        dst.close()
    for name in CARRIED_FILES:
        if (data_dir / name).exists():
            shutil.copy2(data_dir / name, out_dir / name)
    return copied
