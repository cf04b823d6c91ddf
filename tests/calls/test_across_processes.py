"""Two apps on one PostgreSQL log in one test, each standing for a process: the web calls' per-minute
limit is one count for both, and a lease lost while its holder lives passes to the other and back.

A lease is lost by terminating its session from the test (`pg_terminate_backend`), as a server
restart or a cut network ends it; the apps' reports of it (their log records) are waited for with a
timeout, in real time. The domain's time is the controllable clock, moved through the control
endpoint."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Iterator

import psycopg
import pytest

from telephony.app import create_app
from telephony.clock import Clock
from telephony.config import Control, EventLogSettings, Settings, Simulator, Storage
from telephony.eventlog.pg_lease import lease_key
from telephony.keys import DUTIES, EVENT_LOG, REACTORS
from telephony.reactors.reactor import ReactorRunner
from tests.accounts.helpers import error_of, login, url
from tests.calls.conftest import ANSWERS, RULES
from tests.calls.helpers import advance, call_events, place
from tests.serving import CONTROL_KEY

SIMULATOR, DISPATCHER = "call-simulator", "webhook-dispatcher"
WAIT = 15.0
"""Real seconds a report is waited for (a lost lease is noticed within about 1 s)."""


@pytest.fixture
def shared(tmp_path, postgres_cluster) -> Settings:
    """One data dir and one PostgreSQL log for both apps, a limit of 3 web calls a minute."""
    simulator = Simulator(seed=7, own_answer_seconds=1.0, webcalls_per_minute=3, destinations=RULES)
    return Settings(storage=Storage(data_dir=str(tmp_path / "data")), control=Control(key=CONTROL_KEY),
                    eventlog=EventLogSettings(url=postgres_cluster.app_url()), simulator=simulator)  # fmt: skip


@pytest.fixture
async def first(aiohttp_client, shared):
    return await aiohttp_client(create_app(shared, clock=Clock.virtual()))


@pytest.fixture
async def second(aiohttp_client, shared, first):
    return await aiohttp_client(create_app(shared, clock=Clock.virtual()))


@pytest.fixture
def reports() -> Iterator[Reports]:
    reports = Reports()
    logger = logging.getLogger("telephony")
    logger.addHandler(reports)
    level = logger.level
    logger.setLevel(logging.INFO)
    yield reports
    logger.removeHandler(reports)
    logger.setLevel(level)


class Reports(logging.Handler):
    """The apps' log records, and a way to wait for the next one that says something."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.seen: list[str] = []
        self._arrived = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(record.getMessage())
        self._arrived.set()

    def next(self, saying: str) -> Awaitable[str]:
        """The next record from now holding `saying`, waited for at most `WAIT` real seconds."""
        start = len(self.seen)

        async def arrived() -> str:
            while not (found := [m for m in self.seen[start:] if saying in m]):
                self._arrived.clear()
                await self._arrived.wait()
            return found[0]

        return asyncio.wait_for(arrived(), WAIT)


async def end_sessions(url_: str, *names: str) -> None:
    """End the sessions holding the leases `names` on the log at `url_`, as a server restart would."""
    async with await psycopg.AsyncConnection.connect(url_, autocommit=True) as conn:
        for name in names:
            key = lease_key(name, "public") & 0xFFFFFFFFFFFFFFFF
            ended = await (await conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted "
                "AND classid::bigint = %s AND objid::bigint = %s AND objsubid = 1", (key >> 32, key & 0xFFFFFFFF)
            )).fetchall()  # fmt: skip
            assert ended == [(True,)], name


async def leases_in_health(client) -> list[str]:
    """The leases `GET /_telephony/health` says the process holds."""
    return (await (await client.get("/_telephony/health")).json())["leases"]


def dispatcher(client) -> ReactorRunner:
    (runner,) = [runner for runner in client.app[REACTORS].runners if runner.name == DISPATCHER]
    return runner


async def answered_legs(client, call_id: int) -> list[str]:
    return [data["leg"] for type_, data in await call_events(client, call_id) if type_ == "call.answered"]


async def test_the_web_calls_per_minute_limit_is_one_count_across_processes(first, second, shared):
    root = await login(first, "v1.2", shared.bootstrap.admin_email, shared.bootstrap.admin_password)
    body = {"from": "447700900001", "to": ANSWERS + "1"}
    for client in (first, second, first):  # the limit, split across both
        await place(client, root, path="/webcalls", **body)
    for client in (first, second):
        response = await client.post(url("v1.2", "/webcalls"), json=body, headers=root.headers())
        assert (await error_of(response, 400))["message"] == "Maximum per minute call rate exceeded"
    await advance(second, 60)
    await place(second, root, path="/webcalls", **body)
    await place(first, root, path="/webcalls", **body)
    placed = await first.app[EVENT_LOG].read()
    assert len([e for e in placed if e.type == "call.placed"]) == 5  # the refused ones recorded nothing


async def test_a_lease_lost_while_its_holder_lives_passes_to_the_other_process_and_back(first, second, shared, reports):
    root = await login(first, "v1.2", shared.bootstrap.admin_email, shared.bootstrap.admin_password)
    assert SIMULATOR in first.app[DUTIES].held and second.app[DUTIES].held == []
    ringing = (await place(first, root, to=ANSWERS + "1"))["data"]["id"]
    await advance(first, 2)  # the user's own phone answered: the destination rings, answering 5 s later
    assert await answered_legs(first, ringing) == ["src"]

    lost = [reports.next(f"lease {SIMULATOR} lost"), reports.next(f"lease {DISPATCHER} lost")]
    taken = reports.next(f"lease {SIMULATOR} taken over")
    await end_sessions(shared.eventlog.url, SIMULATOR, DISPATCHER)
    await asyncio.gather(*lost)
    await taken
    assert SIMULATOR not in first.app[DUTIES].held and SIMULATOR in second.app[DUTIES].held
    assert SIMULATOR in await leases_in_health(second) and SIMULATOR not in await leases_in_health(first)
    assert first.app[REACTORS].health()[DISPATCHER]["state"] == "standby"
    await asyncio.wait_for(dispatcher(second).reached(second.app[EVENT_LOG].position), WAIT)

    await advance(first, 5)  # moved on the process that lost the lease: the other takes the step
    assert await answered_legs(second, ringing) == ["src", "dst"]  # once
    assert first.app[REACTORS].health()[DISPATCHER]["state"] == "standby"

    taken_back = reports.next(f"lease {SIMULATOR} taken over")
    await second.close()  # the other process goes: the first takes its leases again
    await taken_back
    assert SIMULATOR in first.app[DUTIES].held
    await asyncio.wait_for(dispatcher(first).reached(first.app[EVENT_LOG].position), WAIT)
    assert first.app[REACTORS].health()[DISPATCHER]["state"] == "following"
    again = (await place(first, root, to=ANSWERS + "2"))["data"]["id"]
    await advance(first, 7)
    assert await answered_legs(first, again) == ["src", "dst"]
    assert await answered_legs(first, ringing) == ["src", "dst"]
