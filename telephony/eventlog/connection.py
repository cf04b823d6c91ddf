"""What the connections of both drivers offer the code that runs in the log's transactions, and what
a connection to the log carries beside its rows.

The writer's connection (and a read connection of the log) is SQLite's `sqlite3.Connection`
(`SqliteConnection`) or psycopg's behind `PgConnection`: statements with `?` placeholders, in
transactions the code says itself (`BEGIN`, `COMMIT`, `SAVEPOINT`). Statements written in SQL both
engines take (the log's reads, checkpoints, tracking) run on either; where a store's SQL differs, the
code asks `dialect` which it speaks ("sqlite" or "postgresql") and takes that store's own.

Each carries the log's zstd dictionaries (its reads decompress with them) and the ids the open
request's events have claimed but not yet written (`projections/sequences.py` gathers them, `next_id`
reads them): the state of one log or of one transaction lives on the connection, never in a module
or a thread-local, so two logs in one process (two apps, a copy beside its source) keep theirs apart."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol

from .compression import MAGIC, Dictionaries


class Cursor(Protocol):
    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def fetchmany(self, size: int = ..., /) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Reading(Protocol):
    """What a read of the log takes (a PostgreSQL log's `Snapshot` offers no more)."""

    dialect: str

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Cursor: ...


class Connection(Reading, Protocol):
    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Any: ...

    @property
    def in_transaction(self) -> bool: ...

    def close(self) -> None: ...


class ConnectionState:
    """The state a connection to the log carries (set by `carry` when it is opened)."""

    dictionaries: Dictionaries
    """The dictionaries of the log it opens (shared by the log's connections)."""
    claimed: dict[str, int]
    """The highest id of each kind the open request's events claimed, not yet in the `sequences` table."""
    lasts: dict[str, int]
    """The `sequences` row of each kind as the open write batch has read and raised it: the batch holds
    the write lock, so only its own requests move them (read once a batch, not once a request)."""

    def carry(self, dictionaries: Dictionaries | None = None) -> None:
        self.dictionaries = Dictionaries() if dictionaries is None else dictionaries
        self.claimed, self.lasts = {}, {}

    def batch_begun(self) -> None:
        """A write batch holds the write lock from now: what an earlier one read may have moved since."""
        self.lasts.clear()


class SqliteConnection(sqlite3.Connection):
    """A `sqlite3.Connection` that says its dialect (`sqlite3.connect(..., factory=SqliteConnection)`)."""

    dialect = "sqlite"


class LogConnection(SqliteConnection, ConnectionState):
    """A SQLite connection to the log's database (`store.connect` opens one)."""


def carried(conn: Any) -> ConnectionState:
    """The state `conn` carries; a connection that was not opened as one to the log has none."""
    if not isinstance(conn, ConnectionState):
        raise TypeError(f"{type(conn).__name__} is no connection to the log (open one with store.connect)")
    return conn


def plain(conn: Any, stored: bytes) -> bytes:
    """The JSON of an event's data as `conn`'s log stores it (a frame is decompressed with its dictionaries)."""
    if stored[:4] != MAGIC:
        return stored
    return carried(conn).dictionaries.plain(stored)


BYTES = {"sqlite": "BLOB", "postgresql": "BYTEA"}
"""Each store's type of a column of bytes."""


def begin(conn: Connection) -> None:
    """Open a transaction that will write: SQLite takes its write lock at once (a reader's transaction
    would fail to write later), as every PostgreSQL transaction may write."""
    conn.execute("BEGIN IMMEDIATE" if conn.dialect == "sqlite" else "BEGIN")


def has_table(conn: Connection, name: str) -> bool:
    """Whether the database (PostgreSQL: the schemas of the search path) holds a table of this name."""
    if conn.dialect == "sqlite":
        return conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() is not None
    return conn.execute("SELECT to_regclass(?)", (name,)).fetchone()[0] is not None
