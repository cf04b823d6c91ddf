"""The simulator in clock time: the same seed gives the same calls; a restart lets live calls go on,
from the snapshot of them taken at shutdown."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from pathlib import Path

import msgspec
import pytest

from telephony import audit, wiring
from telephony.app import create_app
from telephony.clock import Clock
from telephony.config import Simulator, Storage
from telephony.domain.calls.fold import CALL_TYPES
from telephony.domain.events import tags_of
from telephony.eventlog import LOG_FILE, store
from telephony.keys import EVENT_LOG, SCHEDULER, SETTINGS
from telephony.projections.memory import MemoryProjections
from tests.accounts.helpers import login
from tests.calls.conftest import ANSWERS
from tests.calls.helpers import advance, by_live_id, get, place

START = 1_800_000_000.0


async def run_a_day_of_calls(aiohttp_client, settings) -> list[tuple[str, str, dict]]:
    """Calls to destinations drawn from the configured shares, then every call event of the log."""
    client = await aiohttp_client(create_app(settings, clock=Clock.virtual(START)))
    root = await login(client, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)
    for n in range(12):
        await place(client, root, to=f"+3361234{n:04d}")
        await advance(client, 7)
    await advance(client, 4000)
    events = await client.app[EVENT_LOG].read(types=sorted(tags_of(CALL_TYPES) or ()))
    await client.close()
    return [(e.stream, e.type, e.event) for e in events]


@pytest.mark.sqlite_only  # two fresh data dirs in one test: one PostgreSQL database per test
async def test_the_same_seed_and_requests_give_the_same_events_ids_and_times(aiohttp_client, settings, tmp_path):
    simulator = Simulator(seed=11, answer_rate=0.5, busy_rate=0.2, reject_rate=0.1)
    runs = []
    for name in ("first", "second", "third"):
        seed = 12 if name == "third" else 11
        run = msgspec.structs.replace(settings, storage=Storage(data_dir=str(tmp_path / name)),
                                      simulator=msgspec.structs.replace(simulator, seed=seed))  # fmt: skip
        runs.append(await run_a_day_of_calls(aiohttp_client, run))
    assert runs[0] == runs[1]
    assert len({e[0] for e in runs[0]}) == 12 and sum(e[1] == "call.ended" for e in runs[0]) == 12
    causes = {e[2].cause for e in runs[0] if e[1] == "call.ended"}
    assert len(causes) > 1  # the shares gave more than one ending
    assert runs[2] != runs[0]  # another seed, other calls


async def test_a_call_live_at_a_restart_goes_on_where_it_was(aiohttp_client, settings):
    first = await aiohttp_client(create_app(settings, clock=Clock.virtual(START)))
    root = await login(first, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)
    call_id = (await place(first, root, to=ANSWERS + "1"))["data"]["id"]
    await advance(first, 3)  # the destination rings; it answers at 6 s
    await first.close()

    second = await aiohttp_client(create_app(settings, clock=Clock.virtual(START)))
    assert second.app[SCHEDULER].due(f"call:{call_id}") == START + 6
    live = (await get(second, root, f"/calls/{call_id}"))["data"]
    assert live["state"] == "RINGING"
    await advance(second, 3)
    assert (await get(second, root, f"/calls/{call_id}"))["data"]["state"] == "CONNECTED"
    await advance(second, 60)
    (cdr,) = (await get(second, root, "/cdrs" + by_live_id(call_id)))["data"]
    assert (cdr["billsec"], cdr["duration"], cdr["t_cause"]) == (60, 66, "normal clearing")
    response = await second.post("/_telephony/verify", headers={"X-Control-Key": settings.control.key})
    assert (await response.json())["data"]["problem"] is None


async def test_a_step_that_fell_due_while_the_server_was_down_is_taken_at_the_start(aiohttp_client, settings):
    first = await aiohttp_client(create_app(settings, clock=Clock.virtual(START)))
    root = await login(first, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)
    call_id = (await place(first, root, to=ANSWERS + "1"))["data"]["id"]
    await first.close()

    later = Clock.virtual(START + 600)  # ten minutes down: the caller's own answer fell due meanwhile
    second = await aiohttp_client(create_app(settings, clock=later))
    await advance(second, 0)
    answered = [e for e in await second.app[EVENT_LOG].read_stream(f"call-{call_id}") if e.type == "call.answered"]
    assert [e.event.at for e in answered] == [START + 600]  # taken at the start, never in the past
    await advance(second, 5)
    assert (await get(second, root, f"/calls/{call_id}"))["data"]["state"] == "CONNECTED"
    await advance(second, 60)
    (cdr,) = (await get(second, root, "/cdrs" + by_live_id(call_id)))["data"]
    assert (cdr["t_cause"], cdr["billsec"], cdr["duration"]) == ("normal clearing", 60, 665)


@pytest.mark.sqlite_only  # reads the snapshots from the data dir's SQLite file
async def test_a_restart_takes_live_calls_from_their_snapshot_and_verify_compares_it(aiohttp_client, settings):
    first = await aiohttp_client(create_app(settings, clock=Clock.virtual(START)))
    root = await login(first, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)
    await place(first, root, to=ANSWERS + "1")
    await advance(first, 70)  # that one ended
    for n in (2, 3):
        await place(first, root, to=ANSWERS + str(n))
    await advance(first, 3)
    live = (await get(first, root, "/calls"))["data"]
    head = first.app[EVENT_LOG].position
    await first.close()
    log_path = Path(settings.data_dir) / LOG_FILE
    with closing(sqlite3.connect(log_path)) as conn:
        saved = dict(conn.execute("SELECT name, position FROM memory_snapshots").fetchall())
    assert len(live) == 2 and saved["live_calls"] == saved["queue_records"] == saved["sessions"] == head

    second = await aiohttp_client(create_app(settings, clock=Clock.virtual(START)))
    assert (await get(second, root, "/calls"))["data"] == live
    assert await verify_problem(second) is None
    await second.close()

    with closing(sqlite3.connect(log_path)) as conn, conn:  # a snapshot claiming no call is live
        conn.execute("UPDATE memory_snapshots SET state = ? WHERE name = 'live_calls'", (msgspec.msgpack.encode([]),))
    third = await aiohttp_client(create_app(settings, clock=Clock.virtual(START)))
    assert (await get(third, root, "/calls"))["data"] == []  # the start took the snapshot, not a fold
    assert "'live_calls' differs" in await verify_problem(third)
    await third.close()
    with closing(store.connect(log_path, readonly=True)) as conn:
        fresh = MemoryProjections(wiring.memory_projections(settings))
        problem = await asyncio.to_thread(audit.fold_memory, conn, fresh)  # as `telephony verify` does
    assert problem is not None and "snapshot of in-memory projection 'live_calls' differs" in str(problem)


async def verify_problem(client) -> str | None:
    response = await client.post("/_telephony/verify", headers={"X-Control-Key": client.app[SETTINGS].control.key})
    return (await response.json())["data"]["problem"]
