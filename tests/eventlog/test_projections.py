"""Projections: rebuilding from the log gives exactly what incremental application gave."""

from __future__ import annotations

import asyncio
import random
import sqlite3

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from telephony.audit import verify_projections
from telephony.clock import Clock
from telephony.eventlog import EventLog, Metadata, NewEvent
from telephony.eventlog import store as sqlite_store
from telephony.projections import Projections

from .counting import EnvelopeTrail, StreamCounts


def generated_log(seed: int, size: int) -> list[list[NewEvent]]:
    rng = random.Random(seed)
    batches = []
    for _ in range(size):
        batch = [
            NewEvent(
                stream=f"s-{rng.randrange(12)}",
                type=rng.choice(["thing.happened", "thing.undone", "other"]),
                data={"n": rng.randrange(-50, 50)},
            )
            for _ in range(rng.randrange(1, 4))
        ]
        batches.append(batch)
    return batches


def snapshot(conn: sqlite3.Connection) -> list[tuple]:
    return conn.execute("SELECT * FROM test_stream_counts ORDER BY stream").fetchall()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), size=st.integers(1, 60))
def test_rebuild_equals_incremental_application(tmp_path_factory, seed, size):
    data_dir = tmp_path_factory.mktemp("log")

    async def scenario():
        log = await EventLog.open(data_dir, Projections([StreamCounts()]), Clock(), progress=False)
        await asyncio.gather(*(log.append(batch) for batch in generated_log(seed, size)))
        await log.close()

    asyncio.run(scenario())
    conn = sqlite_store.connect(data_dir / "events.db")
    incremental = snapshot(conn)
    assert verify_projections(conn, Projections([StreamCounts()])) is None
    Projections([StreamCounts()]).rebuild(conn, progress=False)
    assert snapshot(conn) == incremental


async def test_a_changed_projection_version_is_rebuilt_at_start(tmp_path):
    log = await EventLog.open(tmp_path, Projections([StreamCounts()]), Clock(), progress=False)
    await log.append([NewEvent(stream="a", type="thing.happened", data={"n": 1})])
    await log.close()
    conn = sqlite_store.connect(tmp_path / "events.db")
    conn.execute("DELETE FROM test_stream_counts")

    class StreamCountsV2(StreamCounts):
        version = 2

    assert Projections([StreamCountsV2()]).stale(conn)
    log = await EventLog.open(tmp_path, Projections([StreamCountsV2()]), Clock(), progress=False)
    await log.close()
    assert snapshot(conn) == [("a", 1, 1)]


async def test_verify_reports_a_projection_that_drifted_from_the_log(tmp_path):
    log = await EventLog.open(tmp_path, Projections([StreamCounts()]), Clock(), progress=False)
    await log.append([NewEvent(stream="a", type="thing.happened", data={"n": 1})])
    await log.close()
    conn = sqlite_store.connect(tmp_path / "events.db")
    conn.execute("UPDATE test_stream_counts SET n = 99")
    problem = verify_projections(conn, Projections([StreamCounts()]))
    assert problem is not None and "test_stream_counts" in problem.what


async def test_a_rebuild_gives_the_envelope_to_projections_that_read_it(tmp_path):
    log = await EventLog.open(tmp_path, Projections([EnvelopeTrail()]), Clock(), progress=False)
    for n in range(5):
        await log.append([NewEvent(stream=f"s-{n % 2}", type="thing.happened", data={})], Metadata(request_id=f"r{n}"))
    await log.close()
    conn = sqlite_store.connect(tmp_path / "events.db")
    live = conn.execute("SELECT * FROM test_envelope_trail ORDER BY position").fetchall()
    assert [row[3] for row in live] == [f"r{n}" for n in range(5)] and all(row[5] for row in live)
    Projections([EnvelopeTrail()]).rebuild(conn, progress=False)
    assert conn.execute("SELECT * FROM test_envelope_trail ORDER BY position").fetchall() == live
