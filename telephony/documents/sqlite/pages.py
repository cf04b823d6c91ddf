"""A page of a list and its total on SQLite, in one statement.

Its ids are chosen from an index where one orders the list (skipped rows are never read), its bodies
joined by SQLite in that order; the total is what is known already, or the kept count of an
unfiltered list, or counted only when the page is full (a shorter page that holds a row, or starts
the list, ends it: its total is its offset plus its rows). A list by id whose conditions hold a
`like` of a searched property is driven by that property's FTS5 index (`search`)."""

from __future__ import annotations

from typing import Any

from ..conditions import TRUE, All, Condition, Like, both
from ..listing import Listed, Page
from ..names import Table
from . import search
from .sql import SQL


def indexed_like(q_where: Condition, listed: Listed) -> tuple[search.Match | None, Condition]:
    """The first `like` of the query that a search index answers, and the other conditions."""
    parts = q_where.parts if isinstance(q_where, All) else (q_where,)
    for n, part in enumerate(parts):
        if not isinstance(part, Like) or part.negate or part.prop not in listed.searched:
            continue
        if (found := search.match(listed.table.name, part.prop, part.pattern)) is not None:
            return found, both(*parts[:n], *parts[n + 1 :]) if len(parts) > 1 else TRUE
    return None, q_where


def statement(listed: Listed) -> tuple[str, tuple[Any, ...]]:
    """The page's statement and its parameters: (total, joined bodies, rows, parent there, last key...)."""
    table, q, (total, after) = listed.table, listed.q, listed.known
    direction, sort, name = "DESC" if q.descending else "ASC", q.order, f'"{table.name}"'
    match, others = indexed_like(q.where, listed)
    scope_sql, scope_params = SQL.where(both(listed.scope, *([listed.parent] if listed.parent else ())), table)
    others_sql, others_params = SQL.where(others, table)
    if match is not None:
        others_sql, others_params = f"{match.condition} AND {others_sql}", [match.phrase, *others_params]
    order = f"{SQL.expression(sort, table)} {direction}, id {direction}" if sort else f"id {direction}"
    base = f"FROM {name} WHERE {scope_sql} AND {others_sql}"
    params: tuple[Any, ...] = (*scope_params, *others_params)
    total_sql, total_params, skip = f"SELECT count(*) {base}", params, q.offset
    chosen = f"SELECT id {base} ORDER BY {order} LIMIT ? OFFSET ?"
    key = (("id",) if sort is None else (SQL.expression(sort, table), "id")) if q.keyed and match is None else ()
    if key and after is not None:  # placed first: the index range starts there
        chosen = (f"SELECT id FROM {name} WHERE {scope_sql} AND ({', '.join(key)}) {'<' if q.descending else '>'} "
                  f"({', '.join('?' * len(after))}) AND {others_sql} ORDER BY {order} LIMIT ? OFFSET ?")  # fmt: skip
        params, skip = (*scope_params, *after, *others_params), 0  # the key as SQLite gave it
    if q.group_by:  # a group is shown by its first document, and sorted by its values
        grouped = f"{base} GROUP BY {SQL.expression(q.group_by, table)}"
        total_sql = f"SELECT count(*) FROM (SELECT 1 {grouped}) AS g"
        chosen = (f"SELECT id FROM (SELECT min(id) AS id {grouped}) AS g JOIN {name} USING (id) "
                  f"ORDER BY {order} LIMIT ? OFFSET ?")  # fmt: skip
    elif match is not None and sort is None:
        total_sql, total_params, chosen, params = _by_index(
            table, scope_sql, scope_params, match, others, listed, direction
        )
    elif listed.counted is not None and q.where == TRUE:
        total_sql, total_params = (
            f'SELECT coalesce((SELECT n FROM "{table.counts}" WHERE customer_id = ?), 0)',
            (listed.counted,),
        )
    if total is not None:
        total_sql, total_params = "SELECT ?", (total,)
    present, present_params = SQL.where(listed.parent, table) if listed.parent is not None else ("1", [])
    ended = "(SELECT id FROM page LIMIT 1 OFFSET (SELECT count(*) - 1 FROM page))"
    keyed = ", ".join(f"(SELECT {column} FROM {name} WHERE id = {ended})" for column in key) or "NULL"
    sql = (f"WITH page AS MATERIALIZED ({chosen}), shown AS (SELECT count(*) AS n FROM page) SELECT CASE WHEN n < ? "
           f"AND (n > 0 OR ? = 0) THEN ? + n ELSE ({total_sql}) END, (SELECT CAST(group_concat(body, ',') AS BLOB) "
           f"FROM page CROSS JOIN {name} USING (id)), n, {present}, {keyed} FROM shown")  # fmt: skip
    return sql, (*params, q.limit, skip, q.limit, q.offset, q.offset, *total_params, *present_params)


def _by_index(table: Table, scope_sql: str, scope_params: list[Any], match: search.Match, others: Condition,
              listed: Listed, direction: str) -> tuple[str, tuple[Any, ...], str, tuple[Any, ...]]:  # fmt: skip
    """(total SQL, its params, page-of-ids SQL, its params before LIMIT and OFFSET) of a list by id driven by
    a search table: its matches read in id order and each looked up until the page is full. When the
    customer owns every document of the table and nothing else narrows the list, the total is the
    count of matches alone, read from the index without looking any document up."""
    fts, name = f'"{match.table}"', f'"{table.name}"'
    others_sql, others_params = SQL.where(others, table)
    joined = (
        f"FROM {fts} CROSS JOIN {name} ON {name}.id = {fts}.rowid WHERE {fts} MATCH ? AND {scope_sql} AND {others_sql}"
    )
    params = (match.phrase, *scope_params, *others_params)
    total_sql, total_params = f"SELECT count(*) {joined}", params
    if listed.counted is not None and others == TRUE:
        counts = f'"{table.counts}"'
        sole = f"(SELECT n FROM {counts} WHERE customer_id = ?) = (SELECT sum(n) FROM {counts})"
        matches = f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ?"
        total_sql = f"SELECT CASE WHEN {sole} THEN ({matches}) ELSE ({total_sql}) END"
        total_params = (listed.counted, match.phrase, *params)
    chosen = f"SELECT {name}.id {joined} ORDER BY {fts}.rowid {direction} LIMIT ? OFFSET ?"
    return total_sql, total_params, chosen, params


def page_of(row: tuple[Any, ...], listed: Listed) -> Page | None:
    """The page a statement's row tells (None: the parent is not there)."""
    total, found, size, there, *last = row
    return (
        Page(found or b"", total, size, tuple(last) if listed.q.keyed and None not in last else None) if there else None
    )
