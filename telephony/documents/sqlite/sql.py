"""A condition (`documents.conditions`) in SQLite's SQL, with its parameters bound.

A property is its column when the table has one, else `json_extract` of the body: either way a
value of its JSON type (a boolean as 1 or 0, a null as NULL), which compares with the bound value
as SQLite compares values. `like` is SQLite's LIKE, which folds ASCII letters; a pattern with other
letters also compares both sides in lower case (`unicode_lower`, a Python function of the reader's
connections, run only on the rows that pass LIKE with those letters as `_`)."""

from __future__ import annotations

from typing import Any

from ..conditions import All, AnyOf, Condition, Exists, Holds, In, Is, Like, Null, Number, NumberOf
from ..names import Table, table_of

UNICODE_LOWER = "unicode_lower"
PLUS = "'+'"


def expression(prop: str, table: Table) -> str:
    """A (whitelisted) property of the table's rows: its column, or read from the JSON body."""
    return prop if prop in table.columns or prop in table.props else f"json_extract(body, '$.{prop}')"


def bound(value: Any) -> Any:
    """A value as bound beside a property (a boolean as 1 or 0)."""
    return int(value) if isinstance(value, bool) else value


def where(condition: Condition, table: Table) -> tuple[str, list[Any]]:
    """The SQL of `condition` on the rows of `table`, and its parameters."""
    params: list[Any] = []
    return _sql(condition, table, params), params


def _marks(values: tuple[Any, ...], params: list[Any]) -> str:
    params.extend(bound(v) for v in values)
    return ",".join("?" * len(values))


def _sql(condition: Condition, table: Table, params: list[Any]) -> str:
    match condition:
        case Is(prop, op, value):
            params.append(bound(value))
            return f"{expression(prop, table)} {op} ?"
        case Null(prop, present):
            return f"{expression(prop, table)} IS {'NOT ' if present else ''}NULL"
        case In(prop, values):
            return f"{expression(prop, table)} IN ({_marks(values, params)})"
        case Like(prop, pattern, negate):
            column = expression(prop, table)
            match = f"like(?, {column})"  # SQLite's like(pattern, value) is `value LIKE pattern`
            params.append("".join(c if c.isascii() else "_" for c in pattern))
            if not pattern.isascii():
                match = f"({match} AND like(?, {UNICODE_LOWER}({column})))"
                params.append(pattern.lower())
            return f"({column} IS NOT NULL AND {'NOT ' if negate else ''}{match})"
        case All(parts):
            return f"({' AND '.join(_sql(p, table, params) for p in parts)})" if parts else "TRUE"
        case AnyOf(parts):
            return f"({' OR '.join(_sql(p, table, params) for p in parts)})" if parts else "FALSE"
        case Number(props, number):
            params.extend([number] * len(props))
            return f"({' OR '.join(f'ltrim({expression(p, table)}, {PLUS}) = ?' for p in props)})"
        case NumberOf(props, kind, numbers, inner):
            tests = []
            for prop in props:
                held = " UNION ".join(f'SELECT ltrim({expression(n, table)}, {PLUS}) FROM "{table_of(kind)}" '
                                      f"WHERE {_sql(inner, table, params)}" for n in numbers)  # fmt: skip
                tests.append(f"ltrim({expression(prop, table)}, {PLUS}) IN ({held})")
            return f"({' OR '.join(tests)})"
        case Holds(prop, values, member):
            item = (
                f"CASE WHEN type = 'object' THEN json_extract(value, '$.{member}') ELSE value END"
                if member
                else "value"
            )
            return f"EXISTS (SELECT 1 FROM json_each(body, '$.{prop}') WHERE {item} IN ({_marks(values, params)}))"
        case Exists(kind, inner):
            return f'EXISTS (SELECT 1 FROM "{table_of(kind)}" WHERE {_sql(inner, table, params)})'
    raise TypeError(f"not a condition: {condition!r}")
