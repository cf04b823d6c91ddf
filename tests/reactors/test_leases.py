"""Work that runs once across processes: each `PgEventLog`, scheduler and `Duties` here stands for a
process on one PostgreSQL log; giving a lease up stands for the death of its holder (its session ends;
`tests/eventlog/test_pg_lease.py` kills a real holder with SIGKILL)."""

from __future__ import annotations

import asyncio
import functools
import time

import pytest

from telephony.clock import Clock
from telephony.eventlog.pg_lease import Lease as PgLease
from telephony.eventlog.pg_log import PgEventLog
from telephony.eventlog.pg_notices import Notices
from telephony.projections import Projections
from telephony.projections.clock import clock_moved
from telephony.reactors.leases import Duties
from telephony.reactors.running import runners
from telephony.reactors.scheduler import Scheduler
from telephony.reactors.shared_clock import SharedClock

from .kinds import THINGS, Echo, ThingEchoed, happened

START = 1_700_000_000.0


@pytest.fixture
def url(postgres_cluster):
    return postgres_cluster.schema_url()


async def open_log(url: str, clock: Clock) -> PgEventLog:
    return await PgEventLog.open_url(url, Projections([], THINGS), clock, progress=False)


def duties_on(url: str, clock: Clock) -> Duties:
    return Duties(Scheduler(clock), functools.partial(PgLease, url))


async def test_a_reactor_runs_in_one_process_and_the_next_holder_resumes_from_its_tracking_position(url):
    clock = Clock()
    first_log, second_log = await open_log(url, clock), await open_log(url, clock)
    first_duties, second_duties = duties_on(url, clock), duties_on(url, clock)
    first_echo, second_echo = Echo(), Echo()
    first = runners([first_echo], first_log, clock, lease_of=first_duties.__getitem__)
    second = runners([second_echo], second_log, clock, lease_of=second_duties.__getitem__)
    try:
        first.start()
        await first_log.append([happened(n) for n in range(10)])
        await asyncio.wait_for(first.reached(10), 10)
        second.start()
        await second_log.append([happened(n) for n in range(10, 20)])
        await asyncio.wait_for(first.reached(second_log.position), 10)
        assert second.health()["echo"]["state"] == "standby"
        await first.stop()
        await first_duties.release()  # the holder is gone
        taken = time.monotonic()
        last = (await second_log.append([happened(n) for n in range(20, 30)]))[-1].position
        await asyncio.wait_for(second.reached(last), 10)
        assert time.monotonic() - taken < 5
    finally:
        await second.stop()
        await second_duties.release()
        await first_log.close()
        events = await second_log.read()
        await second_log.close()
    happened_at = [e.position for e in events if e.type == "thing.happened"]
    echoed = [e.event.of for e in events if isinstance(e.event, ThingEchoed)]
    assert sorted(echoed) == happened_at  # every event echoed exactly once, by one process or the other
    assert len(first_echo.seen) == 20
    assert second_echo.seen == happened_at[20:]


async def test_a_duty_s_timers_run_only_where_its_lease_is_held_and_the_next_holder_runs_what_was_left(url):
    pending = {"call:1": START + 10}
    ran: dict[str, list[str]] = {"first": [], "second": []}
    second_ran = asyncio.Event()

    def source_of(process: str):
        async def job(key: str) -> None:
            ran[process].append(key)
            if process == "second":
                second_ran.set()

        return lambda: [(due, key, functools.partial(job, key)) for key, due in pending.items()]

    second_scheduler = Scheduler(Clock.virtual(START))
    first = duties_on(url, Clock.virtual(START))
    second = Duties(second_scheduler, functools.partial(PgLease, url))
    first["call-simulator"].derive(source_of("first"))
    second["call-simulator"].derive(source_of("second"))
    try:
        await first.start()
        await second.start()
        assert (first.held, second.held) == (["call-simulator"], [])
        await second_scheduler.advance_to(START + 20)
        assert ran == {"first": [], "second": []}  # due in the second process, which does not hold the lease
        await first.release()  # the holder dies before its clock reached the step
        taken = time.monotonic()
        await asyncio.wait_for(second_ran.wait(), 5)
        assert time.monotonic() - taken < 5
    finally:
        await first.release()
        await second.release()
    assert ran == {"first": [], "second": ["call:1"]}
    assert second.held == []


async def test_a_clock_moved_on_one_process_runs_the_other_s_timers_before_the_move_is_answered(url):
    first_clock, second_clock = Clock.virtual(START), Clock.virtual(START)
    first_log, second_log = await open_log(url, first_clock), await open_log(url, second_clock)
    first_notices, second_notices = await Notices.open(url, "clock"), await Notices.open(url, "clock")
    scheduler = Scheduler(second_clock)
    duty = ["call-simulator"]
    first = SharedClock(first_clock, Scheduler(first_clock), first_notices, lambda: [], duty)
    second = SharedClock(second_clock, scheduler, second_notices, lambda: duty, duty)  # the lease's holder
    first_log.follow_commits("shared clock", first.follow_commit)
    second_log.follow_commits("shared clock", second.follow_commit)
    ran: list[float] = []

    async def step() -> None:
        ran.append(second_clock.time())

    scheduler.at(START + 60, "call:1", step)
    scheduler.start()
    try:
        first_clock.advance(90)
        recorded = await first_log.append([clock_moved(first_clock.offset, first_clock.time())])
        await asyncio.wait_for(first.everywhere(recorded[-1].position), 10)
        assert ran == [START + 60]  # taken by the holder, before the mover's answer
        assert second_clock.time() == START + 90
    finally:
        for shared in (first, second):
            await shared.close()
        await scheduler.stop()
        for closing in (first_notices, second_notices, first_log, second_log):
            await closing.close()
