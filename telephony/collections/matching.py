"""The list engine's conditions and order applied to records in memory (live calls), with the same
meaning as the SQL `filters.to_sql` makes: values already read as the property's type, `like`
without a wildcard a case-insensitive substring, a bare date a whole day for `eq`/`lte`, NULLs
first in ascending order, ties broken by `id`."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any

from .fields import Kind
from .query import ListQuery

Condition = tuple[str, str, Any]
COMPARE: Mapping[str, Callable[[Any, Any], bool]] = {
    "=": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}  # fmt: skip


@cache
def _pattern(value: str) -> re.Pattern[str]:
    if "%" not in value and "_" not in value:
        value = f"%{value}%"
    body = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in value)
    return re.compile(f"^{body}$", re.IGNORECASE | re.DOTALL)


def _bounds(kind: Kind, operator: str, value: Any) -> Any:
    """A bare date as the bound the SQL engine gives it (`lte`: the day's last second)."""
    if kind is Kind.TIME and isinstance(value, str) and len(value) == 10:
        return f"{value} 23:59:59" if operator == "<=" else f"{value} 00:00:00"
    return value


def _holds(record: Mapping[str, Any], condition: Condition, kind: Kind) -> bool:
    prop, operator, value = condition
    actual = record.get(prop)
    if operator == "in":
        return any(_holds(record, (prop, "=", v), kind) for v in value)
    if operator in ("like", "notlike"):
        return actual is not None and bool(_pattern(value).match(str(actual))) == (operator == "like")
    if value is None:
        return (actual is None) == (operator == "=")
    if actual is None or isinstance(actual, bool) != isinstance(value, bool):
        return False
    if kind is Kind.TIME and isinstance(value, str) and len(value) == 10 and operator in ("=", "!="):
        inside = value <= str(actual) <= f"{value} 23:59:59"
        return inside == (operator == "=")
    try:
        return COMPARE[operator](actual, _bounds(kind, operator, value))
    except TypeError:
        return False


def select(records: Iterable[dict[str, Any]], q: ListQuery, conditions: list[Condition], props: Mapping[str, Kind]
           ) -> tuple[list[dict[str, Any]], int]:  # fmt: skip
    """The page of the records that meet every condition, in the query's order, and their count."""
    kept = [r for r in records if all(_holds(r, c, props[c[0]]) for c in conditions)]
    prop = q.sort
    if prop:
        kept.sort(key=lambda r: (r.get(prop) is not None, 0 if r.get(prop) is None else r[prop], r.get("id") or 0),
                  reverse=q.descending)  # fmt: skip
    else:
        kept.sort(key=lambda r: r.get("id") or 0, reverse=q.descending)
    return kept[q.offset : q.offset + q.limit], len(kept)
