"""Two server processes on one PostgreSQL log behind a round-robin client: real processes, real HTTP.

Every write answered by one process is read on the other at once; a live call placed on one is
controlled on the other; the process holding the simulator's lease killed with SIGKILL during 100
live calls hands them to the other within 5 s of real time, and every call ends once, with one CDR.
The domain's time is the controllable clock, moved through the control endpoint; the take-over is
measured in real time, waiting on the survivor's own report of it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator
from itertools import cycle
from pathlib import Path

import aiohttp
import pytest

from .serving import CONTROL_KEY, SERVICE, Server, clean_env, login

pytestmark = pytest.mark.slow
ANSWERS = "+447000100"
CONFIG = f"""
[simulator]
seed = 7
webcalls_per_minute = 1000
default_registrations = 100

[[simulator.destinations]]
prefix = "{ANSWERS}"
outcome = "answer"
ring_seconds = 5.0
talk_seconds = 60.0
"""
TRIES = 10_000
CONCURRENCY = 8
TAKE_OVER_SECONDS = 5
CONTROL = {"X-Control-Key": CONTROL_KEY}


@pytest.fixture
def cluster(postgres_cluster, tmp_path):
    """Two servers on one schema and one data dir; the first started first holds every lease."""
    (tmp_path / "config.toml").write_text(CONFIG)
    url = postgres_cluster.schema_url()
    servers = [Server(tmp_path / "data", tmp_path, TELEPHONY_EVENTLOG_URL=url) for _ in range(2)]
    yield url, servers
    for server in servers:
        server.stop()


@contextlib.asynccontextmanager
async def round_robin(servers: list[Server]) -> AsyncIterator[RoundRobin]:
    """The servers started in order, and a client of theirs logged in as the admin, with the control key."""
    for server in servers:
        await server.start(timeout=120)
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as session:
        session.headers["X-Auth-Token"] = await login(session, servers[0].url)
        session.headers.update(CONTROL)
        yield RoundRobin(session, servers)


class RoundRobin:
    """One session whose requests go to each server in turn (`to` picks one)."""

    def __init__(self, session: aiohttp.ClientSession, servers: list[Server]) -> None:
        self.session, self.servers, self._next = session, servers, cycle(servers)

    async def call(self, method: str, path: str, body: object = None, to: Server | None = None,
                   status: int = 200) -> dict:  # fmt: skip
        server = to or next(self._next)
        async with self.session.request(method, f"{server.url}{path}", json=body) as response:
            text = await response.text()
            assert response.status == status, (server.url, method, path, response.status, text)
            return json.loads(text) if text else {}


async def test_a_write_on_one_process_is_read_on_the_other_at_once_in_ten_thousand_tries(cluster):
    _, servers = cluster
    async with round_robin(servers) as client:
        stale: list[int] = []

        async def tries(lane: int) -> None:
            for n in range(lane, TRIES, CONCURRENCY):
                writer, reader = servers[n % 2], servers[(n + 1) % 2]
                name = f"Try {n}"
                created = await client.call("POST", f"{SERVICE}/contacts", {"first_name": name}, writer, 201)
                contact_id = created["data"]["id"]
                async with client.session.get(f"{reader.url}{SERVICE}/contacts/{contact_id}") as response:
                    body = await response.json()
                    if response.status != 200 or body["data"]["first_name"] != name:
                        stale.append(n)

        await asyncio.gather(*(tries(lane) for lane in range(CONCURRENCY)))
        listed = await client.call("GET", f"{SERVICE}/contacts?limit=1")
    assert stale == []
    assert listed["total"] >= TRIES


async def test_a_live_call_placed_on_one_process_is_hung_up_on_the_other(cluster):
    _, servers = cluster
    first, second = servers
    async with round_robin(servers) as client:
        call_id = (await client.call("POST", f"{SERVICE}/calls", {"to": ANSWERS + "1"}, first, 201))["data"]["id"]
        await client.call("POST", "/_telephony/clock", {"advance": 10}, second)  # not the simulator's lease holder
        talking = await client.call("GET", f"{SERVICE}/calls/{call_id}", to=second)
        assert talking["data"]["state"] == "CONNECTED"  # the holder took the steps before the move was answered
        await client.call("DELETE", f"{SERVICE}/calls/{call_id}", to=second, status=204)
        await client.call("GET", f"{SERVICE}/calls/{call_id}", to=first, status=404)
        cdrs = await client.call("GET", f"{SERVICE}/cdrs?filter=" + by_live_id(call_id), to=first)
    (cdr,) = cdrs["data"]
    assert cdr["t_cause"] == "normal clearing"


async def test_killing_the_simulator_s_lease_holder_during_100_live_calls_hands_every_call_to_the_other(
    cluster, tmp_path
):
    url, servers = cluster
    holder, survivor = servers
    async with round_robin(servers) as client:
        placed = await asyncio.gather(*(client.call("POST", f"{SERVICE}/calls", {"to": f"{ANSWERS}{n:03d}"},
                                                    status=201) for n in range(100)))  # fmt: skip
        ids = [answer["data"]["id"] for answer in placed]
        await client.call("POST", "/_telephony/clock", {"advance": 3, "settle": True}, holder)
        live = await client.call("GET", f"{SERVICE}/calls?limit=200", to=survivor)
        assert {call["id"] for call in live["data"]} >= set(ids)  # every call still live, mid-ring
        holder.kill()
        killed = time.monotonic()
        await taken_over(survivor, "call-simulator", killed + TAKE_OVER_SECONDS)
        took = time.monotonic() - killed
        await client.call("POST", "/_telephony/clock", {"advance": 120, "settle": True}, survivor)
        cdrs = await client.call("GET", f"{SERVICE}/cdrs?limit=200", to=survivor)
        live = await client.call("GET", f"{SERVICE}/calls?limit=200", to=survivor)
    survivor.stop()
    assert took < TAKE_OVER_SECONDS
    assert [call["id"] for call in live["data"] if call["id"] in ids] == []
    assert Counter(cdr["live_id"] for cdr in cdrs["data"] if cdr["live_id"] in ids) == dict.fromkeys(ids, 1)
    ended = Counter(event["stream"] for event in logged(url, tmp_path, "--type", "call.ended"))
    assert {f"call-{call_id}": ended[f"call-{call_id}"] for call_id in ids} == {f"call-{i}": 1 for i in ids}
    verified = command(url, tmp_path, "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr


async def test_serve_with_two_workers_shares_one_port_reports_a_dead_worker_and_stops_the_rest_on_sigterm(
    postgres_cluster, tmp_path
):
    server = Server(tmp_path / "data", tmp_path, "--workers", "2", TELEPHONY_EVENTLOG_URL=postgres_cluster.schema_url())
    await server.start(timeout=120)
    try:
        said = await said_in(server, r"2 workers on port \d+, pids (\d+) (\d+)")
        first, second = (int(pid) for pid in said.groups())
        await said_in(server, r"(telephony listening on .*\n(.*\n)*){2}")  # both workers serve
        os.kill(first, signal.SIGKILL)
        await said_in(server, rf"worker {first} ended with status -9; 1 left, not restarted")
        async with aiohttp.ClientSession() as session:
            for _ in range(20):  # every connection now reaches the worker left
                async with session.get(f"{server.url}/_telephony/health") as response:
                    assert response.status == 200
        assert server.process is not None
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=60) == 0
        with pytest.raises(ProcessLookupError):
            os.kill(second, 0)
    finally:
        server.stop()


async def said_in(server: Server, pattern: str, timeout: float = 60) -> re.Match[str]:
    """Wait for `server`'s output to match `pattern` (a real event: what it prints)."""
    deadline = time.monotonic() + timeout
    while (found := re.search(pattern, server.output.read_text())) is None:
        assert time.monotonic() < deadline, f"{pattern!r} not said:\n{server.output.read_text()[-2000:]}"
        await asyncio.sleep(0.05)
    return found


async def taken_over(server: Server, lease: str, deadline: float) -> None:
    """Wait for `server` to say it took `lease` over (its log line), until `deadline` (monotonic)."""
    await said_in(server, f"lease {lease} taken over", deadline - time.monotonic())


def by_live_id(call_id: int) -> str:
    return json.dumps([{"property": "live_id", "operator": "=", "value": call_id}])


def command(url: str, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`telephony ARGS` on the PostgreSQL log at `url`."""
    env = clean_env(TELEPHONY_EVENTLOG_URL=url, TELEPHONY_CONTROL_KEY=CONTROL_KEY)
    return subprocess.run([sys.executable, "-m", "telephony", "--data-dir", str(cwd / "data"), *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=300, check=False)  # fmt: skip


def logged(url: str, cwd: Path, *filters: str) -> list[dict]:
    done = command(url, cwd, "log", "--json", *filters)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]
