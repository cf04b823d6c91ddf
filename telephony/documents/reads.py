"""Reads of document tables, named by resource kind: the only place other packages get documents from.
The async reads serve GET handlers on the `Reader`; the sync ones take the writer's connection, so a
decision sees the state inside its own transaction."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from typing import Any

import msgspec

from .connections import Reader
from .names import prop_sql, source, sources_of, table_of

MAX_ID = 2**63 - 1


def storable(ids: list[Any]) -> list[Any]:
    """The ids that could exist: an integer beyond 64 bits names nothing (and SQLite cannot bind it)."""
    return [i for i in ids if not isinstance(i, int) or -MAX_ID <= i <= MAX_ID]


def _among(kind: str, selected: str, ids: list[Any], customer_id: int) -> tuple[str, tuple[Any, ...]]:
    """The query of `selected` of a customer's documents of `kind` among `ids` (none when none could exist)."""
    ids = storable(ids)
    where = f"customer_id = ? AND id IN ({','.join('?' * len(ids))})" if ids else "FALSE"
    return f'SELECT {selected} FROM "{table_of(kind)}" WHERE {where}', (customer_id, *ids) if ids else ()


def _decoded(rows: Iterable[tuple[str]]) -> list[dict]:
    return [msgspec.json.decode(body) for (body,) in rows]


async def body(reader: Reader, kind: str, id_: Any, customer_id: int) -> str | None:
    """The JSON body of a document of `kind`, only if it belongs to `customer_id`."""
    rows = await reader.execute_fetchall(*_among(kind, "body", [id_], customer_id))
    return rows[0][0] if rows else None


async def bodies(reader: Reader, kind: str, ids: list[Any], customer_id: int) -> dict[Any, str]:
    """The JSON bodies of those of `ids` that are documents of `kind` of `customer_id`, by id."""
    return dict(await reader.execute_fetchall(*_among(kind, "id, body", ids, customer_id)))


async def any_of(reader: Reader, kind: str) -> bool:
    """Whether any customer has a document of `kind`."""
    return bool(await reader.execute_fetchall(f'SELECT 1 FROM "{table_of(kind)}" LIMIT 1'))


async def owned_by(reader: Reader, kind: str, id_: Any) -> tuple[int, str] | None:
    """(customer id, JSON body) of the document of `kind` with this id, whoever owns it (operator reads)."""
    rows = await reader.execute_fetchall(f'SELECT customer_id, body FROM "{table_of(kind)}" WHERE id = ?', (id_,))
    return (rows[0][0], rows[0][1]) if rows else None


async def bodies_by(reader: Reader, kind: str, prop: str, values: Iterable[Any], customer_id: int) -> dict[Any, str]:
    """The JSON bodies of a customer's documents of `kind` whose `prop` is one of `values`, by that value."""
    values = list(values)
    column, marks = prop_sql(prop), ",".join("?" * len(values))
    sql = f'SELECT {column}, body FROM "{table_of(kind)}" WHERE customer_id = ? AND {column} IN ({marks})'
    async with reader.execute(sql, (customer_id, *values)) as cursor:
        return {row[0]: row[1] for row in await cursor.fetchall()}


async def first_with_number(reader: Reader, kind: str, customer_id: int, props: Iterable[str], number: str
                            ) -> str | None:  # fmt: skip
    """The JSON body of a customer's first document of `kind` with `number` ('+' aside) in one of `props`."""
    props = list(props)
    among = " OR ".join(f"ltrim({prop_sql(prop)}, '+') = ?" for prop in props)
    sql = f'SELECT body FROM "{table_of(kind)}" WHERE customer_id = ? AND ({among}) ORDER BY id LIMIT 1'
    rows = await reader.execute_fetchall(sql, (customer_id, *[number.lstrip("+")] * len(props)))
    return rows[0][0] if rows else None


async def each_with(reader: Reader, kind: str, customer_id: int, prop: str, value: Any) -> AsyncIterator[str]:
    """Every JSON body of a customer's documents of `kind` whose `prop` equals `value`, by id, streamed."""
    sql = f'SELECT body FROM "{table_of(kind)}" WHERE customer_id = ? AND {prop_sql(prop)} = ? ORDER BY id'
    async with reader.execute(sql, (customer_id, value)) as cursor:
        async for (found,) in cursor:
            yield found


def owned(conn: sqlite3.Connection, kind: str, ids: list[Any], customer_id: int) -> set[Any]:
    """Those of `ids` that are documents of `kind` of `customer_id`."""
    return {row[0] for row in conn.execute(*_among(kind, "id", ids, customer_id))}


def exists(conn: sqlite3.Connection, kind: str, id_: Any) -> bool:
    """Whether a document of `kind` has this id, whichever customer it belongs to."""
    return conn.execute(f'SELECT 1 FROM "{table_of(kind)}" WHERE id = ?', (id_,)).fetchone() is not None


def every(conn: sqlite3.Connection, kind: str) -> Iterator[tuple[int, str]]:
    """(customer id, JSON body) of every document of `kind`, by id."""
    yield from conn.execute(f'SELECT customer_id, body FROM "{table_of(kind)}" ORDER BY id')


def in_order_drawn(conn: sqlite3.Connection, derived: str, kinds: Sequence[str]) -> Iterator[tuple[str, int, str]]:
    """(kind, customer id, JSON body) of every document of `kinds`, in the order the `derived` kind drew
    its documents from them (`documents.derived`); those it drew none from last, by kind and id."""
    parts = " UNION ALL ".join(
        f"SELECT ? AS kind, d.id AS id, d.customer_id AS customer_id, d.body AS body, s.id AS drawn "
        f'FROM "{table_of(kind)}" d LEFT JOIN "{sources_of(derived)}" s ON s.source = ? || d.id'
        for kind in kinds
    )
    params = [value for kind in kinds for value in (kind, source(kind, ""))]
    sql = f"SELECT kind, customer_id, body FROM ({parts}) AS u ORDER BY drawn IS NULL, drawn, kind, id"
    yield from conn.execute(sql, params)


def documents(conn: sqlite3.Connection, kind: str, ids: list[Any], customer_id: int) -> dict[Any, dict]:
    """The documents of `kind` of `customer_id` among `ids`, decoded, by id (inside a transaction)."""
    return {id_: msgspec.json.decode(body) for id_, body in conn.execute(*_among(kind, "id, body", ids, customer_id))}


def ids_of(conn: sqlite3.Connection, kind: str, customer_id: int) -> list[Any]:
    """Every id of a customer's documents of `kind`."""
    return [row[0] for row in conn.execute(f'SELECT id FROM "{table_of(kind)}" WHERE customer_id = ?', (customer_id,))]


def holding(conn: sqlite3.Connection, kind: str, customer_id: int, among: Mapping[str, Iterable[Any]]) -> list[dict]:
    """A customer's documents of `kind` whose every property of `among` has one of its values."""
    conditions, params = [], [customer_id]
    for prop, values in among.items():
        values = list(values)
        conditions.append(f"{prop_sql(prop)} IN ({','.join('?' * len(values))})")
        params.extend(values)
    sql = f'SELECT body FROM "{table_of(kind)}" WHERE customer_id = ? AND {" AND ".join(conditions)}'
    return _decoded(conn.execute(sql, params))


def every_document(conn: sqlite3.Connection, kind: str, customer_id: int) -> list[dict]:
    """Every document of `kind` of a customer, by id (small configuration tables)."""
    sql = f'SELECT body FROM "{table_of(kind)}" WHERE customer_id = ? ORDER BY id'
    return _decoded(conn.execute(sql, (customer_id,)))


def having(conn: sqlite3.Connection, kind: str, customer_id: int, prop: str, value: Any) -> list[dict]:
    """A customer's documents of `kind` whose `prop` equals `value`, by id."""
    sql = f'SELECT body FROM "{table_of(kind)}" WHERE customer_id = ? AND {prop_sql(prop)} = ? ORDER BY id'
    return _decoded(conn.execute(sql, (customer_id, value)))


def between(conn: sqlite3.Connection, kind: str, customer_id: int, prop: str, low: Any, high: Any) -> list[dict]:
    """A customer's documents of `kind` whose `prop` is from `low` to before `high`, by id."""
    path = prop_sql(prop)
    sql = f'SELECT body FROM "{table_of(kind)}" WHERE customer_id = ? AND {path} >= ? AND {path} < ? ORDER BY id'
    return _decoded(conn.execute(sql, (customer_id, low, high)))


def listing_any(conn: sqlite3.Connection, kind: str, customer_id: int, prop: str, values: Iterable[Any],
                member: str | None = None) -> list[dict]:  # fmt: skip
    """A customer's documents of `kind` whose list `prop` holds one of `values` (as an item, or under the
    key `member` of an object item)."""
    values = list(values)
    marks = ",".join("?" * len(values))
    item = f"CASE WHEN type = 'object' THEN json_extract(value, '$.{member}') ELSE value END" if member else "value"
    sql = (f'SELECT body FROM "{table_of(kind)}" WHERE customer_id = ? AND EXISTS '
           f"(SELECT 1 FROM json_each(body, '$.{prop}') WHERE {item} IN ({marks}))")  # fmt: skip
    return _decoded(conn.execute(sql, (customer_id, *values)))
