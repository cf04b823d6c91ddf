"""`verify` of a PostgreSQL log's read models: rebuilt from the log into a scratch schema and compared,
table by table, with the live ones.

One transaction at `REPEATABLE READ` sees the log and the live tables at one moment (a commit writes
both at once); the scratch schema comes first in its search path, so the projections' own `create`
and `apply` make and fill their tables there while the log is read from the live schema. Nothing of
it stays: the transaction rolls back and the schema is dropped."""

from __future__ import annotations

import secrets
from typing import Any

from ..eventlog import store
from ..eventlog.pg_connection import PgConnection
from .runner import Projections

CHUNK = 5000


def built(url: str) -> bool:
    """Whether the log's read models were made (a copy `migrate` made has none until a start or `replay`)."""
    conn = PgConnection(url)
    try:
        return conn.execute("SELECT to_regclass('projection_checkpoints')").fetchone() != (None,)
    finally:
        conn.close()


def compare(url: str, projections: Projections) -> str | None:
    """The first difference between the live read models and a fresh replay, or None."""
    conn: Any = PgConnection(url)
    live = conn.execute("SELECT current_schema()").fetchone()[0]
    scratch = f"verify_{secrets.token_hex(6)}"
    conn.execute(f'CREATE SCHEMA "{scratch}"')
    try:
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        conn.execute(f'SET LOCAL search_path TO "{scratch}", "{live}"')
        _replay(conn, projections)
        found = _first_difference(conn, projections, live, scratch)
        conn.execute("ROLLBACK")
        return found
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        conn.execute(f'DROP SCHEMA "{scratch}" CASCADE')
        conn.close()


def _replay(conn: Any, projections: Projections) -> None:
    for projection in projections.all:
        projection.create(conn)
    last = store.head(conn)[0]
    for rows in store.raw_chunks(conn, until=last, chunk=CHUNK) if last else ():
        for row in rows:
            projections.apply(conn, store.decode_row(row, projections.catalogue))
    for projection in projections.all:
        projection.settle(conn)


def _first_difference(conn: Any, projections: Projections, live: str, scratch: str) -> str | None:
    for projection in projections.all:
        for table in projection.tables:
            there = [conn.execute("SELECT to_regclass(?)", (f'"{schema}"."{table}"',)).fetchone()[0] is not None
                     for schema in (live, scratch)]  # fmt: skip
            if there == [False, False]:
                continue  # a table of SQLite's alone (a search table)
            if there != [True, True]:
                return f"{projection.name}: table {table} is missing from the {'live' if there[1] else 'replayed'} ones"
            for one, other in ((live, scratch), (scratch, live)):
                extra = conn.execute(f'SELECT count(*) FROM (SELECT * FROM "{one}"."{table}" EXCEPT ALL '
                                     f'SELECT * FROM "{other}"."{table}") AS d').fetchone()[0]  # fmt: skip
                if extra:
                    side = "live" if one == live else "replayed"
                    return f"{projection.name}: {extra} rows of {table} only in the {side} read models"
    return None
