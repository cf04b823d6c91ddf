"""The event log contract, written once; every store the project grows runs it (SQLite and PostgreSQL,
see `stores.py`)."""

from __future__ import annotations

import asyncio
import random
from collections import deque
from collections.abc import Mapping
from typing import ClassVar

import pytest

from telephony.audit import verify_chain
from telephony.domain.events import Event
from telephony.domain.events.base import Upcaster
from telephony.eventlog import NO_STREAM, ConcurrencyError, LogDamaged, Metadata, NewEvent
from telephony.eventlog import store as sqlite_store

from .counting import StreamCounts
from .stores import Store
from .things import THINGS, AMade, BMade, CMade, Made, ThingHappened


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    """Each test runs on both stores; the PostgreSQL one in a schema of the session's cluster."""
    url = request.getfixturevalue("postgres_cluster").schema_url() if request.param == "postgresql" else ""
    chosen = Store(request.param, tmp_path, url)
    yield chosen
    chosen.close()


def event(stream: str, n: int = 0, expected: int = -1) -> NewEvent:
    return NewEvent(stream=stream, event=ThingHappened(n=n), expected_version=expected)


@pytest.fixture
async def log(store):
    opened = await store.open()
    yield opened
    await opened.close()


async def test_concurrent_appends_get_gap_free_positions(log):
    await asyncio.gather(*(log.append([event(f"s-{i % 7}", i), event(f"s-{i % 7}", i)]) for i in range(200)))
    events = await log.read()
    assert [e.position for e in events] == list(range(1, 401))
    for stream in {e.stream for e in events}:
        versions = [e.version for e in events if e.stream == stream]
        assert versions == list(range(1, len(versions) + 1))


async def test_appends_are_batched_into_shared_commits(log):
    await asyncio.gather(*(log.append([event(f"b-{i}")]) for i in range(100)))
    assert log._writer.batches < 100


async def test_a_stale_expected_version_is_rejected_and_nothing_of_its_batch_is_stored(log):
    await log.append([event("acct-1", expected=NO_STREAM)])
    stale = [event("acct-2", expected=NO_STREAM), event("acct-1", expected=NO_STREAM)]
    results = await asyncio.gather(log.append(stale), log.append([event("acct-3")]), return_exceptions=True)
    assert isinstance(results[0], ConcurrencyError)
    assert results[0].stream == "acct-1" and results[0].actual == 1
    streams = [e.stream for e in await log.read()]
    assert streams == ["acct-1", "acct-3"]
    assert [e.position for e in await log.read()] == [1, 2]


async def test_a_failing_decision_leaves_nothing_behind_and_others_commit(log):
    def refuse(_conn):
        raise ValueError("rule broken")

    results = await asyncio.gather(log.transact(refuse), log.append([event("ok")]), return_exceptions=True)
    assert isinstance(results[0], ValueError)
    assert [e.stream for e in await log.read()] == ["ok"]


async def test_a_statement_the_store_refuses_takes_back_its_request_alone(log):
    """A write whose answer nothing reads (PostgreSQL sends it ahead in its pipeline) that fails takes
    back its request's events, and only them; the requests beside it in the batch commit."""

    def breaking(conn):
        conn.execute("INSERT INTO events (position) VALUES (NULL)")  # refused: NOT NULL
        return [event("broken")]

    before = [log.append([event(f"before-{n}")]) for n in range(3)]
    after = [log.append([event(f"after-{n}")]) for n in range(3)]
    results = await asyncio.gather(*before, log.transact(breaking), *after, return_exceptions=True)
    assert [isinstance(result, Exception) for result in results] == [False] * 3 + [True] + [False] * 3
    assert sorted(e.stream for e in await log.read()) == sorted([f"before-{n}" for n in range(3)]
                                                                + [f"after-{n}" for n in range(3)])  # fmt: skip
    await log.append([event("next")])
    assert (await log.read())[-1].stream == "next"


async def test_metadata_is_stored_with_each_event(log):
    meta = Metadata(user_id=1000001, token_kind="login", customer_id=7, api_version="v1.2", request_id="r1")
    await log.append([event("m")], meta)
    (stored,) = await log.read()
    assert stored.meta == meta


async def test_events_and_projections_survive_a_restart(store):
    first = await store.open()
    await asyncio.gather(*(first.append([event("keep", i)]) for i in range(50)))
    await first.close()
    second = await store.open()
    try:
        assert second.position == 50
        assert len(await second.read_stream("keep")) == 50
        assert StreamCounts.read(store.sql())["keep"] == 50
        await second.append([event("keep")])
        assert second.position == 51
    finally:
        await second.close()


async def test_subscribers_see_new_events_in_order(log):
    await log.append([event("old")])
    seen = []

    async def follow():
        async for e in log.subscribe(after=0):
            seen.append(e.position)
            if len(seen) == 3:
                return

    task = asyncio.create_task(follow())
    await asyncio.sleep(0)
    await log.append([event("new"), event("new")])
    await asyncio.wait_for(task, 5)
    assert seen == [1, 2, 3]


class Counted(Event, tag="thing.counted"):
    """The first shape of a type: its field is `count`."""

    count: int


class CountedAsN(Event, tag="thing.counted"):
    """Its second shape: the field is `n` now; data of schema 1 is upcast."""

    schema: ClassVar[int] = 2
    upcasters: ClassVar[Mapping[int, Upcaster]] = {1: lambda d: {"n": d["count"]}}
    n: int


async def test_upcasters_turn_old_shapes_into_new_ones_on_read(store):
    first = await store.open(THINGS.with_types(Counted))
    await first.append([NewEvent(stream="u", event=Counted(count=3))])
    await first.close()
    second = await store.open(THINGS.with_types(CountedAsN))
    try:
        (stored,) = await second.read()
        assert stored.event == CountedAsN(n=3) and stored.schema == 2
        await second.append([NewEvent(stream="u", event=CountedAsN(n=4))])
        (kept,) = await second.read(after=1)  # written in the new shape now, read from memory
        assert kept.event == CountedAsN(n=4) and kept.schema == 2
    finally:
        await second.close()
    rows = store.sql().execute("SELECT schema FROM events ORDER BY position").fetchall()
    assert [tuple(row) for row in rows] == [(1,), (2,)]


@pytest.mark.parametrize("column", ["stream", "version", "type", "data", "meta", "recorded_at", "hash"])
async def test_changing_any_stored_byte_breaks_the_chain_at_that_position(store, column):
    opened = await store.open()
    for i in range(5):
        await opened.append([event("t", i)])
    await opened.close()
    conn = store.sql()
    value = conn.execute(f"SELECT {column} FROM events WHERE position = 3").fetchone()[0]
    if isinstance(value, bytes):
        tampered: object = bytes([value[0] ^ 1]) + value[1:]
    elif isinstance(value, int):
        tampered = value + 100
    else:
        tampered = value[:-1] + ("x" if value[-1] != "x" else "y")
    conn.execute(f"UPDATE events SET {column} = ? WHERE position = 3", (tampered,))
    problem = verify_chain(conn)
    assert problem is not None and problem.position == 3


async def test_a_deleted_event_is_reported_as_a_gap(store):
    opened = await store.open()
    for i in range(4):
        await opened.append([event("t", i)])
    await opened.close()
    conn = store.sql()
    conn.execute("DELETE FROM events WHERE position = 2")
    problem = verify_chain(conn)
    assert problem is not None and problem.position == 2


@pytest.mark.parametrize("scanned_span", [0, sqlite_store.SCANNED_SPAN], ids=["by type", "scanned"])
async def test_reading_by_type_gives_those_events_in_position_order_in_chunks(log, monkeypatch, scanned_span):
    """Whether a span is read by the index of types or through (short spans: a live reactor's tail)."""
    monkeypatch.setattr(sqlite_store, "SCANNED_SPAN", scanned_span)
    kinds, made = ["a.made", "b.made", "c.made"], [AMade, BMade, CMade]
    await log.append([NewEvent(stream=f"s-{i % 5}", event=made[i * 7 % 3](n=i)) for i in range(90)])
    everything = await log.read()
    for wanted in (["a.made"], ["a.made", "c.made"], kinds):
        for after in (0, 17, 89):
            expect = [e.position for e in everything if e.type in wanted and after < e.position <= 80]
            chunks = [[e.position for e in chunk] async for chunk in log.chunks(after, until=80, types=wanted, size=4)]
            assert [p for chunk in chunks for p in chunk] == expect
            assert all(len(chunk) == 4 for chunk in chunks[:-1])


async def test_a_tail_read_from_memory_equals_the_same_read_of_the_log(log):
    """The last committed events are read from memory when they cover the span (a reactor's tail):
    the same events, chunks and order as a read of the stored log, with types or not, across commits
    of several requests and after a bulk append that kept nothing (memory starts over then)."""
    rng = random.Random(11)
    kinds: list[type[Made]] = [AMade, BMade, CMade]

    def batch(n: int) -> list[NewEvent]:
        extra = {7: "int key", "nan": float("nan")}  # JSON reshapes these
        return [NewEvent(stream=f"s-{rng.randrange(9)}", event=rng.choice(kinds)(n=n, xs=[n, 1.5], pair=("t", n),
                                                                                  extra=extra))  # type: ignore[arg-type]
                for _ in range(rng.randint(1, 4))]  # fmt: skip

    queried = 0
    stored_rows_after = log._rows_after

    def counted(*args):
        nonlocal queried
        queried += 1
        return stored_rows_after(*args)

    log._rows_after = counted
    from_memory = 0
    for step in range(60):
        if step == 30:
            await log.transact(lambda _conn: batch(-1), keep=False)
        await asyncio.gather(*(log.append(batch(step)) for _ in range(rng.randint(1, 3))))
        head = log.position
        for _ in range(5):
            after = rng.randint(max(0, head - 40), head)
            until = rng.randint(after, head)
            types, size = rng.choice([None, ["a.made"], ["a.made", "c.made"]]), rng.choice([1, 3, 1000])
            before = queried
            got = [chunk async for chunk in log.chunks(after, until=until, types=types, size=size)]
            from_memory += queried == before and until > after
            kept, log._recent = log._recent, deque()
            try:
                expect = [chunk async for chunk in log.chunks(after, until=until, types=types, size=size)]
            finally:
                log._recent = kept
            assert got == expect, (after, until, types, size)
    assert from_memory > 100


@pytest.mark.parametrize("damage", ["data", "hash"])
async def test_a_log_whose_last_event_was_changed_is_refused_at_open_naming_its_position(store, damage):
    """Nothing is chained onto a head that is not what its hash says (`eventlog.damage.check_head`)."""
    first = await store.open()
    await first.append([event("kept", 1), event("kept", 2), event("changed", 3)])
    await first.close()
    column, value = ("data", b'{"n":4}') if damage == "data" else ("hash", bytes(32))
    store.sql().execute(f"UPDATE events SET {column} = ? WHERE position = 3", (value,))
    with pytest.raises(LogDamaged, match="the event at position 3 does not match its hash") as refused:
        await store.open()
    assert refused.value.position == 3 and "telephony verify" in str(refused.value)
    (rows,) = store.sql().execute("SELECT count(*) FROM events").fetchone()
    assert rows == 3
