"""The SQLite schema of the event log and its synchronous reads (shared by the writer, rebuilds and CLI)."""

from __future__ import annotations

import heapq
import os
import sqlite3
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from typing import Any

import msgspec

from ..datadir import DataDirUnusable
from ..domain.events import EVENTS, Catalogue, Event
from . import compression
from .compression import Dictionaries
from .connection import Connection, LogConnection, Reading, plain
from .records import Metadata, RecordedEvent, UnreadableEvent

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    position    INTEGER PRIMARY KEY,
    stream      TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    type        TEXT    NOT NULL,
    schema      INTEGER NOT NULL,
    data        BLOB    NOT NULL,
    meta        BLOB    NOT NULL,
    recorded_at TEXT    NOT NULL,
    hash        BLOB    NOT NULL,
    UNIQUE (stream, version)
);
CREATE INDEX IF NOT EXISTS events_type ON events (type, position);
"""

COLUMNS = "position, stream, version, type, schema, data, meta, recorded_at, hash"
CONTENT_COLUMNS = "position, type, schema, data"
"""What a replay reads for projections that ignore an event's envelope (see `decode_content_row`)."""
MAPPED = 2**31 - 2**16
"""The bytes of a database file a long read (a rebuild, a comparison) maps into memory (`mmap_size`, at
SQLite's usual limit) rather than reading it page by page: each page is read where it lies, not copied
by a system call (a third off the CPU of building the indexes of a million CDRs)."""
UNREAD_META = Metadata()
_decode_meta = msgspec.json.Decoder(Metadata).decode


def connect(path: str | Path, *, synchronous: str = "FULL", readonly: bool = False,
            dictionaries: Dictionaries | None = None) -> LogConnection:  # fmt: skip
    """Open the log database in WAL mode, in autocommit mode (transactions are explicit), carrying
    `dictionaries` (another connection's to the same log, so that they share them; new by default).

    The database holds password hashes and sealed secrets: a writer creates it readable by its owner
    only (0600), and SQLite gives its `-wal` and `-shm` files the same mode."""
    if readonly:
        conn = _open_readonly(Path(path))
    else:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, factory=LogConnection)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript(SCHEMA)
        conn.execute(compression.SCHEMA)
    conn.execute(f"PRAGMA synchronous={'FULL' if synchronous == 'FULL' else 'NORMAL'}")
    conn.execute("PRAGMA busy_timeout=5000")
    conn.carry(dictionaries)
    conn.dictionaries.load(conn)
    return conn


def _open_readonly(path: Path) -> LogConnection:
    """The log opened to read: as a reader beside a server (`mode=ro`, sharing its WAL index), or, where
    nothing may be written (a backup, an evidence copy, a read-only mount, where SQLite cannot make
    the WAL index beside the file), as a file that does not change (`immutable=1`), which it is when no
    WAL file holds commits beside it. A WAL file with commits and no index beside it cannot be read
    there: the data dir must be copied to where it can be."""
    address = f"file:{urllib.parse.quote(str(path))}"
    conn = sqlite3.connect(f"{address}?mode=ro", uri=True, isolation_level=None, check_same_thread=False,
                           factory=LogConnection)  # fmt: skip
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # opens the file and its WAL index
        return conn
    except sqlite3.OperationalError:
        conn.close()
        wal = path.with_name(path.name + "-wal")
        if wal.exists() and wal.stat().st_size:
            raise DataDirUnusable(f"{wal} holds commits that SQLite reads only with {path.name}-shm beside it, "
                                  f"which cannot be made in {path.parent}: copy the data dir where it can be "
                                  f"written, or with {path.name}-shm") from None  # fmt: skip
    return sqlite3.connect(f"{address}?immutable=1", uri=True, isolation_level=None, check_same_thread=False,
                           factory=LogConnection)  # fmt: skip


@contextmanager
def reading(conn: Connection) -> Iterator[None]:
    """One read transaction: every read of `conn` within sees the database of one moment (in WAL mode,
    whatever a writer commits meanwhile)."""
    conn.execute("BEGIN")
    try:
        yield
    finally:
        conn.execute("COMMIT")


def head(conn: Connection) -> tuple[int, bytes]:
    """The last position and its hash (0 and the genesis hash for an empty log)."""
    row = conn.execute("SELECT position, hash FROM events ORDER BY position DESC LIMIT 1").fetchone()
    return (row[0], row[1]) if row else (0, bytes(32))


def stream_version(conn: Connection, stream: str) -> int:
    row = conn.execute("SELECT max(version) FROM events WHERE stream = ?", (stream,)).fetchone()
    return row[0] or 0


def opened_at(conn: Connection, stream: str) -> int | None:
    """The position of a stream's first event; None while it has none."""
    row = conn.execute("SELECT position FROM events WHERE stream = ? AND version = 1", (stream,)).fetchone()
    return row[0] if row else None


def stream_events(conn: Connection, stream: str, catalogue: Catalogue = EVENTS) -> list[Event]:
    """A stream's typed events in version order: what a decision folds."""
    rows = conn.execute("SELECT type, schema, data FROM events WHERE stream = ? ORDER BY version", (stream,))
    return [catalogue.read(type_, schema, plain(conn, data)) for type_, schema, data in rows]


def _read(catalogue: Catalogue, position: int, type_: str, schema: int, data: bytes) -> Event:
    try:
        return catalogue.read(type_, schema, data)
    except ValueError as exc:
        raise UnreadableEvent(position, f"cannot be read: {exc}") from exc


def decode_row(row: tuple, catalogue: Catalogue = EVENTS, content: bytes | None = None, conn: Any = None
               ) -> RecordedEvent:  # fmt: skip
    """A stored row as an event (`content`: its data already made plain, when the caller has; else it is
    made plain with the dictionaries of the log `conn`, which the row was read through)."""
    position, stream, version, type_, schema, data, meta, recorded_at, digest = row
    event = _read(catalogue, position, type_, schema, plain(conn, data) if content is None else content)
    return RecordedEvent(
        position=position,
        stream=stream,
        version=version,
        type=type_,
        schema=type(event).schema,
        event=event,
        meta=_decode_meta(meta),
        recorded_at=recorded_at,
        hash=digest.hex(),
    )


def decode_content_row(row: tuple, catalogue: Catalogue = EVENTS, content: bytes | None = None, conn: Any = None
                       ) -> RecordedEvent:  # fmt: skip
    """An event read with `CONTENT_COLUMNS`: its envelope (stream, version, meta, time, hash) is left empty
    (`content` and `conn` as for `decode_row`)."""
    position, type_, schema, data = row
    event = _read(catalogue, position, type_, schema, plain(conn, data) if content is None else content)
    return RecordedEvent(position=position, stream="", version=0, type=type_, schema=type(event).schema,
                         event=event, meta=UNREAD_META, recorded_at="", hash="")  # fmt: skip


def without_envelope(event: RecordedEvent) -> RecordedEvent:
    """The event as a replay that skips the envelope gives it (see `decode_content_row`)."""
    return RecordedEvent(position=event.position, stream="", version=0, type=event.type, schema=event.schema,
                         event=event.event, meta=UNREAD_META, recorded_at="", hash="")  # fmt: skip


def raw_chunks(
    conn: Reading,
    *,
    after: int = 0,
    until: int | None = None,
    stream: str | None = None,
    types: list[str] | None = None,
    since_time: str | None = None,
    until_time: str | None = None,
    chunk: int = 2000,
    columns: str = COLUMNS,
) -> Iterator[list[tuple]]:
    """Stored rows (of `columns`) in position order, filtered, as lists of up to `chunk` rows (memory stays
    flat)."""
    where: list[str] = ["position > ?"]
    args: list[object] = [after]
    if until is not None:
        where.append("position <= ?")
        args.append(until)
    if stream is not None:
        where.append("stream = ?")
        args.append(stream)
    if types:
        where.append(f"type IN ({','.join('?' * len(types))})")
        args.extend(types)
    if since_time is not None:
        where.append("recorded_at >= ?")
        args.append(since_time)
    if until_time is not None:
        where.append("recorded_at <= ?")
        args.append(until_time)
    cursor = conn.execute(f"SELECT {columns} FROM events WHERE {' AND '.join(where)} ORDER BY position", args)
    rows = cursor.fetchmany(chunk)
    if isinstance(conn, LogConnection):  # a SQLite log's (a PostgreSQL log stores its events plain)
        conn.dictionaries.load(conn)  # in the read that now holds the rows: every dictionary they may need
    while rows:
        yield rows
        rows = cursor.fetchmany(chunk)


SCANNED_SPAN = 2000
"""The longest span of positions `rows_after` reads through rather than by type."""


def rows_after(
    conn: Connection, after: int, until: int, *, types: list[str] | None = None, limit: int = 1000
) -> list[tuple]:
    """Up to `limit` stored rows after `after` and up to `until` (of `types`), in position order: one
    short read that holds no transaction open between chunks (followers page through the log with it).

    Of given types, the positions are read from the index by type, each type's in order, and merged:
    a fold of a few types over a long log (the in-memory projections at start-up) reads only theirs.
    A span of at most `SCANNED_SPAN` positions (a live reactor's tail) is read as it lies, its other
    types left out as it goes: one statement, not one per type."""
    sql = "SELECT " + COLUMNS + " FROM events WHERE position > ? AND position <= ?"
    if not types:
        return conn.execute(sql + " ORDER BY position LIMIT ?", (after, until, limit)).fetchall()
    if until - after <= SCANNED_SPAN:
        unindexed = "+type" if conn.dialect == "sqlite" else "type"  # SQLite: read as it lies
        chosen = sql + f" AND {unindexed} IN ({','.join('?' * len(types))}) ORDER BY position LIMIT ?"
        return conn.execute(chosen, (after, until, *types, limit)).fetchall()
    by_type = "SELECT position FROM events WHERE type = ? AND position > ? AND position <= ? ORDER BY position LIMIT ?"
    found = [conn.execute(by_type, (type_, after, until, limit)) for type_ in types]
    positions = [row[0] for row in islice(heapq.merge(*found), limit)]  # committed rows never change
    if not positions:
        return []
    chosen = f"SELECT {COLUMNS} FROM events WHERE position IN ({','.join('?' * len(positions))}) ORDER BY position"
    return conn.execute(chosen, positions).fetchall()


def raw_rows(conn: Connection, **filters) -> Iterator[tuple]:
    """Stored rows in position order, filtered as `raw_chunks`, one by one."""
    for rows in raw_chunks(conn, **filters):
        yield from rows


def read_events(conn: Connection, catalogue: Catalogue = EVENTS, **filters) -> Iterator[RecordedEvent]:
    for row in raw_rows(conn, **filters):
        yield decode_row(row, catalogue, conn=conn)


def count(conn: Connection, after: int = 0, until: int | None = None) -> int:
    sql, args = "SELECT count(*) FROM events WHERE position > ?", [after]
    if until is not None:
        sql += " AND position <= ?"
        args.append(until)
    return conn.execute(sql, args).fetchone()[0]
