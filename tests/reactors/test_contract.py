"""The reactor contract, run against every kind of reactor on the SQLite store."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from telephony.clock import Clock
from telephony.eventlog import EventLog
from telephony.eventlog import store as sqlite_store
from telephony.eventlog.hashing import GENESIS, canonical_bytes, chain_hash
from telephony.projections import Projections
from telephony.reactors import tracking
from telephony.reactors.leases import LocalLease
from telephony.reactors.reactor import Backoff, ReactorRunner
from telephony.reactors.running import Reactors

from .kinds import ECHOED, HAPPENED, KINDS, THINGS, Echo, Outside, echoes, happened, happenings

SOON = 60  # seconds a test may wait for background work before it fails: a guard, not a figure


@pytest.fixture(params=KINDS, ids=lambda kind: kind.name)
def kind(request):
    return request.param


@pytest.fixture
def clock() -> Clock:
    return Clock.virtual()


async def open_log(path, clock) -> EventLog:
    return await EventLog.open(path, Projections([], THINGS), clock, progress=False)


@pytest.fixture
async def log(tmp_path, clock):
    opened = await open_log(tmp_path, clock)
    yield opened
    await opened.close()


async def running(*runners: ReactorRunner) -> Reactors:
    reactors = Reactors(list(runners))
    reactors.start()
    return reactors


async def settled(runner: ReactorRunner, log: EventLog) -> None:
    await asyncio.wait_for(runner.reached(log.position), SOON)


async def test_it_reacts_once_to_each_handled_event_in_order(log, clock, kind):
    reactor = kind()
    runner = ReactorRunner(reactor, log, clock)
    await log.append([happened(n) for n in range(3)])
    reactors = await running(runner)
    await log.append([happened(3)])
    await settled(runner, log)
    assert await echoes(log) == [0, 1, 2, 3]
    echoed = await log.read(types=[ECHOED])
    assert [e.event.of for e in echoed] == reactor.seen == await happenings(log)
    assert {e.meta.source for e in echoed} == {f"reactor:{kind.name}"}
    await reactors.stop()


async def test_a_new_reactor_starts_at_the_head_unless_it_reacts_from_the_beginning(log, clock):
    class Newcomer(Echo):
        name = "newcomer"
        from_beginning = False

    await log.append([happened(0), happened(1)])
    runner = ReactorRunner(Newcomer(), log, clock)
    reactors = await running(runner)
    await asyncio.wait_for(runner.reached(2), SOON)
    await log.append([happened(2)])
    await settled(runner, log)
    assert await echoes(log) == [2]
    await reactors.stop()


async def test_a_reactor_that_raises_stops_neither_writes_nor_other_reactors_and_retries(log, clock, kind):
    broken, healthy = kind(), Outside()
    broken.broken_at = 1
    failing = ReactorRunner(broken, log, clock, backoff=Backoff(first=5, longest=60))
    other = ReactorRunner(healthy, log, clock)
    reactors = await running(failing, other)
    await log.append([happened(0), happened(1), happened(2)])
    await settled(other, log)
    await asyncio.wait_for(_state(failing, "failing"), SOON)
    assert reactors.failing == [kind.name]
    assert failing.health()["last_error"] == "RuntimeError"  # the class only: health is open
    await log.append([happened(3)])  # writes go on
    await settled(other, log)
    assert len(healthy.delivered) == 4

    broken.broken_at = None  # the fault is repaired; the retry comes when the clock passes it
    assert failing.retry_at is not None
    clock.set_epoch(failing.retry_at)
    await settled(failing, log)
    await asyncio.wait_for(_state(failing, "following"), SOON)
    assert failing.failures == 0 and failing.retry_at is None
    mine = [e.event.n for e in await log.read(types=[ECHOED]) if e.meta.source == f"reactor:{kind.name}"]
    assert mine == [0, 1, 2, 3]  # each event echoed once, in order
    await reactors.stop()


async def test_the_backoff_doubles_up_to_its_longest_delay():
    backoff = Backoff(first=1, longest=10)
    assert [backoff.delay(n) for n in range(1, 7)] == [1, 2, 4, 8, 10, 10]


async def test_a_restarted_reactor_resumes_from_its_tracking_position(tmp_path, clock, kind):
    log = await open_log(tmp_path, clock)
    first = ReactorRunner(kind(), log, clock)
    reactors = await running(first)
    await log.append([happened(n) for n in range(5)])
    await settled(first, log)
    await reactors.stop()
    await log.close()

    log = await open_log(tmp_path, clock)
    again = kind()
    second = ReactorRunner(again, log, clock)
    reactors = await running(second)
    await log.append([happened(5)])
    await settled(second, log)
    assert again.seen == [(await happenings(log))[-1]]  # only the new event
    assert await echoes(log) == [0, 1, 2, 3, 4, 5]
    await reactors.stop()
    await log.close()


async def test_two_runs_of_one_reactor_never_double_its_effects_on_the_log(log, clock, kind):
    await log.append([happened(n) for n in range(20)])
    one, two = ReactorRunner(kind(), log, clock), ReactorRunner(kind(), log, clock)
    reactors = await running(one, two)
    await settled(one, log)
    await settled(two, log)
    await log.append([happened(20)])
    await settled(one, log)
    await settled(two, log)
    assert await echoes(log) == list(range(21))
    await reactors.stop()


async def test_catching_up_reads_the_tail_in_chunks_while_appends_keep_flowing(log, clock):
    tail = 20_000
    await log.transact(lambda _conn: [happened(n) for n in range(tail)], keep=False)
    biggest = 0
    chunks = log.chunks

    def counting_chunks(*args, **kwargs):
        async def counted():
            nonlocal biggest
            async for chunk in chunks(*args, **kwargs):
                biggest = max(biggest, len(chunk))
                yield chunk

        return counted()

    log.chunks = counting_chunks  # type: ignore[method-assign]
    runner = ReactorRunner(Echo(), log, clock, chunk=250)
    reactors = await running(runner)
    while runner.position < 100:
        await asyncio.sleep(0)
    (appended,) = await log.append([happened(tail)])  # answered while the reactor is still catching up
    assert runner.position < tail
    await settled(runner, log)
    assert biggest == 250
    assert await echoes(log) == list(range(tail + 1))
    await reactors.stop()


async def test_a_stopped_reactor_records_how_far_it_got(tmp_path, clock):
    log = await open_log(tmp_path, clock)
    await log.append([happened(0)])
    runner = ReactorRunner(Echo(), log, clock)
    reactors = await running(runner)
    await settled(runner, log)
    await log.append([happened(n) for n in range(1, 4)])
    await settled(runner, log)
    await reactors.stop()
    assert all(task.done() for task in reactors._tasks)
    positions = await log.query(lambda conn: dict(conn.execute("SELECT name, position FROM reactor_positions")))
    await log.close()
    assert positions == {"echo": runner.position}


async def test_after_kill_9_a_reactor_resumes_and_its_effects_on_the_log_are_not_doubled(tmp_path, clock):
    data_dir = tmp_path / "data"
    child = subprocess.Popen([sys.executable, "-m", "tests.reactors.echo_process", str(data_dir)],
                             cwd=Path(__file__).parents[2], stderr=subprocess.PIPE)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while _echo_count(data_dir) < 300:
            assert child.poll() is None, child.stderr.read().decode() if child.stderr else ""
            assert time.monotonic() < deadline, "the child echoed too little"
            await asyncio.sleep(0.05)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)

    log = await open_log(data_dir, clock)
    before = await echoes(log)
    runner = ReactorRunner(Echo(), log, clock)
    reactors = await running(runner)
    await settled(runner, log)
    await reactors.stop()
    after, happened_positions = await echoes(log), await happenings(log)
    echoed_positions = [e.event.of for e in await log.read(types=[ECHOED])]
    await log.close()
    assert len(before) >= 300
    assert after == sorted(after) == list(range(len(happened_positions)))  # once each, none lost
    assert echoed_positions == happened_positions


async def _state(runner: ReactorRunner, state: str) -> None:
    while runner.state != state:
        await asyncio.sleep(0)


def _echo_count(data_dir: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{data_dir / 'events.db'}?mode=ro", uri=True)
        try:
            return conn.execute("SELECT count(*) FROM events WHERE type = ?", (ECHOED,)).fetchone()[0]
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return 0


async def test_a_reactor_stopped_before_it_ran_records_nothing_and_starts_at_the_head_later(log, clock):
    class Newcomer(Echo):
        name = "late"
        from_beginning = False

    await log.append([happened(0)])
    reactors = await running(ReactorRunner(Newcomer(), log, clock))
    await reactors.stop()  # cancelled before its first step
    assert await log.query(tracking.all_positions) == {}
    runner = ReactorRunner(Newcomer(), log, clock)
    reactors = await running(runner)
    await log.append([happened(1)])
    await settled(runner, log)
    assert await echoes(log) == [1]
    await reactors.stop()


async def test_a_serial_reactor_sees_each_reaction_committed_before_the_next_event(log, clock):
    class Careful(Echo):
        name = "careful"
        serial = True

        def __init__(self, event_log: EventLog) -> None:
            super().__init__()
            self.log, self.echoed_before = event_log, []

        async def react(self, event):
            self.echoed_before.append(len(await echoes(self.log)))
            return await super().react(event)

    reactor = Careful(log)
    await log.append([happened(n) for n in range(4)])
    runner = ReactorRunner(reactor, log, clock)
    reactors = await running(runner)
    await settled(runner, log)
    assert reactor.echoed_before == [0, 1, 2, 3]
    await reactors.stop()


class SlowLease(LocalLease):
    """A free lease whose taking takes a while (a database round trip under load)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.free = asyncio.Event()

    async def try_acquire(self) -> bool:
        await self.free.wait()
        return await super().try_acquire()


async def test_a_settled_move_waits_for_a_reactor_still_taking_its_free_lease(log, clock):
    lease = SlowLease("echo")
    runner = ReactorRunner(Echo(), log, clock, lease=lease)
    reactors = await running(runner)
    await log.append([happened(0)])
    waiting = asyncio.ensure_future(reactors.settled(lambda: log.position))
    for _ in range(20):
        await asyncio.sleep(0)
    assert not waiting.done() and runner.state == "starting"  # not standing by: nobody else holds it
    lease.free.set()
    await asyncio.wait_for(waiting, SOON)
    assert await echoes(log) == [0]
    await reactors.stop()


async def test_a_reactor_task_that_dies_shows_as_failed(log, clock):
    class Unreadable(Echo):
        name = "unreadable"

    runner = ReactorRunner(Unreadable(), log, clock)
    runner.run = _boom  # type: ignore[method-assign]
    reactors = await running(runner)
    await asyncio.wait_for(_state(runner, "failed"), SOON)
    assert reactors.failing == ["unreadable"] and runner.health()["last_error"] == "OSError"
    await reactors.stop()


async def _boom() -> None:
    raise OSError("disk gone")


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _write_tail(path: Path, count: int) -> None:
    """`count` small events written straight into a new log, hash-chained as the writer chains them (a
    start checks the last one)."""
    conn = sqlite_store.connect(path)
    conn.execute("PRAGMA synchronous=OFF")
    meta, data, at = b"{}", b'{"n":0}', "2026-01-01T00:00:00.000000Z"

    def chained():
        previous = GENESIS
        for p in range(1, count + 1):
            previous = chain_hash(previous, canonical_bytes(p, "tail", p, HAPPENED, 1, at, data, meta))
            yield p, "tail", p, HAPPENED, 1, data, meta, at, previous

    rows = chained()
    conn.execute("BEGIN")
    conn.executemany(f"INSERT INTO events ({sqlite_store.COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)", rows)
    conn.execute("COMMIT")
    conn.close()


async def test_catching_up_over_a_million_events_keeps_memory_flat_and_appends_flowing(tmp_path, clock):
    class Counter(Echo):
        name = "counter"

        def __init__(self) -> None:
            super().__init__()
            self.count = 0

        async def react(self, event):
            self.count += 1  # reacts to all, appends nothing: the cost is reading the tail

    tail = 1_000_000
    _write_tail(tmp_path / "events.db", tail)
    log = await open_log(tmp_path, clock)
    counter = Counter()
    runner = ReactorRunner(counter, log, clock, chunk=1000)
    before = peak = _rss_mb()
    reactors = await running(runner)
    for step in range(1, 11):
        await asyncio.wait_for(runner.reached(tail * step // 10), 60)
        peak = max(peak, _rss_mb())
        if step == 5:
            await log.append([happened(0)])  # answered half way through the catch-up
            assert runner.position < tail
    await settled(runner, log)
    await reactors.stop()
    await log.close()
    assert counter.count == tail + 1
    assert peak - before < 40, f"resident memory grew by {peak - before:.0f} MB while catching up"
