"""What a list's conditions mean, written once: a tree of conditions that each store compiles to its
SQL (`sql`) and `holds` answers for a record in memory (live calls)."""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any

import msgspec

COMPARE: Mapping[str, Callable[[Any, Any], bool]] = {
    "=": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}  # fmt: skip


class Is(msgspec.Struct, frozen=True):
    prop: str
    op: str
    value: Any


class Null(msgspec.Struct, frozen=True):
    prop: str
    present: bool = False


class In(msgspec.Struct, frozen=True):
    prop: str
    values: tuple[Any, ...]


class Like(msgspec.Struct, frozen=True):
    prop: str
    pattern: str
    negate: bool = False


class All(msgspec.Struct, frozen=True):
    parts: tuple[Condition, ...]


class AnyOf(msgspec.Struct, frozen=True):
    parts: tuple[Condition, ...]


class Number(msgspec.Struct, frozen=True):
    props: tuple[str, ...]
    number: str


class NumberOf(msgspec.Struct, frozen=True):
    props: tuple[str, ...]
    kind: str
    numbers: tuple[str, ...]
    where: Condition


class Holds(msgspec.Struct, frozen=True):
    prop: str
    values: tuple[Any, ...]
    member: str | None = None


class Exists(msgspec.Struct, frozen=True):
    kind: str
    where: Condition


Condition = Is | Null | In | Like | All | AnyOf | Number | NumberOf | Holds | Exists
"""A condition on a record's properties, each compared with a value of the property's type; a property
missing or null meets no comparison, and text compares by code point. `Null`: missing or null
(`present`: not); `Like`: its text (a number's digits) matches a pattern of SQL's `%` and `_`, with
no escape character, in any case (`negate`: does not; a null never does); `Number`: one of the phone
numbers `props`, a leading `+` aside, is `number`; `NumberOf`: is one of the `numbers` of a document
of `kind` that meets `where`; `Holds`: the list `prop` holds one of `values`, as an item or as the
`member` of an object item; `Exists`: a document of `kind` meets `where` (the last three: SQL only)."""
TRUE: Condition = All(())
FALSE: Condition = AnyOf(())


def both(*conditions: Condition) -> Condition:
    """The AND of conditions, flattened."""
    parts = [p for c in conditions for p in (c.parts if isinstance(c, All) else (c,))]
    return parts[0] if len(parts) == 1 else All(tuple(parts))


def equals(**props: Any) -> Condition:
    """Every property equals its value (None: is null)."""
    return both(*(Null(p) if v is None else Is(p, "=", v) for p, v in props.items()))


def substring(value: str) -> str:
    """A `like` value as its pattern: without `%` or `_` it is a substring; read up to a NUL, as SQL's
    pattern (a C string) is."""
    value = value.partition("\x00")[0]
    return value if ("%" in value or "_" in value) else f"%{value}%"


@cache
def _pattern(pattern: str) -> re.Pattern[str]:
    body = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern)
    return re.compile(f"{body}\\Z", re.IGNORECASE | re.DOTALL)


def _compare(actual: Any, op: str, value: Any) -> bool:
    if actual is None or isinstance(actual, bool) != isinstance(value, bool):
        return False
    try:
        return COMPARE[op](actual, value)
    except TypeError:
        return False


def holds(record: Mapping[str, Any], condition: Condition) -> bool:
    """Whether a record in memory meets the condition, as the stores' SQL answers it."""
    match condition:
        case Is(prop, op, value):
            return _compare(record.get(prop), op, value)
        case Null(prop, present):
            return (record.get(prop) is None) != present
        case In(prop, values):
            return any(_compare(record.get(prop), "=", v) for v in values)
        case Like(prop, pattern, negate):
            actual = record.get(prop)
            return actual is not None and (_pattern(pattern).match(str(actual)) is None) == negate
        case All(parts):
            return all(holds(record, part) for part in parts)
        case AnyOf(parts):
            return any(holds(record, part) for part in parts)
        case Number(props, number):
            return any(str(record.get(p)).lstrip("+") == number for p in props if record.get(p) is not None)
        case Holds(prop, values, member):
            items = record.get(prop)
            return isinstance(items, list) and any((i.get(member) if member and isinstance(i, dict) else i) in values
                                                   for i in items)  # fmt: skip
    raise TypeError(f"{type(condition).__name__} narrows by other documents: SQL only")


def ordered(records: Iterable[dict[str, Any]], sort: str | None, descending: bool) -> list[dict[str, Any]]:
    """Records in a list's order: by `sort` (nulls first) then id, or by id; reversed when `descending`."""

    def key(record: dict[str, Any]) -> Any:
        if not sort:
            return record.get("id") or 0
        value = record.get(sort)
        return value is not None, 0 if value is None else value, record.get("id") or 0

    return sorted(records, key=key, reverse=descending)
