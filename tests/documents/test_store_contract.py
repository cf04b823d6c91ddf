"""The read-store contract: both stores answer every list the same bytes, and what the API means.

The same documents of every registry kind (seeded: values of each property's type, with ties, nulls,
cases, other alphabets, numbers as text; then patches, deletes and another customer's documents
beside) are kept by a SQLite and a PostgreSQL log. Each kind's every filterable property is listed
under every operator of version 1.2 and its aliases (with values read as the property's type, a
bare date on a time, `like` without `%` as a substring in any case), sorted (`sort`/`dir`,
`sort=-prop`, by id) and paged (by page number, and after the last row of the page before). Each
page must be the same bytes, with the same `total`, on both stores, and hold the documents the
Python meaning of the conditions (`documents.conditions.holds`, `ordered`) picks, in its order.
Runs on both stores whatever `--store` says, as the event log's contract does."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
import pytest_asyncio

from telephony.clock import Clock
from telephony.collections import Kind, parse
from telephony.collections.filters import OPERATORS
from telephony.documents import DocumentTable, listing
from telephony.documents.conditions import equals, holds, ordered
from telephony.documents.postgresql.reader import PgReader
from telephony.documents.sqlite.reader import Reader
from telephony.domain.events import Catalogue, events_of
from telephony.domain.events.accounts import CustomerDeleted
from telephony.eventlog import EventLog, NewEvent
from telephony.eventlog.pg_log import PgEventLog
from telephony.projections import Projections
from telephony.registry.catalogue import RESOURCES

LOOP = pytest.mark.asyncio(loop_scope="module")
pytestmark = LOOP
CUSTOMER, BESIDE = 2, 3
LIMIT = 7
VALUES: dict[Kind, list[Any]] = {
    Kind.INT: [-3, 0, 1, 2, 10, 10, 42, 2**40],
    Kind.FLOAT: [-3.25, 0.0, 1.5, 2.0, 10.0, 1000000.0],
    Kind.BOOL: [True, False],
    Kind.TEXT: ["Ada", "ada", "ADA", "bob", "Émile", "émile", "Zoë", "42", "10", "a%b", "x_y", "O'Brien", "",
                "Ωmega", "back\\slash", "+447700900123"],
    Kind.TIME: ["2026-03-01 08:00:00", "2026-03-01 23:59:59", "2026-03-02 00:00:00", "2026-03-02",
                "2026-02-28 12:00:00"],
    Kind.ARRAY: [[], [1, 2], ["a"]],
    Kind.OBJECT: [{}, {"a": 1}],
}  # fmt: skip
SCALAR = {Kind.INT, Kind.FLOAT, Kind.BOOL, Kind.TEXT, Kind.TIME}
ALIASES = {meaning: [alias for alias, same in OPERATORS.items() if same == meaning] for meaning in OPERATORS.values()}
"""Every operator's spellings, by its meaning."""
KINDS = [r for r in RESOURCES if r.props]


def a_value(rng: random.Random, kind: Kind) -> Any:
    return None if rng.random() < 0.12 else rng.choice(VALUES[kind])


def a_body(rng: random.Random, resource: Any, id_: Any, customer: int) -> dict[str, Any]:
    body: dict[str, Any] = {"id": id_}
    for prop, kind in resource.props.items():
        if prop == "customer_id":
            body[prop] = customer
        elif prop != "id" and rng.random() < 0.9:  # a missing property is a null
            body[prop] = a_value(rng, kind)
    return body


def history(resource: Any, seed: int) -> tuple[list[NewEvent], dict[Any, dict[str, Any]]]:
    """Documents of the kind created, patched and deleted (the customer's and another's), and the
    customer's documents as they end: as the log reads its events back (a kind's record fills a
    field it lacks with its default, and leaves out what is none of its fields)."""
    rng, events, kept = random.Random(seed), [], {}
    made = events_of(resource.kind)
    read = Catalogue(list(made.all))

    def as_read(event: Any) -> Any:
        return read.read(*read.written(event))

    ids = [f"+44{n:08d}" if resource.text_ids else n for n in range(1, 41)]
    for id_ in ids:
        customer = BESIDE if rng.random() < 0.2 else CUSTOMER
        body = a_body(rng, resource, id_, customer)
        events.append(made.created(id=id_, customer_id=customer, body=body))
        if customer == CUSTOMER:
            kept[id_] = msgspec.to_builtins(as_read(events[-1]).body)
    for id_ in rng.sample(ids, 12):
        if id_ in kept and rng.random() < 0.3:
            events.append(made.deleted(id=id_))
            del kept[id_]
        elif id_ in kept:
            prop = rng.choice(list(resource.props))
            changes = {prop: a_value(rng, resource.props[prop])} if prop not in ("id", "customer_id") else {"x": [1]}
            events.append(made.updated(id=id_, changes=changes))
            kept[id_] = kept[id_] | msgspec.to_builtins(as_read(events[-1]).changes)
    return [NewEvent(stream=f"{resource.kind}-{i}", event=e) for i, e in enumerate(events)], kept


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def stores(postgres_cluster, tmp_path_factory) -> Any:
    """A SQLite and a PostgreSQL log holding the same documents of every kind, with a reader each, and
    the customer's documents by kind as they end."""
    catalogue = Catalogue([*(cls for r in KINDS for cls in events_of(r.kind).all), CustomerDeleted])

    def tables(dialect: str) -> Projections:
        return Projections([DocumentTable(r.kind, dialect=dialect, text_ids=r.text_ids, indexed=r.indexed,
                                          searched=r.searched) for r in KINDS], catalogue)  # fmt: skip

    url = postgres_cluster.schema_url()
    logs = [await EventLog.open(tmp_path_factory.mktemp("contract"), tables("sqlite"), Clock(), progress=False),
            await PgEventLog.open_url(url, tables("postgresql"), Clock(), progress=False)]  # fmt: skip
    readers = [await Reader.open(logs[0].path, 0), await PgReader.open(url)]
    kept = {}
    for n, resource in enumerate(KINDS):
        events, kept[resource.kind] = history(resource, n)
        for log in logs:
            await log.append(events)
    yield readers, kept
    for closing in (*readers, *logs):
        await closing.close()


def conditions(resource: Any, documents: dict[Any, dict], rng: random.Random) -> Iterator[list[dict[str, Any]]]:
    """Every operator (each spelling in turn) on every property of the kind, with a value of the
    documents (or a form the API reads as one), and null; two conditions together."""
    turn = 0
    for prop, kind in resource.props.items():
        yield [{"property": prop, "operator": ALIASES["="][turn % 2], "value": None}]
        yield [{"property": prop, "operator": ALIASES["!="][turn % 4], "value": None}]
        turn += 1
        if kind not in SCALAR:
            continue
        present = [d.get(prop) for d in documents.values() if d.get(prop) is not None] or VALUES[kind]
        for canonical in ("=", "!=", "<", "<=", ">", ">=", "in", "like", "notlike"):
            spelling = ALIASES[canonical][turn % len(ALIASES[canonical])]
            turn += 1
            value = rng.choice(present)
            if canonical == "in":
                value = rng.sample(present, min(3, len(present))) + ([value[:10]] if kind is Kind.TIME else [])
            elif canonical in ("like", "notlike"):
                value = a_pattern(rng, value, kind)
            elif kind is Kind.TIME and rng.random() < 0.5:
                value = value[:10]  # a bare date
            elif kind is Kind.INT and rng.random() < 0.5:
                value = str(value)  # "10" equals 10
            yield [{"property": prop, "operator": spelling, "value": value}]
    scalar = [p for p, k in resource.props.items() if k in SCALAR]
    if len(scalar) > 1:
        first, second = rng.sample(scalar, 2)
        yield [{"property": prop, "operator": "ne", "value": None} for prop in (first, second)]


def a_pattern(rng: random.Random, value: Any, kind: Kind) -> str:
    """A piece of a value in another case, with `%` or `_` at times, or a pattern of its own."""
    text = str(int(value)) if kind is Kind.BOOL else str(value)
    start = rng.randrange(max(1, len(text)))
    piece = "".join(c.swapcase() if rng.random() < 0.5 else c for c in text[start : start + rng.choice([1, 2, 3, 5])])
    return rng.choice([piece, piece, f"{piece}%", f"_{piece}%", "%", "éMI", "\\", piece])


def orders(resource: Any, rng: random.Random) -> Iterator[dict[str, str]]:
    """No order, by id, and by a property both ways (`dir=DESC` and `sort=-prop`), in turn."""
    scalar = [p for p, k in resource.props.items() if k in SCALAR and p != "id"]
    prop = rng.choice(scalar) if scalar else "id"
    yield from ({}, {"dir": "DESC"}, {"sort": "id", "dir": "DESC"}, {"sort": prop}, {"sort": f"-{prop}"},
                {"sort": prop, "dir": "DESC"})  # fmt: skip


async def walk(reader: Any, resource: Any, params: dict[str, str], after_last: bool) -> list[tuple[int, bytes]]:
    """Every page of the customer's list (by page number, or each after the last row of the one before)."""
    pages, after, number = [], None, 1
    while True:
        q = parse({**params, "page": str(number), "limit": str(LIMIT)}, resource.props, default_limit=50,
                  max_limit=5000)  # fmt: skip
        found = await listing.page(reader, resource.kind, equals(customer_id=CUSTOMER), q, counted=CUSTOMER,
                                   after=after if after_last else None, searched=resource.searched)  # fmt: skip
        pages.append((found.total, found.joined))
        if found.size < LIMIT:
            return pages
        after, number = found.last, number + 1


def meant(documents: dict[Any, dict], resource: Any, params: dict[str, str]) -> list[Any]:
    """The ids the list holds by the Python meaning of its conditions, in its order."""
    q = parse({**params, "limit": "5000"}, resource.props, default_limit=50, max_limit=5000)
    return [d["id"] for d in ordered([d for d in documents.values() if holds(d, q.where)], q.order, q.descending)]


@pytest.mark.parametrize("resource", KINDS, ids=[r.kind for r in KINDS])
async def test_every_list_of_a_kind_is_the_same_bytes_on_both_stores_and_means_what_the_api_says(stores, resource):
    (sqlite, postgresql), kept = stores
    documents, rng = kept[resource.kind], random.Random(resource.kind)
    sorts = list(orders(resource, rng))
    for n, filters in enumerate([[], *conditions(resource, documents, rng)]):
        for params in sorts if not filters else [sorts[n % len(sorts)]]:
            params = {**params, **({"filter": json.dumps(filters)} if filters else {})}
            after_last = n % 2 == 1
            on_sqlite, on_postgresql = [
                await walk(store, resource, params, after_last) for store in (sqlite, postgresql)
            ]
            assert on_postgresql == on_sqlite, params
            listed = [d["id"] for _, joined in on_sqlite for d in json.loads(b"[" + joined + b"]")]
            assert listed == meant(documents, resource, params), params
            assert on_sqlite[0][0] == len(listed), params


@pytest.mark.parametrize("resource", KINDS[:8], ids=[r.kind for r in KINDS[:8]])
async def test_grouped_lists_are_the_same_bytes_on_both_stores(stores, resource):
    (sqlite, postgresql), _ = stores
    for prop in [p for p, k in resource.props.items() if k in SCALAR][:6]:
        params = {"group_by": prop, "sort": prop}
        on_sqlite, on_postgresql = [await walk(reader, resource, params, False) for reader in (sqlite, postgresql)]
        assert on_postgresql == on_sqlite, params
