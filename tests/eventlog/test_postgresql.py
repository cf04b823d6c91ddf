"""Several processes on one PostgreSQL log: one gap-free hash chain, every commit seen by every log's
followers in order, optimistic concurrency across them (each `PgEventLog` stands for a process)."""

from __future__ import annotations

import asyncio

import pytest

from telephony.audit import verify_chain
from telephony.eventlog import NO_STREAM, ConcurrencyError, NewEvent

from .stores import Store
from .things import ThingHappened


@pytest.fixture
def store(postgres_cluster, tmp_path):
    chosen = Store("postgresql", tmp_path, postgres_cluster.schema_url())
    yield chosen
    chosen.close()


def event(stream: str, n: int = 0, expected: int = -1) -> NewEvent:
    return NewEvent(stream=stream, event=ThingHappened(n=n), expected_version=expected)


async def test_two_processes_appending_at_once_make_one_gap_free_hash_chain(store):
    first, second = await store.open(), await store.open()
    try:
        await asyncio.gather(*(log.append([event(f"s-{i % 5}", i)]) for i in range(100) for log in (first, second)))
        events = await first.read(until=200)
    finally:
        await first.close()
        await second.close()
    assert [e.position for e in events] == list(range(1, 201))
    for stream in {e.stream for e in events}:
        assert [e.version for e in events if e.stream == stream] == list(range(1, 41))
    assert verify_chain(store.sql()) is None


async def test_a_commit_of_one_process_reaches_the_followers_of_the_other_in_order(store):
    writer, reader = await store.open(), await store.open()
    seen: list[int] = []

    async def follower(events, head):
        seen.extend(e.position for e in events)

    reader.follow_commits("test", follower)
    try:
        await reader.append([event("own")])
        for i in range(20):
            await writer.append([event("other", i), event("other", i)])
        await asyncio.wait_for(reader.wait_beyond(40), 10)
        await reader.append([event("own")])
        assert [e.stream for e in await reader.read(after=41)] == ["own"]
    finally:
        await writer.close()
        await reader.close()
    assert seen == list(range(1, 43))


async def test_a_stale_expected_version_is_refused_whichever_process_wrote_the_stream(store):
    first, second = await store.open(), await store.open()
    try:
        await first.append([event("acct-1", expected=NO_STREAM)])
        with pytest.raises(ConcurrencyError) as refused:
            await second.append([event("acct-1", expected=NO_STREAM)])
        assert refused.value.actual == 1
        assert second.position == 1 and [e.stream for e in await second.read()] == ["acct-1"]
    finally:
        await first.close()
        await second.close()
