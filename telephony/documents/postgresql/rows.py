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

import msgspec

from ...eventlog.connection import Connection
from ..changes import Patch
from ..rows import Rows
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


class PgRows(Rows):
    sql = SQL
    integer = "BIGINT"
    declared = ("postgresql", 3)  # 3: a jsonb document, its properties compared as jsonb's own

    def __init__(self, kind: str, text_ids: bool, indexed: tuple[tuple[str, ...], ...], searched: Sequence[str]
                 ) -> None:  # fmt: skip
        super().__init__(kind, text_ids, indexed, searched)
        self.searched = tuple(searched)

    def _insert_statement(self) -> str:
        return (f'INSERT INTO "{self.table}" (id, customer_id, body) VALUES (?, ?, ?) ON CONFLICT (id) '
                "DO UPDATE SET customer_id = excluded.customer_id, body = excluded.body")  # fmt: skip

    def create(self, conn: Connection) -> None:
        key = "TEXT" if self.text_ids else "BIGINT"
        conn.execute(f'CREATE TABLE IF NOT EXISTS "{self.table}" (id {key} PRIMARY KEY, customer_id BIGINT NOT NULL, '
                     "body TEXT NOT NULL, doc JSONB GENERATED ALWAYS AS (body::jsonb) STORED)")  # fmt: skip
        conn.execute(f'CREATE TABLE IF NOT EXISTS "{self.counts}" (customer_id BIGINT PRIMARY KEY, n BIGINT NOT NULL)')

    def index(self, conn: Connection) -> None:
        conn.execute(f'CREATE INDEX IF NOT EXISTS "{self.table}_customer" ON "{self.table}" (customer_id, id)')
        for props in self.indexed:
            columns = ", ".join(f"({SQL.expression(prop, self.shape)}) NULLS FIRST" for prop in props)
            conn.execute(f'CREATE INDEX IF NOT EXISTS "{self.table}_{"_".join(props)}" ON "{self.table}" '
                         f"(customer_id, {columns}, id)")  # fmt: skip
        for prop in self.searched:
            conn.execute(f'CREATE INDEX IF NOT EXISTS "{self.table}_{prop}_trgm" ON "{self.table}" '
                         f"USING gin ({SQL.text(prop, self.shape)} {trigram_ops(conn)})")  # fmt: skip

    def updated(self, conn: Connection, d: Patch) -> None:
        if not d.changes:
            return
        if (held := self.held.get(d.id)) is not None:
            held[1] = (held[1] if isinstance(held[1], dict) else _decode(held[1])) | d.changes
            return
        row = conn.execute(f'SELECT body FROM "{self.table}" WHERE id = ?', (d.id,)).fetchone()
        if row is not None:
            merged = _encode(_decode(row[0]) | d.changes).decode()
            conn.execute(f'UPDATE "{self.table}" SET body = ? WHERE id = ?', (merged, d.id))
