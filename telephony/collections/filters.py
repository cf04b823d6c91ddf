"""`filter=[{property, operator, value}, ...]`: parsed, checked against the resource, made SQL.

Every operator of version 1.2 and its aliases, ANDed, each naming its operator. Values are read as
the property's type ("10" equals 10 on a number); time properties compare as times and take a bare
date, whose meaning depends on the operator (real-platform.md; in `in`, a bare date is that whole
day, as with `eq`). `like`/`notlike` without `%` or `_` match a substring, case-insensitively in any
alphabet, from the kind's substring index when it can (`documents.search`). Property names are
whitelisted, values always bound.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Any

import msgspec

from ..documents import prop_sql, search, unicode_lower
from ..documents.listing import Where
from ..domain.errors import Invalid
from ..domain.validation import problem
from .fields import Kind

OPERATORS = {
    "eq": "=", "=": "=",
    "ne": "!=", "neq": "!=", "<>": "!=", "!=": "!=",
    "lt": "<", "<": "<", "lte": "<=", "<=": "<=",
    "gt": ">", ">": ">", "gte": ">=", ">=": ">=",
    "in": "in", "like": "like", "notlike": "notlike",
}  # fmt: skip
MAX_CONDITIONS = 50
MAX_IN_VALUES = 1000
MAX_FILTER_BYTES = 64 * 1024
SHAPE = "(a JSON array of {property, operator, value} objects)"
FORMS = {
    Kind.INT: "a whole number", Kind.FLOAT: "a number", Kind.BOOL: "true or false", Kind.TEXT: "text",
    Kind.TIME: "a time, YYYY-MM-DD HH:MM:SS, or a date, YYYY-MM-DD", Kind.ARRAY: "a single value",
    Kind.OBJECT: "a single value",
}  # fmt: skip
SQL_INTEGERS = range(-(2**63), 2**63)
PLAIN_TIME = re.compile(r"[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}(?:[ T](?:[01][0-9]|2[0-3]):[0-9]{2}:[0-9]{2})?")
"""A date (from year 1000), or a time with a space or a `T`, in digits of exactly their width (hours
to 23: newer Pythons' `fromisoformat` reads 24:00:00 as the next midnight, `strptime` refuses it)."""


class Condition(msgspec.Struct, forbid_unknown_fields=False):
    property: str
    operator: Any = None
    value: Any = None


def _bad(field: str, message: str) -> Invalid:
    return Invalid.field(field, message)


def parse(raw: str | None, props: Mapping[str, Kind]) -> list[tuple[str, str, Any]]:
    """The checked conditions of a `filter` parameter: (property, canonical operator, typed value)."""
    if raw is None or not raw.strip():
        return []
    if len(raw) > MAX_FILTER_BYTES:
        raise _bad("filter", "The filter is too long")
    try:
        conditions = msgspec.json.decode(raw, type=list[Condition])
    except msgspec.ValidationError as exc:
        field, problem_ = problem(exc, list[Condition])
        raise _bad("filter", f"Malformed filter: {f'{field}: ' if field else ''}{problem_} {SHAPE}") from None
    except msgspec.DecodeError as exc:
        raise _bad("filter", f"Malformed filter: {str(exc).replace('`', '')} {SHAPE}") from None
    except RecursionError:
        raise _bad("filter", "Malformed filter: it is nested too deeply") from None
    if len(conditions) > MAX_CONDITIONS:
        raise _bad("filter", f"At most {MAX_CONDITIONS} conditions are allowed")
    return [_check(c, props) for c in conditions]


def _check(condition: Condition, props: Mapping[str, Kind]) -> tuple[str, str, Any]:
    if condition.property not in props:
        raise _bad("filter", f"Unknown property '{condition.property}'")
    if condition.operator is None:
        raise _bad("filter", f"The condition on '{condition.property}' has no operator (eq, ne, lt, lte, gt, gte, in, "
                             "like or notlike)")  # fmt: skip
    operator = OPERATORS.get(str(condition.operator).lower())
    if operator is None:
        raise _bad("filter", f"Unknown operator '{condition.operator}'")
    kind = props[condition.property]
    if operator == "in":
        if not isinstance(condition.value, list):
            raise _bad("filter", f"Operator 'in' on '{condition.property}' needs an array value")
        if len(condition.value) > MAX_IN_VALUES:
            raise _bad("filter", f"Operator 'in' takes at most {MAX_IN_VALUES} values")
        return condition.property, operator, [_typed(condition.property, kind, v) for v in condition.value]
    if operator in ("like", "notlike"):
        if not isinstance(condition.value, str | int | float) or isinstance(condition.value, bool):
            raise _bad("filter", f"Operator '{condition.operator}' on '{condition.property}' needs a text value")
        return condition.property, operator, str(condition.value)
    return condition.property, operator, _typed(condition.property, kind, condition.value)


def _typed(prop: str, kind: Kind, value: Any) -> Any:
    """A filter value read as the property's type, or a 400 naming the property."""
    if value is None:
        return None
    try:
        if kind is Kind.INT:
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise ValueError
            if int(value) not in SQL_INTEGERS:
                raise ValueError
            return int(value)
        if kind is Kind.FLOAT:
            if isinstance(value, bool):
                raise ValueError
            return float(value)
        if kind is Kind.BOOL:
            if isinstance(value, str) and value.lower() in ("true", "1", "false", "0"):
                return value.lower() in ("true", "1")
            if value in (0, 1) or isinstance(value, bool):
                return bool(value)
            raise ValueError
        if kind is Kind.TIME:
            return _time(value)
        if kind in (Kind.ARRAY, Kind.OBJECT):
            if isinstance(value, list | dict) or (isinstance(value, int) and value not in SQL_INTEGERS):
                raise ValueError
            return value
        if isinstance(value, list | dict):
            raise ValueError
        return str(value) if not isinstance(value, str) else value
    except (ValueError, TypeError, OverflowError):
        raise _bad(
            "filter", f"Value {value!r} is not a valid {kind.value} for '{prop}': expected {FORMS[kind]}"
        ) from None


def _time(value: Any) -> str:
    text = str(value).strip()
    if PLAIN_TIME.fullmatch(text):  # the forms clients send, read by the C parser (strptime takes 7 us)
        datetime.fromisoformat(text)  # a ValueError for a day or a time there is not, as strptime's
        return text if len(text) == 10 else f"{text[:10]} {text[11:]}"
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d"):
        try:
            parsed = datetime.strptime(text, fmt)
        except ValueError:
            continue
        return parsed.strftime("%Y-%m-%d") if fmt == "%Y-%m-%d" else parsed.strftime("%Y-%m-%d %H:%M:%S")
    raise ValueError(text)


def to_sql(conditions: list[tuple[str, str, Any]], props: Mapping[str, Kind], kind: str = "",
           searched: Collection[str] = ()) -> Where:  # fmt: skip
    """The AND of every condition, with bound parameters only. On documents of `kind` (when given) a
    property kept as a column is read from it, and `like` on a text property of `searched` reads the
    kind's search index when it can; otherwise every property is read from the rows' JSON `body`."""
    clauses: list[str] = []
    params: list[Any] = []
    match: tuple[search.Match, int, int] | None = None
    """The first condition the index answers, with where its clause and its parameter are."""
    for prop, operator, value in conditions:
        column = prop_sql(prop, bool(kind))
        kind_ = props[prop]
        if operator == "in":
            clauses.append(_among(column, kind_, value, params))
        elif operator == "like" and prop in searched and kind_ is Kind.TEXT and (
                found := search.match(kind, prop, value)):  # fmt: skip
            if match is None:
                match = found, len(clauses), len(params)
            clauses.append(found.condition)
            params.append(found.phrase)
        elif operator in ("like", "notlike"):
            clauses.append(_like(column, value, operator == "notlike", params))
        elif value is None:
            clauses.append(f"{column} IS {'NOT ' if operator == '!=' else ''}NULL")
        elif kind_ is Kind.TIME and len(value) == 10:
            clauses.append(_bare_date(column, operator, value, params))
        else:
            clauses.append(f"{column} {operator} ?")
            params.append(_bind(value))
    where = Where(" AND ".join(clauses) if clauses else "TRUE", tuple(params))
    if match is None:
        return where
    found, clause, param = match
    others = " AND ".join(clauses[:clause] + clauses[clause + 1 :]) or "TRUE"
    return Where(where.sql, where.params, found, (others, (*params[:param], *params[param + 1 :])))


def _among(column: str, kind: Kind, values: list[Any], params: list[Any]) -> str:
    """`in`: any of the values; on a time property a bare date is its whole day, as with `eq`."""
    days: list[str] = []
    others: list[Any] = []
    for value in values:
        (days if kind is Kind.TIME and isinstance(value, str) and len(value) == 10 else others).append(value)
    clauses = [f"{column} IN ({','.join('?' * len(others))})"] if others else []
    params.extend(_bind(v) for v in others)
    for day in dict.fromkeys(days):
        clauses.append(f"{column} BETWEEN ? AND ?")
        params.extend((day, f"{day} 23:59:59"))
    return f"({' OR '.join(clauses)})" if clauses else "FALSE"


def _like(column: str, value: str, negate: bool, params: list[Any]) -> str:
    """`like`/`notlike`, case-insensitive in any alphabet. SQLite's LIKE folds ASCII letters only, which
    is all a pattern in ASCII needs (other characters of the text can only meet its wildcards). A
    pattern with other letters compares lower-cased text (`unicode_lower`, a Python function, run
    only on rows that pass LIKE with those letters as `_`, so a rare pattern costs little)."""
    pattern = value if ("%" in value or "_" in value) else f"%{value}%"
    if pattern.isascii():  # SQLite's like(pattern, value) is `value LIKE pattern` (and see dialects.pg_functions)
        match = f"like(?, {column})"
        params.append(pattern)
    else:
        match = f"(like(?, {column}) AND like(?, {unicode_lower(column)}))"
        params.extend(("".join(c if c.isascii() else "_" for c in pattern), pattern.lower()))
    return f"({column} IS NOT NULL AND {'NOT ' if negate else ''}{match})"


def _bare_date(column: str, operator: str, day: str, params: list[Any]) -> str:
    """`lte` a date covers that whole day; `lt`, `gt`, `gte` mean its first second; `eq` is the day. A
    stored bare date (`start_at`) is its own first second: as text it sorts before `<day> 00:00:00`,
    so the lower bounds are the bare day itself wherever that gives the same answer."""
    last = f"{day} 23:59:59"
    if operator in ("=", "!="):
        params.extend((day, last))
        return f"{column} {'NOT ' if operator == '!=' else ''}BETWEEN ? AND ?"
    params.append({"<=": last, ">": f"{day} 00:00:00"}.get(operator, day))
    return f"{column} {operator} ?"


def _bind(value: Any) -> Any:
    return int(value) if isinstance(value, bool) else value
