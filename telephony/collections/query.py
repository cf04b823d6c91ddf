"""List requests: `page`, `limit`, `filter`, `sort`/`dir`, `group_by` into one parameterised query.

Pages count from 1; a missing `limit` serves `[api] default_page_size` records, a `limit` above
`[api] max_page_size` (5000) is served as that maximum. Order is always fixed, ties broken by id,
so a page walk returns every row exactly once. `total` counts every match, whatever the page.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..documents import json_path
from ..documents.reader import Reader
from ..domain.errors import Invalid
from . import filters
from .fields import Kind


@dataclass(frozen=True)
class ListQuery:
    page: int
    limit: int
    where: filters.Where
    sort: str | None
    descending: bool
    group_by: str | None

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.limit


def _positive(query: Mapping[str, str], name: str, default: int) -> int:
    raw = query.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise Invalid.field(name, f"'{name}' must be a positive integer") from None
    if value < 1:
        raise Invalid.field(name, f"'{name}' must be a positive integer")
    return value


def parse(
    query: Mapping[str, str],
    props: Mapping[str, Kind],
    *,
    default_limit: int,
    max_limit: int,
    extra: list[tuple[str, str, Any]] = (),  # type: ignore[assignment]
) -> ListQuery:
    """Read a list request's parameters; anything unknown or malformed is a 400 naming it."""
    page = _positive(query, "page", 1)
    limit = min(_positive(query, "limit", default_limit), max_limit)
    conditions = [*extra, *filters.parse(query.get("filter"), props)]
    sort, descending = query.get("sort") or None, (query.get("dir") or "ASC").upper() == "DESC"
    if (query.get("dir") or "ASC").upper() not in ("ASC", "DESC"):
        raise Invalid.field("dir", "'dir' must be ASC or DESC")
    if sort and sort.startswith("-"):
        sort, descending = sort[1:], True
    if sort and sort not in props:
        raise Invalid.field("sort", f"Unknown property '{sort}'")
    group_by = query.get("group_by") or None
    if group_by and group_by not in props:
        raise Invalid.field("group_by", f"Unknown property '{group_by}'")
    if page * limit > 2**62:
        raise Invalid.field("page", "'page' is too large")
    return ListQuery(page, limit, filters.to_sql(conditions, props), sort, descending, group_by)


async def fetch(
    reader: Reader,
    table: str,
    scope: tuple[str, tuple[Any, ...]],
    q: ListQuery,
    *,
    counts: tuple[str, int] | None = None,
) -> tuple[list[str], int]:
    """The page's JSON bodies and the total count of matches within `scope` (SQL, params).

    One statement does both: the page is chosen on ids alone (a deferred join, so skipped rows
    are never read) and the total is a scalar subquery, from `counts` (table, customer) when the
    list is unfiltered. A second query runs only for a page past the end.
    """
    direction = "DESC" if q.descending else "ASC"
    order = f"{json_path(q.sort)} {direction}, id {direction}" if q.sort else f"id {direction}"
    base = f'FROM "{table}" WHERE {scope[0]} AND ({q.where.sql})'
    params = (*scope[1], *q.where.params)
    total_params: tuple[Any, ...]
    if q.group_by:
        grouped = f"{base} GROUP BY {json_path(q.group_by)}"
        total_sql, total_params = f"SELECT count(*) FROM (SELECT 1 {grouped})", tuple(params)
        sql = f"SELECT ({total_sql}), body, min(id) AS id {grouped} ORDER BY {order} LIMIT ? OFFSET ?"
    else:
        if counts is not None and q.where.sql == "1":
            total_sql = f'SELECT coalesce((SELECT n FROM "{counts[0]}" WHERE customer_id = ?), 0)'
            total_params = (counts[1],)
        else:
            total_sql, total_params = f"SELECT count(*) {base}", params
        page = f"SELECT id {base} ORDER BY {order} LIMIT ? OFFSET ?"
        sql = f'SELECT ({total_sql}), body FROM "{table}" WHERE id IN ({page}) ORDER BY {order}'
    rows = await reader.execute_fetchall(sql, (*total_params, *params, q.limit, q.offset))
    if rows:
        return [row[1] for row in rows], next(iter(rows))[0]
    total = await reader.execute_fetchall(total_sql, total_params)
    return [], next(iter(total))[0]


def envelope(bodies: list[str], total: int) -> bytes:
    """`{data: [...], total}` built from stored JSON without decoding it."""
    return b'{"data":[' + ",".join(bodies).encode() + b'],"total":' + str(total).encode() + b"}"
