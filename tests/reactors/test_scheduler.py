"""Timers on clock time: one-shot and periodic jobs, keyed, cancellable, run in due order."""

from __future__ import annotations

import asyncio

import pytest

from telephony.clock import Clock
from telephony.reactors.scheduler import Scheduler

START = 1_800_000_000.0


@pytest.fixture
def clock() -> Clock:
    return Clock.virtual(START)


@pytest.fixture
async def scheduler(clock):
    started = Scheduler(clock)
    started.start()
    yield started
    await started.stop()


def recorder(clock: Clock, ran: list, name: str):
    async def job() -> None:
        ran.append((name, clock.time() - START))

    return job


async def test_a_one_shot_job_runs_once_when_the_clock_reaches_it(scheduler, clock):
    ran: list = []
    scheduler.at(START + 30, "once", recorder(clock, ran, "once"))
    assert await scheduler.advance_to(START + 29) == 0
    assert await scheduler.advance_to(START + 100) == 1
    assert await scheduler.advance_to(START + 1000) == 0
    assert ran == [("once", 30)]
    assert scheduler.pending == 0


async def test_moving_the_clock_runs_every_due_job_in_time_order_each_at_its_own_time(scheduler, clock):
    ran: list = []
    for offset in (50, 10, 40, 20, 30):
        scheduler.at(START + offset, f"at-{offset}", recorder(clock, ran, f"at-{offset}"))
    assert await scheduler.advance_to(START + 45) == 4
    assert ran == [("at-10", 10), ("at-20", 20), ("at-30", 30), ("at-40", 40)]
    assert clock.time() == START + 45


async def test_a_cancelled_job_never_runs_and_a_key_names_one_job(scheduler, clock):
    ran: list = []
    scheduler.at(START + 10, "a", recorder(clock, ran, "first"))
    scheduler.at(START + 20, "a", recorder(clock, ran, "replaced"))
    scheduler.at(START + 15, "b", recorder(clock, ran, "b"))
    assert scheduler.cancel("b") is True
    assert scheduler.cancel("b") is False
    assert scheduler.due("a") == START + 20
    await scheduler.advance_to(START + 60)
    assert ran == [("replaced", 20)]


async def test_jobs_added_by_jobs_run_in_the_same_move_when_they_fall_due_in_it(scheduler, clock):
    ran: list = []

    async def chain() -> None:
        ran.append(("chain", clock.time() - START))
        if len(ran) < 3:
            scheduler.at(clock.time() + 5, "chain", chain)

    scheduler.at(START + 5, "chain", chain)
    assert await scheduler.advance_to(START + 100) == 3
    assert ran == [("chain", 5), ("chain", 10), ("chain", 15)]


async def test_a_periodic_job_runs_each_period_and_coalesces_missed_ones(scheduler, clock):
    ran: list = []
    scheduler.every(60, "tick", recorder(clock, ran, "tick"))
    await scheduler.advance_to(START + 130)
    assert ran == [("tick", 60), ("tick", 120)]
    ran.clear()
    await scheduler.advance_to(START + 130 + 86_400)  # a day: the first missed period and the last one
    assert ran == [("tick", 180), ("tick", 86_520)]


async def test_a_failing_job_is_logged_and_the_others_still_run(scheduler, clock, caplog):
    ran: list = []

    async def broken() -> None:
        raise RuntimeError("boom")

    scheduler.at(START + 1, "broken", broken)
    scheduler.at(START + 2, "fine", recorder(clock, ran, "fine"))
    assert await scheduler.advance_to(START + 3) == 2
    assert ran == [("fine", 2)]
    assert "scheduled job broken failed" in caplog.text


async def test_derived_timers_are_added_at_start_and_the_scheduler_keeps_nothing_else(clock):
    ran: list = []
    pending = {"k1": START + 10, "k2": START + 20}  # what a projection knows

    def source():
        for key, due in pending.items():
            yield due, key, recorder(clock, ran, key)

    first = Scheduler(clock)
    first.derive(source)
    first.start()
    await first.advance_to(START + 15)
    await first.stop()
    del pending["k1"]  # the projection saw k1 done

    second = Scheduler(clock)  # a restart: a new scheduler, the same projection
    second.derive(source)
    second.start()
    await second.advance_to(START + 30)
    await second.stop()
    assert ran == [("k1", 10), ("k2", 20)]


async def test_ten_thousand_pending_one_shot_jobs_all_run_in_due_order(scheduler, clock):
    ran: list[float] = []

    def job_at(due: float):
        async def job() -> None:
            ran.append(due)

        return job

    dues = [START + ((i * 7919) % 10_000) + 1 for i in range(10_000)]
    for i, due in enumerate(dues):
        scheduler.at(due, f"job-{i}", job_at(due))
    for i in range(0, 10_000, 2):
        scheduler.cancel(f"job-{i}")
    assert scheduler.pending == 5_000
    assert await scheduler.advance_to(START + 20_000) == 5_000
    assert ran == sorted(dues[1::2])


async def test_a_flowing_clock_fires_timers_by_real_time(clock):
    flowing = Clock()
    scheduler = Scheduler(flowing)
    scheduler.start()
    fired = []

    async def job() -> None:
        fired.append(flowing.time())

    try:
        scheduler.at(flowing.time() + 0.05, "soon", job)
        await flowing.wait_until(flowing.time() + 0.3)
        assert len(fired) == 1
    finally:
        await scheduler.stop()


class Ticking:
    """Wall-clock time that has gone on by `step` seconds at each reading, as on a busy machine where
    time passes between any two readings."""

    def __init__(self, start: float, step: float) -> None:
        self.now, self.step = start, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


async def test_a_move_of_a_flowing_clock_never_sets_it_back_for_a_timer_it_passed_meanwhile():
    flowing = Clock(START, wall=Ticking(START, step=1.0))
    scheduler = Scheduler(flowing)
    scheduler.start()
    seen: list[tuple[float, float]] = []

    def job_at(due: float):
        async def job() -> None:
            seen.append((due, flowing.time()))

        return job

    dues = [START + 10 + n * 2.5 for n in range(20)]  # each falls due between two readings of the clock
    for n, due in enumerate(dues):
        scheduler.at(due, f"half-{n}", job_at(due))
    try:
        assert await scheduler.advance_to(START + 100) == 20
    finally:
        await scheduler.stop()
    assert [due for due, _ in seen] == dues
    assert all(at >= due for due, at in seen)  # at its due time, or later when the clock had passed it
    assert [at for _, at in seen] == sorted(at for _, at in seen)  # the clock never went back
    assert flowing.time() >= START + 100


async def test_stopping_lets_a_job_the_alarm_runs_finish_instead_of_cancelling_it():
    flowing = Clock()
    scheduler = Scheduler(flowing)
    scheduler.start()
    started, release = asyncio.Event(), asyncio.Event()
    finished: list[str] = []

    async def appending() -> None:
        started.set()
        await release.wait()  # its append is under way
        finished.append("appended")

    scheduler.at(flowing.time(), "due-now", appending)  # the alarm rings at once
    await asyncio.wait_for(started.wait(), 10)
    stopping = asyncio.ensure_future(scheduler.stop())
    for _ in range(10):
        await asyncio.sleep(0)
    assert not stopping.done()  # it waits for the job
    release.set()
    await asyncio.wait_for(stopping, 10)
    assert finished == ["appended"]
    scheduler.at(flowing.time(), "after-stop", appending)
    assert await scheduler.run_due() == 0  # a stopped scheduler takes no more
