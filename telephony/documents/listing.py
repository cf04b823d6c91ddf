"""One page of a list and its total, read in one statement of its store's SQL (`sql`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Any, NamedTuple, Protocol

import msgspec

from .conditions import Condition, Exists, equals
from .names import Table, documents_of
from .postgresql.sql import SQL as POSTGRESQL
from .sql import Sql
from .sqlite.sql import SQL as SQLITE

SQL: dict[str, Sql] = {"sqlite": SQLITE, "postgresql": POSTGRESQL}
"""Each store's SQL, by the dialect its readers and connections speak."""


class Page(NamedTuple):
    """Its rows' JSON bodies joined by commas, the total of matches, how many rows it holds, and the key
    (id, or sort value and id) of its last row when the next page can start after it (`page`'s `after`)."""

    joined: bytes
    total: int
    size: int
    last: Any

    def documents(self) -> list[Any]:
        return msgspec.json.decode(b"[" + self.joined + b"]")


class Query(msgspec.Struct, frozen=True):
    """A checked list request (`collections.parse`)."""

    page: int
    limit: int
    where: Condition
    sort: str | None
    descending: bool
    group_by: str | None

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.limit

    @property
    def order(self) -> str | None:
        """The property sorted by before the id; None when by id alone (a row's `id` is its body's)."""
        return None if self.sort == "id" else self.sort

    @property
    def keyed(self) -> bool:
        """Whether a page can start after the key of the row before it (`Page.last`), read from an index."""
        return not self.group_by and not (self.order and self.descending)


class Listed(NamedTuple):
    """What a store reads for a page: the rows of `table` within `scope` that meet the query. An
    unfiltered total is the kept count of customer `counted` when given (`scope` is then exactly its
    rows); `known` is what was learnt before (total, the key the page starts after); a `parent` narrows
    the rows and is read at the same moment; `searched` likes may be answered by an index of the store's."""

    table: Table
    scope: Condition
    q: Query
    counted: int | None = None
    parent: Condition | None = None
    known: tuple[int | None, Any] = (None, None)
    searched: Sequence[str] = ()


class ReadStore(Protocol):
    """The read side for GET handlers, one per store: SQL both stores take (`?` placeholders), or its own."""

    dialect: str

    async def execute_fetchall(self, sql: str, parameters: Iterable[Any] = ()) -> list[Any]: ...

    def each(self, sql: str, parameters: Iterable[Any] = ()) -> AsyncIterator[Any]: ...

    async def close(self) -> None: ...


async def page(reader: ReadStore, kind: str, scope: Condition, q: Query, *, counted: int | None = None,
               total: int | None = None, after: Any = None, searched: Sequence[str] = ()) -> Page:  # fmt: skip
    """A page of documents of `kind` within `scope` (see `Listed`). What is known already is not read
    again: the `total`, and the key of the row just `after` which the page starts (`Page.last`)."""
    found = await read(reader, Listed(documents_of(kind), scope, q, counted, None, (total, after), searched))
    assert found is not None
    return found


async def page_of(reader: ReadStore, table: Table, scope: Condition, q: Query) -> Page:
    """A page of the rows of a table or view that is not a kind's within `scope`."""
    found = await read(reader, Listed(table, scope, q))
    assert found is not None
    return found


async def page_under(reader: ReadStore, kind: str, scope: Condition, q: Query, parent: Condition) -> Page | None:
    """A page of documents of `kind` within `scope` under a parent record (`one_of`): None when it is not there."""
    return await read(reader, Listed(documents_of(kind), scope, q, None, parent))


async def read(reader: ReadStore, listed: Listed) -> Page | None:
    """The page `listed` asks for, read in one statement of the store's SQL (None: its parent is not there)."""
    statement, params = SQL[reader.dialect].page(listed)
    total, found, size, there, *last = (await reader.execute_fetchall(statement, params))[0]
    if not there:
        return None
    return Page(bytes(found or b""), total, size, tuple(last) if listed.q.keyed and None not in last else None)


def one_of(kind: str, key: str, value: Any, customer_id: int) -> Condition:
    """A nested list's parent: a document of `kind` whose `key` is `value` belongs to `customer_id`."""
    return Exists(kind, equals(**{key: value}, customer_id=customer_id))
