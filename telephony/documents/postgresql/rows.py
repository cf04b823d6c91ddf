"""A kind's document table in PostgreSQL: the body as text, its properties as generated `jsonb` columns.

The table keeps `id`, `customer_id` and the JSON `body` as text (the bytes a list answers with, as
SQLite keeps them; `jsonb` would reorder the keys); each property of `names.COLUMNS` is a `jsonb`
column PostgreSQL generates from the body (`GENERATED ... STORED`, a JSON null as NULL), so nothing
writes them. An index on a property sorts its nulls first, as lists do. A patch merges the body in
Python, which keeps its keys in place and adds new ones at the end, as SQLite's `json_set` does.
Substring search needs no table of its own: a trigram GIN index (`pg_trgm`) on the text of each
searched property answers `ILIKE '%...%'` (`sql`)."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from ...domain.events.resources import ResourceUpdated
from ...eventlog.connection import Connection
from ..names import COLUMNS
from ..rows import Rows
from . import sql

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
    where = staticmethod(sql.where)
    integer = "BIGINT"
    declared = ("postgresql", 2)  # 2: the columns and comparisons are jsonb's own

    def __init__(self, kind: str, text_ids: bool, indexed: tuple[tuple[str, ...], ...], searched: Sequence[str]
                 ) -> None:  # fmt: skip
        super().__init__(kind, text_ids, indexed, searched)
        self.searched = tuple(searched)

    def _insert_statement(self) -> str:
        return (f'INSERT INTO "{self.table}" (id, customer_id, body) VALUES (?, ?, ?) ON CONFLICT (id) '
                "DO UPDATE SET customer_id = excluded.customer_id, body = excluded.body")  # fmt: skip

    def create(self, conn: Connection) -> None:
        key = "TEXT" if self.text_ids else "BIGINT"
        generated = "".join(f", {name} JSONB GENERATED ALWAYS AS (nullif(body::jsonb -> '{name}', 'null')) STORED"
                            for name in COLUMNS)  # fmt: skip
        conn.execute(f'CREATE TABLE IF NOT EXISTS "{self.table}" (id {key} PRIMARY KEY, customer_id BIGINT NOT NULL, '
                     f"body TEXT NOT NULL{generated})")  # fmt: skip
        conn.execute(f'CREATE TABLE IF NOT EXISTS "{self.counts}" (customer_id BIGINT PRIMARY KEY, n BIGINT NOT NULL)')

    def index(self, conn: Connection) -> None:
        conn.execute(f'CREATE INDEX IF NOT EXISTS "{self.table}_customer" ON "{self.table}" (customer_id, id)')
        for props in self.indexed:
            columns = ", ".join(f"{prop} NULLS FIRST" for prop in props)
            conn.execute(f'CREATE INDEX IF NOT EXISTS "{self.table}_{"_".join(props)}" ON "{self.table}" '
                         f"(customer_id, {columns}, id)")  # fmt: skip
        for prop in self.searched:
            conn.execute(f'CREATE INDEX IF NOT EXISTS "{self.table}_{prop}_trgm" ON "{self.table}" '
                         f"USING gin (({prop} #>> '{{}}') {trigram_ops(conn)})")  # fmt: skip

    def updated(self, conn: Connection, d: ResourceUpdated) -> None:
        if not d.changes:
            return
        if (held := self.held.get(d.id)) is not None:
            held[1] = (held[1] if isinstance(held[1], dict) else _decode(held[1])) | d.changes
            return
        row = conn.execute(f'SELECT body FROM "{self.table}" WHERE id = ?', (d.id,)).fetchone()
        if row is not None:
            merged = _encode(_decode(row[0]) | d.changes).decode()
            conn.execute(f'UPDATE "{self.table}" SET body = ? WHERE id = ?', (merged, d.id))
