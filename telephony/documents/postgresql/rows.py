"""A kind's document table in PostgreSQL: the body as text, and as a `jsonb` document to read.

The table keeps `id`, `customer_id` and the JSON `body` as text (the bytes a list answers with, as
SQLite keeps them; `jsonb` would reorder the keys), and `doc`, the body as `jsonb`, which PostgreSQL
generates (`GENERATED ... STORED`: parsed once, when written) and conditions read (`sql`). The
properties a kind indexes are indexes on expressions of `doc` (a JSON null as NULL, sorted first, as
lists sort them). A patch merges the body in Python, which keeps its keys in place and adds new ones
at the end, as SQLite's `json_set` does. Substring search needs no table of its own: a trigram GIN
index (`pg_trgm`) on the text of each searched property answers `ILIKE '%...%'`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from ...eventlog.connection import Connection
from ..changes import Clear, json_text
from ..names import documents_of
from .sql import SQL

_encode, _decode = msgspec.json.encode, msgspec.json.decode


def trigram_ops(conn: Connection) -> str:
    """The trigram operator class, named in the schema `pg_trgm` was installed in (a test's search path
    holds only its own schema)."""
    row = conn.execute("SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
                       "WHERE e.extname = 'pg_trgm'").fetchone()  # fmt: skip
    if row is None:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        return trigram_ops(conn)
    return f'"{row[0]}".gin_trgm_ops'


class PgTable:
    """The SQL of one kind's document table on PostgreSQL (`projection.DocumentTable` keeps it)."""

    sql, integer, tables = SQL, "BIGINT", ()
    declared = ("postgresql", 3)  # 3: a jsonb document, its properties compared as jsonb's own

    def __init__(self, kind: str, text_ids: bool, indexed: tuple[tuple[str, ...], ...], searched: Sequence[str]
                 ) -> None:  # fmt: skip
        self.shape, self.text_ids, self.indexed, self.searched = documents_of(kind), text_ids, indexed, searched
        self.table = self.shape.name
        self.insert = (f'INSERT INTO "{self.table}" (id, customer_id, body) VALUES (?, ?, ?) ON CONFLICT (id) '
                       "DO UPDATE SET customer_id = excluded.customer_id, body = excluded.body")  # fmt: skip

    def row(self, id_: Any, customer_id: int, body: Any) -> tuple[Any, ...]:
        return id_, customer_id, json_text(body)

    def create(self, conn: Connection, rebuilding: bool) -> None:
        key = "TEXT" if self.text_ids else "BIGINT"
        conn.execute(f'CREATE TABLE IF NOT EXISTS "{self.table}" (id {key} PRIMARY KEY, customer_id BIGINT NOT NULL, '
                     "body TEXT NOT NULL, doc JSONB GENERATED ALWAYS AS (body::jsonb) STORED)")  # fmt: skip

    def index(self, conn: Connection) -> None:
        for props in self.indexed:
            columns = ", ".join(f"({SQL.expression(prop, self.shape)}) NULLS FIRST" for prop in props)
            conn.execute(f'CREATE INDEX IF NOT EXISTS "{self.table}_{"_".join(props)}" ON "{self.table}" '
                         f"(customer_id, {columns}, id)")  # fmt: skip
        for prop in self.searched:
            conn.execute(f'CREATE INDEX IF NOT EXISTS "{self.table}_{prop}_trgm" ON "{self.table}" '
                         f"USING gin ({SQL.text(prop, self.shape)} {trigram_ops(conn)})")  # fmt: skip

    def settle(self, conn: Connection, rebuilding: bool) -> None:
        """Nothing beside the table: `doc` was generated with each row."""

    def write(self, conn: Connection, id_: Any, customer_id: int, body: Any) -> None:
        conn.execute(self.insert, self.row(id_, customer_id, body))

    def patch(self, conn: Connection, id_: Any, changes: dict[str, Any], rebuilding: bool) -> None:
        row = conn.execute(f'SELECT body FROM "{self.table}" WHERE id = ?', (id_,)).fetchone()
        if row is not None:
            merged = _encode(_decode(row[0]) | changes).decode()
            conn.execute(f'UPDATE "{self.table}" SET body = ? WHERE id = ?', (merged, id_))

    def delete(self, conn: Connection, id_: Any, rebuilding: bool) -> int | None:
        """Remove a document; the customer it belonged to (None: there was none)."""
        row = conn.execute(f'DELETE FROM "{self.table}" WHERE id = ? RETURNING customer_id', (id_,)).fetchone()
        return None if row is None else row[0]

    def clear(self, conn: Connection, chosen: str, params: list[Any], d: Clear, rebuilding: bool) -> None:
        """Remove the documents `chosen` (`FROM ... WHERE ...`) of the clear `d`."""
        conn.execute(f"DELETE {chosen}", params)
