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


async def test_a_reader_never_sees_a_position_before_an_earlier_one_is_committed(store):
    """Two processes commit at once while a third connection reads on: every read continues the
    positions it saw with the next one, never skipping one that commits later."""
    first, second = await store.open(), await store.open()
    reader, seen, gaps = store.sql(), [0], []

    def read_on() -> None:
        while seen[-1] < 300:
            rows = reader.execute("SELECT position FROM events WHERE position > ? ORDER BY position", (seen[-1],))
            for (position,) in rows.fetchall():
                if position != seen[-1] + 1:
                    gaps.append((seen[-1], position))
                seen.append(position)

    try:
        reading = asyncio.create_task(asyncio.wait_for(asyncio.to_thread(read_on), 60))
        await asyncio.gather(*(log.append([event(f"r-{i % 3}", i)]) for i in range(150) for log in (first, second)))
        await reading
    finally:
        await first.close()
        await second.close()
    assert gaps == [] and seen[1:] == list(range(1, 301))
