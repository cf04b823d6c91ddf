"""What the connections of both drivers offer the code that runs in the log's transactions.

The writer's connection (and a read connection of the log) is SQLite's `sqlite3.Connection`
(`SqliteConnection`) or psycopg's behind `PgConnection`: statements with `?` placeholders, in
transactions the code says itself (`BEGIN`, `COMMIT`, `SAVEPOINT`). Statements written in SQL both
engines take (the log's reads, checkpoints, tracking) run on either; where a store's SQL differs, the
code asks `dialect` which it speaks ("sqlite" or "postgresql") and takes that store's own."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol


class Cursor(Protocol):
    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def fetchmany(self, size: int = ..., /) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    dialect: str

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Cursor: ...

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Any: ...

    @property
    def in_transaction(self) -> bool: ...

    def close(self) -> None: ...


class SqliteConnection(sqlite3.Connection):
    """A `sqlite3.Connection` that says its dialect (`sqlite3.connect(..., factory=SqliteConnection)`)."""

    dialect = "sqlite"


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
