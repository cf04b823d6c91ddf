"""A condition (`documents.conditions`) in PostgreSQL's SQL, with its parameters bound.

A property is its `jsonb` column when the table generates one (`rows`), else read from the body
(`body::jsonb -> 'prop'`), a JSON null as NULL either way. A value is bound as `jsonb` and compares
as `jsonb` does, which is what the API means: numbers as numbers ("10" was read as 10 already), text
by the database's collation (`scripts/postgres` makes a C.UTF-8 cluster: by code point), false before
true. `like` is `ILIKE` over the property's text (`#>> '{}'`), with a backslash in the pattern taken as
itself; a trigram index (`pg_trgm`) of a searched property's text answers it.

No text here can hold a NUL: a filter's text that holds one is compared as the text before it, which
is where it sorts among texts that hold none (nothing equals it); `in` leaves it out."""

from __future__ import annotations

from typing import Any

from psycopg.types.json import Jsonb

from ..conditions import FALSE, All, AnyOf, Condition, Exists, Holds, In, Is, Like, Null, Number, NumberOf
from ..names import Table, table_of

OPERATORS = {"=": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
NUL = "\x00"
PLUS = "'+'"


def expression(prop: str, table: Table) -> str:
    """A (whitelisted) property of the table's rows: its column, or its `jsonb` value in the body."""
    return prop if prop in table.columns or prop in table.props else f"nullif(body::jsonb -> '{prop}', 'null')"


def text(prop: str, table: Table) -> str:
    """The text of a property's value: a string as it is, a number's digits."""
    if prop in table.columns:
        return f"{prop}::text"
    return f"({prop} #>> '{{}}')" if prop in table.props else f"(body::jsonb ->> '{prop}')"


def bound(prop: str, value: Any, table: Table) -> Any:
    """A value as bound beside a property: `jsonb`, but for a column of its own type."""
    return value if prop in table.columns else Jsonb(value)


def where(condition: Condition, table: Table) -> tuple[str, list[Any]]:
    """The SQL of `condition` on the rows of `table`, and its parameters."""
    params: list[Any] = []
    return _sql(condition, table, params), params


def _before_nul(prop: str, op: str, value: str) -> Condition:
    prefix = value.partition(NUL)[0]
    if op in ("=", "!="):
        return Null(prop, present=True) if op == "!=" else FALSE
    return Is(prop, "<=" if op in ("<", "<=") else ">", prefix)


def _marks(values: tuple[Any, ...]) -> str:
    return ",".join("?" * len(values))


def _sql(condition: Condition, table: Table, params: list[Any]) -> str:
    match condition:
        case Is(prop, op, str() as value) if NUL in value:
            return _sql(_before_nul(prop, op, value), table, params)
        case Is(prop, op, value):
            params.append(bound(prop, value, table))
            return f"{expression(prop, table)} {OPERATORS[op]} ?"
        case Null(prop, present):
            return f"{expression(prop, table)} IS {'NOT ' if present else ''}NULL"
        case In(prop, values):
            kept = tuple(v for v in values if not (isinstance(v, str) and NUL in v))
            params.extend(bound(prop, v, table) for v in kept)
            return f"{expression(prop, table)} IN ({_marks(kept)})" if kept else "FALSE"
        case Like(prop, pattern, negate):
            params.append(pattern.replace("\\", "\\\\"))
            return f"{text(prop, table)} {'NOT ' if negate else ''}ILIKE ?"
        case All(parts):
            return f"({' AND '.join(_sql(p, table, params) for p in parts)})" if parts else "TRUE"
        case AnyOf(parts):
            return f"({' OR '.join(_sql(p, table, params) for p in parts)})" if parts else "FALSE"
        case Number(props, number):
            params.extend([number] * len(props))
            return f"({' OR '.join(f'ltrim({text(p, table)}, {PLUS}) = ?' for p in props)})"
        case NumberOf(props, kind, numbers, inner):
            tests = []
            for prop in props:
                held = " UNION ".join(f'SELECT ltrim({text(n, table)}, {PLUS}) FROM "{table_of(kind)}" '
                                      f"WHERE {_sql(inner, table, params)}" for n in numbers)  # fmt: skip
                tests.append(f"ltrim({text(prop, table)}, {PLUS}) IN ({held})")
            return f"({' OR '.join(tests)})"
        case Holds(prop, values, member):
            item = f"CASE jsonb_typeof(item) WHEN 'object' THEN item -> '{member}' ELSE item END" if member else "item"
            items = f"CASE jsonb_typeof(body::jsonb -> '{prop}') WHEN 'array' THEN body::jsonb -> '{prop}' END"
            params.extend(Jsonb(v) for v in values)
            return (
                f"EXISTS (SELECT 1 FROM jsonb_array_elements({items}) AS e (item) WHERE {item} IN ({_marks(values)}))"
            )
        case Exists(kind, inner):
            return f'EXISTS (SELECT 1 FROM "{table_of(kind)}" WHERE {_sql(inner, table, params)})'
    raise TypeError(f"not a condition: {condition!r}")
