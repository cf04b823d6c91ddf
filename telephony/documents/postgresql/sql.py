"""PostgreSQL's SQL of the document tables: a condition and a list's page (`documents.sql` gives their
shape), and a kind's table, its body as text and as a `jsonb` document."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from psycopg.types.json import Jsonb

from ...eventlog.connection import Connection
from ..changes import Clear, json_text
from ..conditions import FALSE, Condition, Holds, In, Is, Like, Null
from ..names import Table, documents_of
from ..sql import Sql, marks

_encode, _decode = msgspec.json.encode, msgspec.json.decode
NUL = "\x00"


def _before_nul(prop: str, op: str, value: str) -> Condition:
    """A comparison with a text holding a NUL, as one with its text before the NUL."""
    if op in ("=", "!="):
        return Null(prop, present=True) if op == "!=" else FALSE
    return Is(prop, "<=" if op in ("<", "<=") else ">", value.partition(NUL)[0])


class PgSql(Sql):
    """A property is read from the rows' `jsonb` document (`doc -> 'prop'`), a JSON null as NULL, and a value
    bound as `jsonb` compares as `jsonb` does: numbers as numbers, text by the database's collation (a
    C.UTF-8 cluster: by code point), false before true. No text can hold a NUL: a filter's text holding
    one compares as its text before it, where it sorts among texts that hold none (nothing equals it)."""

    ids = "id, row_number() OVER (ORDER BY {order}) AS k"
    bodies = "SELECT convert_to(string_agg(body, ',' ORDER BY k), 'UTF8') FROM page JOIN"
    last_id = "(SELECT id FROM page ORDER BY k DESC LIMIT 1)"
    nulls = (" NULLS FIRST", " NULLS LAST")

    def expression(self, prop: str, table: Table) -> str:
        return prop if prop in table.columns else f"nullif(doc -> '{prop}', 'null')"

    def text(self, prop: str, table: Table) -> str:
        return f"{prop}::text" if prop in table.columns else f"(doc ->> '{prop}')"

    def bound(self, prop: str, value: Any, table: Table) -> Any:
        return value if prop in table.columns else Jsonb(value)

    def sql(self, condition: Condition, table: Table, params: list[Any]) -> str:
        match condition:
            case Is(prop, op, str() as value) if NUL in value:
                condition = _before_nul(prop, op, value)
            case In(prop, values):
                condition = In(prop, tuple(v for v in values if not (isinstance(v, str) and NUL in v)))
        return super().sql(condition, table, params)

    def like(self, condition: Like, table: Table, params: list[Any]) -> str:
        """`ILIKE` over the property's text, a backslash in the pattern taken as itself; a trigram index
        (`pg_trgm`) of a searched property's text answers it."""
        params.append(condition.pattern.replace("\\", "\\\\"))
        return f"{self.text(condition.prop, table)} {'NOT ' if condition.negate else ''}ILIKE ?"

    def holds(self, condition: Holds, params: list[Any]) -> str:
        prop, member = condition.prop, condition.member
        item = f"CASE jsonb_typeof(item) WHEN 'object' THEN item -> '{member}' ELSE item END" if member else "item"
        items = f"CASE jsonb_typeof(doc -> '{prop}') WHEN 'array' THEN doc -> '{prop}' END"
        params.extend(Jsonb(value) for value in condition.values)
        return (f"EXISTS (SELECT 1 FROM jsonb_array_elements({items}) AS e (item) "
                f"WHERE {item} IN ({marks(condition.values)}))")  # fmt: skip


SQL = PgSql()


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
    """The SQL of one kind's document table on PostgreSQL: the body as text (the bytes a list answers
    with; `jsonb` would reorder its keys) and as the `jsonb` document `doc`, generated when a row is
    written. A patch merges the body in Python, keeping its keys in place and adding new ones at the
    end, as SQLite's `json_set` does."""

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
            columns = ", ".join(f"({SQL.expression(prop, self.shape)}) NULLS FIRST" for prop in props)  # as sorted
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
