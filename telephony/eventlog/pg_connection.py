"""A PostgreSQL connection with the surface both stores' connections share (`connection.Connection`):
`?` placeholders (the DB-API's qmark style, which SQLite's driver takes), explicit transactions
(autocommit, `BEGIN`/`COMMIT` said), `execute` on the connection. Statements written in SQL both
engines take (the log's reads, checkpoints, tracking) run on either store; PostgreSQL's own SQL is
written beside SQLite's where they differ (`documents/postgresql/`, `pg_store`).

psycopg 3 is the driver: its synchronous connection runs on the writer's thread, where decisions and
projections run inside the append's transaction as they do on SQLite (see docs/postgresql.md)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus
from psycopg.types.string import StrDumper

from .connection import ConnectionState

_PLACEHOLDER = re.compile(r"'(?:[^']|'')*'|\?")
"""A quoted literal (left as it is) or a `?` placeholder."""


def translate(sql: str) -> str:
    """SQLite's `?` placeholders as psycopg's `%s` (outside quoted literals); a `%`, psycopg's own
    marker wherever it stands, doubled."""
    return _PLACEHOLDER.sub(lambda m: "%s" if m[0] == "?" else m[0], sql.replace("%", "%%"))


class PgConnection(ConnectionState):
    """A psycopg connection in autocommit mode, with the surface of `Connection` the store uses (and
    the state a connection to the log carries: a PostgreSQL log stores its events plain)."""

    dialect = "postgresql"

    def __init__(self, url: str) -> None:
        self.url = url
        self.raw = psycopg.connect(url, autocommit=True)
        self.raw.adapters.register_dumper(str, StrDumper)  # bound as text (psycopg's default leaves it untyped)
        self.carry()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> psycopg.Cursor:
        return self.raw.execute(translate(sql), tuple(params)) if params else self.raw.execute(sql)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> psycopg.Cursor:
        cursor = self.raw.cursor()
        cursor.executemany(translate(sql), [tuple(row) for row in rows])
        return cursor

    @property
    def in_transaction(self) -> bool:
        return self.raw.info.transaction_status != TransactionStatus.IDLE

    def close(self) -> None:
        self.raw.close()


def is_postgresql(url: str) -> bool:
    """True for a PostgreSQL URL (`postgresql://` or `postgres://`)."""
    return url.startswith(("postgresql://", "postgres://"))


class Snapshot:
    """A PostgreSQL log read at one moment, with the surface of a read-only `Connection` the
    store's reads use: one `REPEATABLE READ` transaction, each statement's rows streamed from a
    server-side cursor (`store.raw_chunks` fetches a chunk at a time; the rows are never all in memory).
    `telephony replay --out` copies a PostgreSQL log from one."""

    dialect = "postgresql"

    def __init__(self, url: str) -> None:
        self._conn = PgConnection(url)
        self._conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        self._cursors = 0

    def execute(self, sql: str, params: Sequence[Any] = ()) -> psycopg.ServerCursor:
        self._cursors += 1
        cursor = self._conn.raw.cursor(name=f"snapshot_{self._cursors}")
        cursor.execute(translate(sql), tuple(params))
        return cursor

    def close(self) -> None:
        self._conn.execute("ROLLBACK")
        self._conn.close()
