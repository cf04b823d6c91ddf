"""A page of a list and its total on PostgreSQL, in one statement.

Its ids are chosen in the list's order (from an index of the kind where one orders it: nulls first
ascending, as lists sort them) and numbered in it; its bodies are joined by `string_agg` in that
order. The total is what is known already, or the kept count of an unfiltered list, or counted only
when the page is full (a shorter page that holds a row, or starts the list, ends it). A `like` is
answered by the documents' trigram indexes: no table of its own to drive the list."""

from __future__ import annotations

from typing import Any

from ..conditions import TRUE, both
from ..listing import Listed, Page
from .sql import SQL


def statement(listed: Listed) -> tuple[str, tuple[Any, ...]]:
    """The page's statement and its parameters: (total, joined bodies, rows, parent there, last key...)."""
    table, q, (total, after) = listed.table, listed.q, listed.known
    direction, sort, name = "DESC" if q.descending else "ASC", q.order, f'"{table.name}"'
    nulls = "LAST" if q.descending else "FIRST"
    scope_sql, scope_params = SQL.where(both(listed.scope, *([listed.parent] if listed.parent else ())), table)
    where_sql, where_params = SQL.where(q.where, table)
    order = f"{SQL.expression(sort, table)} {direction} NULLS {nulls}, id {direction}" if sort else f"id {direction}"
    base = f"FROM {name} WHERE {scope_sql} AND {where_sql}"
    params: tuple[Any, ...] = (*scope_params, *where_params)
    total_sql, total_params, skip = f"SELECT count(*) {base}", params, q.offset
    numbered = f"id, row_number() OVER (ORDER BY {order}) AS k"
    chosen = f"SELECT {numbered} {base} ORDER BY {order} LIMIT ? OFFSET ?"
    key = (("id",) if sort is None else (sort, "id")) if q.keyed else ()
    if key and after is not None:  # placed first: the index range starts there
        columns = ", ".join(SQL.expression(prop, table) for prop in key)
        chosen = (f"SELECT {numbered} FROM {name} WHERE {scope_sql} AND ({columns}) {'<' if q.descending else '>'} "
                  f"({', '.join('?' * len(after))}) AND {where_sql} ORDER BY {order} LIMIT ? OFFSET ?")  # fmt: skip
        after_params = (SQL.bound(prop, value, table) for prop, value in zip(key, after, strict=True))
        params, skip = (*scope_params, *after_params, *where_params), 0
    if q.group_by:  # a group is shown by its first document, and sorted by its values
        grouped = f"{base} GROUP BY {SQL.expression(q.group_by, table)}"
        total_sql = f"SELECT count(*) FROM (SELECT 1 {grouped}) AS g"
        chosen = (f"SELECT {numbered} FROM (SELECT min(id) AS id {grouped}) AS g JOIN {name} USING (id) "
                  f"ORDER BY {order} LIMIT ? OFFSET ?")  # fmt: skip
    elif listed.counted is not None and q.where == TRUE:
        total_sql, total_params = (
            f'SELECT coalesce((SELECT n FROM "{table.counts}" WHERE customer_id = ?), 0)',
            (listed.counted,),
        )
    if total is not None:
        total_sql, total_params = "SELECT ?::bigint", (total,)
    present, present_params = SQL.where(listed.parent, table) if listed.parent is not None else ("TRUE", [])
    ended = "(SELECT id FROM page ORDER BY k DESC LIMIT 1)"
    keyed = ", ".join(f"(SELECT {SQL.expression(prop, table)} FROM {name} WHERE id = {ended})" for prop in key)
    joined = f"SELECT convert_to(string_agg(body, ',' ORDER BY k), 'UTF8') FROM page JOIN {name} USING (id)"
    sql = (f"WITH page AS MATERIALIZED ({chosen}), shown AS (SELECT count(*) AS n FROM page) SELECT CASE WHEN n < ? "
           f"AND (n > 0 OR ? = 0) THEN ? + n ELSE ({total_sql}) END, ({joined}), n, {present}, "
           f"{keyed or 'NULL'} FROM shown")  # fmt: skip
    return sql, (*params, q.limit, skip, q.limit, q.offset, q.offset, *total_params, *present_params)


def page_of(row: tuple[Any, ...], listed: Listed) -> Page | None:
    """The page a statement's row tells (None: the parent is not there)."""
    total, found, size, there, *last = row
    return (
        Page(bytes(found or b""), total, size, tuple(last) if listed.q.keyed and None not in last else None)
        if there
        else None
    )
