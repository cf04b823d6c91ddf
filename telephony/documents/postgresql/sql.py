"""A condition (`documents.conditions`) and a list's page in PostgreSQL's SQL (`documents.sql` gives its shape).

A property is read from the rows' `jsonb` document (`doc -> 'prop'`, which `rows` generates from the
body, and indexes where the kind does), a JSON null as NULL. A value is bound as `jsonb` and compares
as `jsonb` does, which is what the API means: numbers as numbers ("10" was read as 10 already), text
by the database's collation (`scripts/postgres` makes a C.UTF-8 cluster: by code point), false before
true. `like` is `ILIKE` over the property's text (`doc ->> 'prop'`), with a backslash in the pattern
taken as itself; a trigram index (`pg_trgm`) of a searched property's text answers it.

No text here can hold a NUL: a filter's text that holds one is compared as the text before it, which
is where it sorts among texts that hold none (nothing equals it); `in` leaves it out."""

from __future__ import annotations

from typing import Any

from psycopg.types.json import Jsonb

from ..conditions import FALSE, Condition, Holds, In, Is, Like, Null
from ..names import Table
from ..sql import Sql, marks

NUL = "\x00"


def _before_nul(prop: str, op: str, value: str) -> Condition:
    """A comparison with a text holding a NUL, as one with its text before the NUL."""
    if op in ("=", "!="):
        return Null(prop, present=True) if op == "!=" else FALSE
    return Is(prop, "<=" if op in ("<", "<=") else ">", value.partition(NUL)[0])


class PgSql(Sql):
    ids = "id, row_number() OVER (ORDER BY {order}) AS k"
    bodies = "SELECT convert_to(string_agg(body, ',' ORDER BY k), 'UTF8') FROM page JOIN {table} USING (id)"
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
