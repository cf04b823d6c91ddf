"""A kind's document table on PostgreSQL holds and pages what the same table on SQLite does: the same
events applied to both (creates, patches, deletes, a customer cleared), the same pages read back, by
offset and by continuing after a page's last row, with the same totals, under every kind of filter
(comparisons of text and numbers, `in`, `like` in ASCII and in other alphabets, nulls, values holding a
NUL character)."""

from __future__ import annotations

import json
import random

import pytest

from telephony.clock import Clock
from telephony.collections import Kind
from telephony.collections.filters import parse
from telephony.documents import DocumentTable, listing
from telephony.documents.conditions import equals
from telephony.documents.postgresql.reader import PgReader
from telephony.documents.sqlite.reader import Reader
from telephony.domain.events import Catalogue
from telephony.domain.events.accounts import CustomerDeleted
from telephony.domain.events.catalogue import events_of
from telephony.eventlog import EventLog, NewEvent
from telephony.eventlog.pg_log import PgEventLog
from telephony.projections import Projections

NOTE = events_of("note")
CATALOGUE = Catalogue([*NOTE.all, CustomerDeleted])
NAMES = ["Ada", "bob", "Carol", "dave", "Émile", None, "ada", "Zoë", "42"]


def table(dialect: str = "sqlite") -> Projections:
    return Projections([DocumentTable("note", dialect=dialect, indexed=("name",), searched=("name",))], CATALOGUE)


def changes(seed: int) -> list[NewEvent]:
    """Notes of two customers created, renamed, given new fields and deleted at random; customer 3's
    cleared at the end."""
    rng, made, events = random.Random(seed), [], []
    for n in range(1, 160):
        roll = rng.random()
        if roll < 0.6 or not made:
            body = {"id": n, "name": rng.choice(NAMES), "size": rng.randint(0, 9)}
            made.append(n)
            events.append(NOTE.created(id=n, customer_id=rng.choice((2, 3)), body=body))
        elif roll < 0.85:
            events.append(NOTE.updated(id=rng.choice(made), changes={"name": rng.choice(NAMES), "extra": [n]}))
        else:
            events.append(NOTE.deleted(id=made.pop(rng.randrange(len(made)))))
    return [NewEvent(stream=f"note-{i}", event=e) for i, e in enumerate(events)]


PROPS = {"name": Kind.TEXT, "size": Kind.INT, "extra": Kind.ARRAY}
NUL = [("eq", "Ada\x00"), ("ne", "Ada\x00"), ("in", ["Ada\x00", "bob"]), ("lt", "Carol\x00"), ("gte", "Carol\x00x"),
       ("like", "%a\x00x"), ("notlike", "%a\x00x"), ("like", "\x00")]  # fmt: skip
"""Values holding a NUL, which no text on PostgreSQL can hold (each condition rewritten: `documents.postgresql.sql`)."""
FILTERS = [
    [],
    [{"property": "name", "operator": "eq", "value": "Ada"}],
    [{"property": "name", "operator": "ne", "value": "Ada"}],
    [{"property": "size", "operator": "lt", "value": "4"}],
    [{"property": "size", "operator": "in", "value": [1, 3, 9]}],
    [{"property": "name", "operator": "like", "value": "ad"}],
    [{"property": "name", "operator": "like", "value": "%o%"}],
    [{"property": "name", "operator": "notlike", "value": "A"}],
    [{"property": "name", "operator": "like", "value": "éMI"}],
    [{"property": "name", "operator": "eq", "value": None}],
    [{"property": "name", "operator": "gte", "value": "C"}, {"property": "size", "operator": "gt", "value": 2}],
    [{"property": "extra", "operator": "eq", "value": None}],
    *([{"property": "name", "operator": op, "value": value}] for op, value in NUL),
]
"""Conditions of every kind the filter makes SQL of (`collections.filters`), alone and together."""


async def walk(reader, customer: int, sort: str | None, descending: bool, filters: list | None = None
               ) -> list[tuple[int, list]]:  # fmt: skip
    """Every page of a customer's notes, 7 at a time, each after the last row of the one before."""
    pages, after, number = [], None, 1
    where = parse(json.dumps(filters or []), PROPS)
    while True:
        q = listing.Query(number, 7, where, sort, descending, None)
        found = await listing.page(reader, "note", equals(customer_id=customer), q, after=after, searched=("name",))
        pages.append((found.total, found.documents()))
        if found.size < 7:
            return pages
        after, number = found.last, number + 1


@pytest.mark.parametrize("seed", [1, 2])
async def test_pages_of_a_document_table_on_postgresql_equal_those_on_sqlite(postgres_cluster, tmp_path, seed):
    url = postgres_cluster.schema_url()
    sqlite_log = await EventLog.open(tmp_path, table(), Clock(), progress=False)
    pg_log = await PgEventLog.open_url(url, table("postgresql"), Clock(), progress=False)
    readers = [await Reader.open(sqlite_log.path, 0), await PgReader.open(url)]
    try:
        for log in (sqlite_log, pg_log):
            await log.append(changes(seed))
            await log.append([NewEvent(stream="customer-3", event=CustomerDeleted(id=3))])
        for customer in (2, 3):
            for sort, descending in ((None, False), (None, True), ("name", False), ("size", True)):
                on_sqlite, on_pg = [await walk(reader, customer, sort, descending) for reader in readers]
                assert on_pg == on_sqlite, (customer, sort, descending)
                assert sum(len(docs) for _, docs in on_pg) == on_pg[0][0]
        assert on_pg[0][0] == 0  # customer 3's notes went with it
        for filters in FILTERS:
            on_sqlite, on_pg = [await walk(reader, 2, "size", False, filters) for reader in readers]
            assert on_pg == on_sqlite, filters
    finally:
        for closing in (*readers, sqlite_log, pg_log):
            await closing.close()
