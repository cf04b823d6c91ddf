"""One page of a list and its total, read in one parameterised statement.

The list engine (`collections/`) checks a request into a `Query`; this runs it against the rows of
a resource kind, or of a table (or view) its projection module owns, with an `id`, a `customer_id`
and a JSON `body`. The conditions that narrow a list by other documents are made here too."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import msgspec

from .connections import Reader
from .names import counts_of, prop_sql, table_of
from .search import Match

Scope = tuple[str, tuple[Any, ...]]
"""The rows a list may show: an SQL condition and its parameters."""


class Page(NamedTuple):
    """A page of a list: its rows' JSON bodies joined by commas, the total of matches, how many rows it
    holds, and the key of its last row where the next page can start from it (id, or sort value and
    id: `page`'s `after`)."""

    joined: bytes
    total: int
    size: int
    last: Any

    def documents(self) -> list[Any]:
        return msgspec.json.decode(b"[" + self.joined + b"]")


class Where(msgspec.Struct, frozen=True):
    """The AND of a list's conditions in SQL, with its bound parameters (`collections.filters`)."""

    sql: str
    params: tuple[Any, ...]
    match: Match | None = None
    """The first condition the search index answers, when there is one: a list can be driven by it."""
    others: Scope = ("TRUE", ())
    """The AND of the conditions other than `match` (SQL, params)."""


class Query(msgspec.Struct, frozen=True):
    """A checked list request (`collections.parse`): conditions, order, grouping and page."""

    page: int
    limit: int
    where: Where
    sort: str | None
    descending: bool
    group_by: str | None

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.limit


async def page(reader: Reader, kind: str, scope: Scope, q: Query, *, counted: int | None = None,
               total: int | None = None, after: Any = None) -> Page:  # fmt: skip
    """A page of documents of `kind` within `scope`: an unfiltered total is the kept count of customer
    `counted` when given (`scope` is then exactly that customer's rows). What is known already is not
    read again: the `total`, and the key of the row just `after` which the page starts (`Page.last`)."""
    counts = (counts_of(kind), counted) if counted is not None else None
    found = await _page(reader, table_of(kind), scope, q, counts, None, (total, after))
    assert found is not None
    return found


async def page_of(reader: Reader, table: str, scope: Scope, q: Query) -> Page:
    """A page of the rows of a table or view that is not a kind's (no property columns) within `scope`."""
    found = await _page(reader, table, scope, q, None, None, (None, None), False)
    assert found is not None
    return found


async def page_under(reader: Reader, kind: str, scope: Scope, q: Query, parent: Scope) -> Page | None:
    """A page of documents of `kind` within `scope` under a parent record (a condition from `one_of`),
    read together with the parent: None when the parent is not there."""
    return await _page(reader, table_of(kind), scope, q, None, parent, (None, None))


def owned_having(customer_id: int, **props: Any) -> Scope:
    """A customer's documents whose properties have these values."""
    conditions = ["customer_id = ?", *(f"{prop_sql(prop)} = ?" for prop in props)]
    return " AND ".join(conditions), (customer_id, *props.values())


def one_of(kind: str, key: str, value: Any, customer_id: int) -> Scope:
    """The condition that a document of `kind` whose `key` is `value` belongs to `customer_id`: a
    nested list's parent."""
    column = "id" if key == "id" else prop_sql(key)
    sql = f'EXISTS (SELECT 1 FROM "{table_of(kind)}" WHERE {column} = ? AND customer_id = ?)'
    return sql, (value, customer_id)


async def _page(reader: Reader, table: str, scope: Scope, q: Query, counts: tuple[str, int] | None,
                parent: Scope | None, known: tuple[int | None, Any], columns: bool = True) -> Page | None:  # fmt: skip
    """A page within `scope`, in one statement: its ids are chosen from an index where one orders the
    list (skipped rows are never read), its bodies joined by SQLite in that order; the total is what
    is `known` (total, start: `page`), or the kept count of an unfiltered list (`counts`: table,
    customer), or counted only when the page is full (a shorter page that holds a row, or starts the
    list, ends it: its total is its offset plus its rows). Under a `parent`, its condition narrows
    the rows and says whether it is there, at the same moment (None: it is not)."""
    if parent is not None:
        scope = (f"{scope[0]} AND {parent[0]}", (*scope[1], *parent[1]))
    direction, (joined, numbered, ended, cast, mark) = "DESC" if q.descending else "ASC", reader.page_sql
    sort = None if q.sort == "id" else q.sort  # a row's `id` is its body's: the key's order is the same
    nulls = f"NULLS {'LAST' if q.descending else 'FIRST'}"  # SQLite's order of nulls, said for PostgreSQL
    order = f"{prop_sql(sort, columns)} {direction} {nulls}, %s {direction}" if sort else f"%s {direction}"
    base = f'FROM "{table}" WHERE {scope[0]} AND ({q.where.sql})'
    params = (*scope[1], *q.where.params)
    total_sql, total_params = f"SELECT count(*) {base}", params
    by_id, (counted, after), skip = order % "id", known, q.offset
    chosen = f"SELECT id {base} ORDER BY {by_id} LIMIT ? OFFSET ?"
    key: tuple[str, ...] = ()  # a row's place, in a list whose next page starts where a page ends
    if not q.group_by and q.where.match is None and not (sort and q.descending):
        key = ("id",) if sort is None else (prop_sql(sort, columns), "id")
    if key and after is not None:  # placed first: the index range starts there
        chosen = (f'SELECT id FROM "{table}" WHERE {scope[0]} AND ({", ".join(key)}) {"<" if q.descending else ">"} '
                  f"({mark * (len(after) - 1)}?) AND ({q.where.sql}) ORDER BY {by_id} LIMIT ? OFFSET ?")  # fmt: skip
        params, skip = (*scope[1], *after, *q.where.params), 0
    if q.group_by:  # a group is shown by its first document, and sorted by its values
        grouped = f"{base} GROUP BY {prop_sql(q.group_by, columns)}"
        total_sql = f"SELECT count(*) FROM (SELECT 1 {grouped}) AS g"
        chosen = (f'SELECT id FROM (SELECT min(id) AS id {grouped}) AS g JOIN "{table}" USING (id) '
                  f"ORDER BY {by_id} LIMIT ? OFFSET ?")  # fmt: skip
    elif (match := q.where.match) is not None and sort is None:
        total_sql, total_params, chosen, params = _searched(table, scope, match, q.where.others, counts, direction)
    elif counts is not None and q.where.sql == "TRUE":
        total_sql, total_params = f'SELECT coalesce((SELECT n FROM "{counts[0]}" WHERE customer_id = ?), 0)', counts[1:]
    if counted is not None:
        total_sql, total_params = "SELECT ?", (counted,)
    present = f"({parent[0]})" if parent is not None else "1"
    keyed = ", ".join(f'(SELECT {column}{cast * (column != "id")} FROM "{table}" WHERE id = {ended})' for column in key)
    joined, chosen = joined.replace("<table>", table), numbered.replace("<ids>", chosen)
    sql = (f"WITH page AS MATERIALIZED ({chosen}), shown AS (SELECT count(*) AS n FROM page) SELECT CASE WHEN n < ? "
           f"AND (n > 0 OR ? = 0) THEN ? + n ELSE ({total_sql}) END, ({joined}), n, {present}, {keyed or 'NULL'} "
           "FROM shown")  # fmt: skip
    bound = (*params, q.limit, skip, q.limit, q.offset, q.offset, *total_params, *(parent[1] if parent else ()))
    total, found, size, there, *last = (await reader.execute_fetchall(sql, bound))[0]
    return Page(found or b"", total, size, tuple(last) if key and None not in last else None) if there else None


def _searched(table: str, scope: Scope, match: Match, others: Scope, counts: tuple[str, int] | None, direction: str
              ) -> tuple[str, tuple[Any, ...], str, tuple[Any, ...]]:  # fmt: skip
    """(total SQL, its params, page-of-ids SQL, its params before LIMIT and OFFSET) of a list by id driven by
    a search table: its matches read in id order and each looked up until the page is full. When the
    customer owns every document of the table and nothing else narrows the list, the total is the
    count of matches alone, read from the index without looking any document up."""
    fts = f'"{match.table}"'
    joined = (f'FROM {fts} CROSS JOIN "{table}" ON "{table}".id = {fts}.rowid '
              f"WHERE {fts} MATCH ? AND {scope[0]} AND ({others[0]})")  # fmt: skip
    params = (match.phrase, *scope[1], *others[1])
    total_sql, total_params = f"SELECT count(*) {joined}", params
    if counts is not None and others[0] == "TRUE":
        sole = f'(SELECT n FROM "{counts[0]}" WHERE customer_id = ?) = (SELECT sum(n) FROM "{counts[0]}")'
        matches = f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ?"
        total_sql = f"SELECT CASE WHEN {sole} THEN ({matches}) ELSE ({total_sql}) END"
        total_params = (counts[1], match.phrase, *params)
    chosen = f'SELECT "{table}".id {joined} ORDER BY {fts}.rowid {direction} LIMIT ? OFFSET ?'
    return total_sql, total_params, chosen, params


def number_among(kind: str, prop: str, *, numbers: str, number: str, having: str) -> str:
    """A condition on documents of `kind`: their phone number `prop` ('+' aside) is the `number` of one
    of their customer's documents of kind `numbers` that has `having` set."""
    among = (
        f"SELECT ltrim({prop_sql(number)}, '+') FROM {table_of(numbers)} d "
        f"WHERE d.customer_id = {table_of(kind)}.customer_id AND {prop_sql(having)} IS NOT NULL"
    )
    return f"ltrim({prop_sql(prop)}, '+') IN ({among})"


def number_held_by(props: Sequence[str], holder: str, numbers: Sequence[str]) -> tuple[str, int]:
    """A condition: one of the documents' phone numbers `props` ('+' aside) is one of the numbers the
    document of kind `holder` whose id is bound holds in `numbers`. Returns the SQL and how many times
    the holder's id is to be bound."""
    held = " UNION ".join(f"SELECT ltrim({prop_sql(n)}, '+') FROM {table_of(holder)} WHERE id = ?" for n in numbers)
    return " OR ".join(f"ltrim({prop_sql(p)}, '+') IN ({held})" for p in props), len(props) * len(numbers)
