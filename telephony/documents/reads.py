"""Reads of document tables by kind: the only place other packages get documents from. The async ones
serve GET handlers; the sync ones take the writer's connection, to see the state inside its transaction."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from typing import Any

import msgspec

from ..eventlog.connection import Connection
from .conditions import FALSE, Condition, Holds, In, Is, Number, both, equals
from .listing import SQL, ReadStore
from .names import documents_of, source, sources_of, table_of

MAX_ID = 2**63 - 1


def _select(dialect: str, kind: str, selected: str, condition: Condition, then: str = "") -> tuple[str, list[Any]]:
    """The query of `selected` of the documents of `kind` that meet `condition`, in the store's SQL."""
    table = documents_of(kind)
    sql, params = SQL[dialect].where(condition, table)
    return f'SELECT {selected} FROM "{table.name}" WHERE {sql}{then}', params


def _among(dialect: str, kind: str, selected: str, ids: list[Any], customer_id: int) -> tuple[str, list[Any]]:
    """The query of `selected` of a customer's documents of `kind` among `ids` (none when none could exist:
    an integer beyond 64 bits names nothing, and SQLite cannot bind it)."""
    ids = [i for i in ids if not isinstance(i, int) or -MAX_ID <= i <= MAX_ID]
    return _select(dialect, kind, selected, both(Is("customer_id", "=", customer_id), In("id", tuple(ids))) if ids
                   else FALSE)  # fmt: skip


def _decoded(rows: Iterable[tuple[str]]) -> list[dict]:
    return [msgspec.json.decode(body) for (body,) in rows]


async def body(reader: ReadStore, kind: str, id_: Any, customer_id: int) -> str | None:
    """The JSON body of a document of `kind`, only if it belongs to `customer_id`."""
    rows = await reader.execute_fetchall(*_among(reader.dialect, kind, "body", [id_], customer_id))
    return rows[0][0] if rows else None


async def bodies(reader: ReadStore, kind: str, ids: list[Any], customer_id: int) -> dict[Any, str]:
    """The JSON bodies of those of `ids` that are documents of `kind` of `customer_id`, by id."""
    return dict(await reader.execute_fetchall(*_among(reader.dialect, kind, "id, body", ids, customer_id)))


async def any_of(reader: ReadStore, kind: str) -> bool:
    """Whether any customer has a document of `kind`."""
    return bool(await reader.execute_fetchall(f'SELECT 1 FROM "{table_of(kind)}" LIMIT 1'))


async def owned_by(reader: ReadStore, kind: str, id_: Any) -> tuple[int, str] | None:
    """(customer id, JSON body) of the document of `kind` with this id, whoever owns it (operator reads)."""
    rows = await reader.execute_fetchall(f'SELECT customer_id, body FROM "{table_of(kind)}" WHERE id = ?', (id_,))
    return (rows[0][0], rows[0][1]) if rows else None


async def bodies_by(reader: ReadStore, kind: str, prop: str, values: Iterable[Any], customer_id: int) -> dict[Any, str]:
    """The JSON bodies of a customer's documents of `kind` whose `prop` is one of `values`, by that value."""
    column = SQL[reader.dialect].expression(prop, documents_of(kind))
    among = both(Is("customer_id", "=", customer_id), In(prop, tuple(values)))
    return dict(await reader.execute_fetchall(*_select(reader.dialect, kind, f"{column}, body", among)))


async def first_with_number(reader: ReadStore, kind: str, customer_id: int, props: Iterable[str], number: str
                            ) -> str | None:  # fmt: skip
    """The JSON body of a customer's first document of `kind` with `number` ('+' aside) in one of `props`."""
    held = both(Is("customer_id", "=", customer_id), Number(tuple(props), number.lstrip("+")))
    rows = await reader.execute_fetchall(*_select(reader.dialect, kind, "body", held, " ORDER BY id LIMIT 1"))
    return rows[0][0] if rows else None


async def each_with(reader: ReadStore, kind: str, customer_id: int, prop: str, value: Any) -> AsyncIterator[str]:
    """Every JSON body of a customer's documents of `kind` whose `prop` equals `value`, by id, streamed."""
    held = equals(customer_id=customer_id, **{prop: value})
    async for (found,) in reader.each(*_select(reader.dialect, kind, "body", held, " ORDER BY id")):
        yield found


def owned(conn: Connection, kind: str, ids: list[Any], customer_id: int) -> set[Any]:
    """Those of `ids` that are documents of `kind` of `customer_id`."""
    return {row[0] for row in conn.execute(*_among(conn.dialect, kind, "id", ids, customer_id))}


def exists(conn: Connection, kind: str, id_: Any) -> bool:
    """Whether a document of `kind` has this id, whichever customer it belongs to."""
    return conn.execute(f'SELECT 1 FROM "{table_of(kind)}" WHERE id = ?', (id_,)).fetchone() is not None


def every(conn: Connection, kind: str) -> Iterator[tuple[int, str]]:
    """(customer id, JSON body) of every document of `kind`, by id."""
    yield from conn.execute(f'SELECT customer_id, body FROM "{table_of(kind)}" ORDER BY id')


def in_order_drawn(conn: Connection, derived: str, kinds: Sequence[str]) -> Iterator[tuple[str, int, str]]:
    """(kind, customer id, JSON body) of every document of `kinds`, in the order the `derived` kind drew
    its documents from them (`projection.DerivedTable`); those it drew none from last, by kind and id."""
    parts = " UNION ALL ".join(
        f"SELECT ? AS kind, d.id AS id, d.customer_id AS customer_id, d.body AS body, s.id AS drawn "
        f'FROM "{table_of(kind)}" d LEFT JOIN "{sources_of(derived)}" s ON s.source = ? || d.id'
        for kind in kinds
    )
    params = [value for kind in kinds for value in (kind, source(kind, ""))]
    sql = f"SELECT kind, customer_id, body FROM ({parts}) AS u ORDER BY drawn IS NULL, drawn, kind, id"
    yield from conn.execute(sql, params)


def documents(conn: Connection, kind: str, ids: list[Any], customer_id: int) -> dict[Any, dict]:
    """The documents of `kind` of `customer_id` among `ids`, decoded, by id (inside a transaction)."""
    rows = conn.execute(*_among(conn.dialect, kind, "id, body", ids, customer_id))
    return {id_: msgspec.json.decode(body) for id_, body in rows}


def ids_of(conn: Connection, kind: str, customer_id: int) -> list[Any]:
    """Every id of a customer's documents of `kind`."""
    return [row[0] for row in conn.execute(f'SELECT id FROM "{table_of(kind)}" WHERE customer_id = ?', (customer_id,))]


def holding(conn: Connection, kind: str, customer_id: int, among: Mapping[str, Iterable[Any]]) -> list[dict]:
    """A customer's documents of `kind` whose every property of `among` has one of its values."""
    held = both(Is("customer_id", "=", customer_id), *(In(prop, tuple(values)) for prop, values in among.items()))
    return _decoded(conn.execute(*_select(conn.dialect, kind, "body", held)))


def every_document(conn: Connection, kind: str, customer_id: int, **props: Any) -> list[dict]:
    """Every document of `kind` of a customer whose properties equal these values, by id."""
    held = equals(customer_id=customer_id, **props)
    return _decoded(conn.execute(*_select(conn.dialect, kind, "body", held, " ORDER BY id")))


def between(conn: Connection, kind: str, customer_id: int, prop: str, low: Any, high: Any) -> list[dict]:
    """A customer's documents of `kind` whose `prop` is from `low` to before `high`, by id."""
    held = both(Is("customer_id", "=", customer_id), Is(prop, ">=", low), Is(prop, "<", high))
    return _decoded(conn.execute(*_select(conn.dialect, kind, "body", held, " ORDER BY id")))


def listing_any(conn: Connection, kind: str, customer_id: int, prop: str, values: Iterable[Any],
                member: str | None = None) -> list[dict]:  # fmt: skip
    """A customer's documents of `kind` whose list `prop` holds one of `values` (as an item, or under the
    key `member` of an object item)."""
    held = both(Is("customer_id", "=", customer_id), Holds(prop, tuple(values), member))
    return _decoded(conn.execute(*_select(conn.dialect, kind, "body", held)))
