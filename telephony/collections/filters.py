"""`filter=[{property, operator, value}, ...]`: every operator of version 1.2 and its aliases, ANDed,
checked against a resource's properties (`properties`) and made a condition (`documents.conditions`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from enum import Enum
from typing import Any

import msgspec
from msgspec import inspect as mi

from ..documents.conditions import FALSE, TRUE, AnyOf, Condition, In, Is, Like, Null, both, holds, substring
from ..domain.errors import Invalid
from ..domain.validation import problem


class Kind(Enum):
    """How a property compares, read off its msgspec type (`properties`)."""

    INT = "integer"
    FLOAT = "number"
    BOOL = "boolean"
    TEXT = "string"
    TIME = "time"
    ARRAY = "array"
    OBJECT = "object"


KINDS = ((mi.BoolType, Kind.BOOL), (mi.IntType, Kind.INT), (mi.FloatType, Kind.FLOAT),
         (mi.ListType | mi.TupleType | mi.VarTupleType | mi.SetType, Kind.ARRAY),
         (mi.StructType | mi.DictType | mi.TypedDictType | mi.DataclassType, Kind.OBJECT))  # fmt: skip
TIME_NAMES = ("_at", "date", "timestamp", "origtime")
"""Text properties holding a time. Not every `*_time` is one: a user's `ring_time` is seconds."""
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
    Kind.TIME: "a time, YYYY-MM-DD HH:MM:SS, or a date, YYYY-MM-DD",
    Kind.ARRAY: "null (a list compares with null only)", Kind.OBJECT: "null (an object compares with null only)",
}  # fmt: skip
SQL_INTEGERS = range(-(2**63), 2**63)
PLAIN_TIME = re.compile(r"[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}(?:[ T](?:[01][0-9]|2[0-3]):[0-9]{2}:[0-9]{2})?")
"""A date (from year 1000), or a time with a space or a `T`, in digits of exactly their width (hours
to 23: newer Pythons' `fromisoformat` reads 24:00:00 as the next midnight, `strptime` refuses it)."""


def properties(struct: type[msgspec.Struct]) -> dict[str, Kind]:
    """Every wire property of `struct` with its comparison kind."""
    info = mi.type_info(struct)
    assert isinstance(info, mi.StructType)
    return {field.encode_name: _kind_of(field.encode_name, field.type) for field in info.fields}


def _kind_of(name: str, info: mi.Type) -> Kind:
    if isinstance(info, mi.Metadata):
        return _kind_of(name, info.type)
    if isinstance(info, mi.UnionType):
        kinds = {_kind_of(name, t) for t in info.types if not isinstance(t, mi.NoneType)}
        return kinds.pop() if len(kinds) == 1 else Kind.TEXT
    if isinstance(info, mi.StrType):
        return Kind.TIME if name.endswith(TIME_NAMES) else Kind.TEXT
    return next((kind for types, kind in KINDS if isinstance(info, types)), Kind.TEXT)


class Written(msgspec.Struct, forbid_unknown_fields=False):
    """A condition as a request writes it."""

    property: str
    operator: Any = None
    value: Any = None


def parse(raw: str | None, props: Mapping[str, Kind]) -> Condition:
    """The AND of a `filter` parameter's conditions, each checked against `props`."""
    if raw is None or not raw.strip():
        return TRUE
    if len(raw) > MAX_FILTER_BYTES:
        raise Invalid.field("filter", "The filter is too long")
    try:
        conditions = msgspec.json.decode(raw, type=list[Written])
    except msgspec.ValidationError as exc:
        field, problem_ = problem(exc, list[Written])
        raise Invalid.field("filter", f"Malformed filter: {f'{field}: ' if field else ''}{problem_} {SHAPE}") from None
    except msgspec.DecodeError as exc:
        raise Invalid.field("filter", f"Malformed filter: {str(exc).replace('`', '')} {SHAPE}") from None
    except RecursionError:
        raise Invalid.field("filter", "Malformed filter: it is nested too deeply") from None
    if len(conditions) > MAX_CONDITIONS:
        raise Invalid.field("filter", f"At most {MAX_CONDITIONS} conditions are allowed")
    return both(*(_check(c, props) for c in conditions))


def _check(condition: Written, props: Mapping[str, Kind]) -> Condition:
    prop, value = condition.property, condition.value
    if prop not in props:
        raise Invalid.field("filter", f"Unknown property '{prop}'")
    if condition.operator is None:
        raise Invalid.field("filter", f"The condition on '{prop}' has no operator (eq, ne, lt, lte, gt, gte, in, like "
                                      "or notlike)")  # fmt: skip
    operator = OPERATORS.get(str(condition.operator).lower())
    if operator is None:
        raise Invalid.field("filter", f"Unknown operator '{condition.operator}'")
    kind, named = props[prop], f"Operator '{condition.operator}' on '{prop}'"
    if operator == "in":
        if not isinstance(value, list):
            raise Invalid.field("filter", f"{named} needs an array value")
        if len(value) > MAX_IN_VALUES:
            raise Invalid.field("filter", f"Operator 'in' takes at most {MAX_IN_VALUES} values")
        return _among(prop, kind, [_typed(prop, kind, v) for v in value])
    if operator in ("like", "notlike"):
        if kind in (Kind.ARRAY, Kind.OBJECT):
            raise Invalid.field("filter", f"{named} needs a text or number property, not "
                                          f"{'a list' if kind is Kind.ARRAY else 'an object'}")  # fmt: skip
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise Invalid.field("filter", f"{named} needs a text value")
        return _like(prop, kind, substring(str(value)), operator == "notlike")
    return _compared(prop, operator, _typed(prop, kind, value), kind)


def _typed(prop: str, kind: Kind, value: Any) -> Any:
    """A filter value read as the property's type ("10" equals 10 on a number), or a 400 naming the
    property. A list or an object property compares with null only (its text would be each store's own)."""
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
        if kind in (Kind.ARRAY, Kind.OBJECT) or isinstance(value, list | dict):
            raise ValueError
        return str(value)
    except (ValueError, TypeError, OverflowError):
        raise Invalid.field(
            "filter", f"Value {value!r} is not a valid {kind.value} for '{prop}': expected {FORMS[kind]}"
        ) from None


def _time(value: Any) -> str:
    """A time or a bare date, as text in the one form stored (a bare date's meaning depends on the operator)."""
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


def _compared(prop: str, operator: str, value: Any, kind: Kind) -> Condition:
    if value is None:
        return Null(prop, present=operator == "!=")
    if kind is Kind.TIME and len(value) == 10:
        return _bare_date(prop, operator, value)
    return Is(prop, operator, value)


def _among(prop: str, kind: Kind, values: list[Any]) -> Condition:
    """`in`: any of the values (a null is none); on a time property a bare date is its whole day, as with `eq`."""
    days = [v for v in values if kind is Kind.TIME and isinstance(v, str) and len(v) == 10]
    others = tuple(dict.fromkeys(v for v in values if v is not None and v not in days))
    found = [In(prop, others)] if others else []
    return AnyOf((*found, *(_bare_date(prop, "=", day) for day in dict.fromkeys(days))))


def _like(prop: str, kind: Kind, pattern: str, negate: bool) -> Condition:
    """`like`/`notlike`, in any case: a boolean is matched as its digit (1 or 0), as it is kept."""
    if kind is not Kind.BOOL:
        return Like(prop, pattern, negate)
    matched = [flag for flag in (True, False) if holds({"v": int(flag)}, Like("v", pattern)) != negate]
    return In(prop, tuple(matched)) if matched else FALSE


def _bare_date(prop: str, operator: str, day: str) -> Condition:
    """`lte` a date covers that whole day; `lt`, `gt`, `gte` mean its first second; `eq` is the day. A
    stored bare date (`start_at`) is its own first second: as text it sorts before `<day> 00:00:00`,
    so the lower bounds are the bare day itself wherever that gives the same answer."""
    last = f"{day} 23:59:59"
    if operator == "=":
        return both(Is(prop, ">=", day), Is(prop, "<=", last))
    if operator == "!=":
        return AnyOf((Is(prop, "<", day), Is(prop, ">", last)))
    return Is(prop, operator, {"<=": last, ">": f"{day} 00:00:00"}.get(operator, day))
