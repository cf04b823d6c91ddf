"""Reactors and in-memory projections inside the real app: health, verify, shutdown, the clock."""

from __future__ import annotations

import asyncio

import pytest

from telephony.accounts.sessions import SessionIndex
from telephony.app import create_app
from telephony.clock import Clock
from telephony.keys import EVENT_LOG, MEMORY, REACTORS, READER, SCHEDULER
from telephony.projections import Projections
from telephony.wiring import read_models
from tests.accounts.helpers import advance
from tests.serving import ADMIN, SERVICE, login

from .kinds import HAPPENED, THINGS, Echo, happened
from .test_scheduler import START, Ticking

CONTROL = {"X-Control-Key": "test-control-key-0123456789"}


class Watcher(Echo):
    """Echoes `thing.happened`, and fails while `broken_at` is set."""

    name = "watcher"


@pytest.fixture(autouse=True)
def things(monkeypatch):
    """The app's log takes the contract tests' own events besides its own."""
    made = read_models.projection_set
    monkeypatch.setattr(read_models, "projection_set", lambda url="": Projections(made(url).all, THINGS))


async def health(client) -> tuple[int, dict]:
    response = await client.get("/_telephony/health")
    return response.status, await response.json()


async def test_health_shows_each_reactor_and_a_failing_one_degrades_it_until_it_recovers(
    aiohttp_client, settings, clock
):
    watcher = Watcher()
    watcher.broken_at = 0
    app = create_app(settings, clock=clock, reactors=[watcher])
    client = await aiohttp_client(app)
    runner, log = next(r for r in app[REACTORS].runners if r.name == "watcher"), app[EVENT_LOG]
    await log.append([happened(1)])
    while runner.state != "failing":
        await asyncio.sleep(0)
    status, body = await health(client)
    assert status == 503 and body["status"] == "degraded"
    assert body["reactors"]["watcher"]["state"] == "failing"
    assert body["reactors"]["watcher"]["last_error"] == "RuntimeError"  # the class only: health is open
    assert body["reactors"]["watcher"]["retry_at"] is not None
    await login(client)  # writes go on while a reactor fails

    watcher.broken_at = None
    await advance(client, 1)  # past the first retry: the reactor tries again
    await asyncio.wait_for(runner.reached(log.position), 10)
    while runner.state != "following":
        await asyncio.sleep(0)
    status, body = await health(client)
    assert status == 200 and body["reactors"]["watcher"]["state"] == "following"
    assert watcher.seen and all(e.type == HAPPENED for e in await log.read(types=[HAPPENED]))


async def test_the_apps_reactor_tasks_are_cancelled_and_awaited_at_shutdown(aiohttp_client, settings, clock):
    app = create_app(settings, clock=clock, reactors=[Watcher()])
    client = await aiohttp_client(app)
    tasks = app[REACTORS]._tasks
    assert tasks and not any(task.done() for task in tasks)
    await client.close()
    assert all(task.done() for task in tasks)


async def test_verify_compares_the_live_in_memory_projections_with_a_fresh_fold(client):
    await login(client)
    response = await client.post("/_telephony/verify", headers=CONTROL)
    body = (await response.json())["data"]
    assert response.status == 200 and body["problem"] is None and "sessions" in body["compared"]

    sessions = client.app[MEMORY][SessionIndex]
    sessions.by_id.popitem()  # the live index drifts from the log
    body = (await (await client.post("/_telephony/verify", headers=CONTROL)).json())["data"]
    assert body["problem"] and "'sessions'" in body["problem"]


async def test_a_moved_clock_stays_moved_after_a_restart(aiohttp_client, settings, clock):
    first = await aiohttp_client(create_app(settings, clock=clock))
    moved = await advance(first, 86_400)
    await first.close()
    restarted = Clock.virtual()
    second = await aiohttp_client(create_app(settings, clock=restarted))
    assert restarted.time() == moved["epoch"]
    response = await second.post(f"{SERVICE}/login", json=ADMIN)
    assert response.status == 200


async def test_health_reports_a_log_that_takes_no_appends(aiohttp_client, settings, clock):
    app = create_app(settings, clock=clock)
    client = await aiohttp_client(app)
    await app[EVENT_LOG]._writer.close()  # the writer is gone, as after a fault
    status, body = await health(client)
    assert status == 503 and body["status"] == "degraded" and body["writing"] is False
    response = await client.post(f"{SERVICE}/login", json=ADMIN)
    assert response.status == 503  # nothing can be recorded: the answer says so, without internals
    assert "cannot record changes" in (await response.json())["message"]


async def test_moving_a_flowing_clock_past_timers_it_passes_meanwhile_answers_200(aiohttp_client, settings):
    flowing = Clock(START, wall=Ticking(START, step=1.0))  # a second goes by at each reading of the clock
    app = create_app(settings, clock=flowing)
    client = await aiohttp_client(app)
    ran: list[bool] = []

    def job_at(due: float):
        async def job() -> None:
            ran.append(flowing.time() >= due)

        return job

    for n in range(20):
        due = flowing.time() + 10 + n * 2.5
        app[SCHEDULER].at(due, f"probe-{n}", job_at(due))
    response = await client.post("/_telephony/clock", json={"advance": 100}, headers=CONTROL)
    assert response.status == 200, await response.text()
    assert ran == [True] * 20


async def test_advancing_a_flowing_clock_by_no_time_is_no_move_backwards(aiohttp_client, settings):
    flowing = Clock(START, wall=Ticking(START, step=1.0))
    client = await aiohttp_client(create_app(settings, clock=flowing))
    response = await client.post("/_telephony/clock", json={"advance": 0}, headers=CONTROL)
    assert response.status == 200, await response.text()
    flowing.advance(0)


async def test_an_append_that_commits_while_the_app_closes_is_not_followed_by_the_closed_reader(
    aiohttp_client, settings, clock, caplog
):
    app = create_app(settings, clock=clock)
    client = await aiohttp_client(app)
    log, reader = app[EVENT_LOG], app[READER]
    close, under_way = reader.close, []

    async def close_with_an_append_under_way() -> None:
        under_way.append(asyncio.ensure_future(log.append([happened(1)])))  # a request cancelled at shutdown
        await close()

    reader.close = close_with_an_append_under_way  # type: ignore[method-assign]
    await client.close()
    assert [event.type for event in await under_way[0]] == [HAPPENED]
    assert log.follower_failures == {} and "commit follower" not in caplog.text


class Dawdling(Echo):
    """Echoes `thing.happened` with the clock's time as it reacts, after letting the loop run a while."""

    name = "dawdling"

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock, self.times = clock, []

    async def react(self, event):
        for _ in range(50):
            await asyncio.sleep(0)
        self.times.append(self.clock.time() - START)
        return await super().react(event)


async def test_a_settled_clock_move_lets_the_reactors_react_at_the_time_of_each_timer_a_failing_one_not_waited_for(
    aiohttp_client, settings
):
    clock, broken = Clock.virtual(START), Watcher()
    broken.broken_at = 0
    dawdling = Dawdling(clock)
    app = create_app(settings, clock=clock, reactors=[dawdling, broken])
    client = await aiohttp_client(app)
    for n, due in enumerate((5, 10, 10.5)):
        app[SCHEDULER].at(START + due, f"happen-{n}", lambda n=n: app[EVENT_LOG].append([happened(n)]))
    response = await client.post("/_telephony/clock", json={"advance": 30, "settle": True}, headers=CONTROL)
    assert response.status == 200, await response.text()
    assert dawdling.times == [5, 10, 10.5]
    echoes = await app[EVENT_LOG].read(types=["thing.echoed"])
    assert [e.recorded_at[11:21] for e in echoes] == ["08:00:05.0", "08:00:10.0", "08:00:10.5"]
