"""A server killed with SIGKILL under write load keeps every write it acknowledged."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from .serving import SERVICE, Server, log_env, logged_events, login, telephony

WRITES = 200
CONCURRENCY = 32
KILL_AFTER = 60
"""Acknowledged writes after which the server is killed."""
PAGE = 50
LOAD_TIMEOUT = 60


class Load:
    """POST /apitokens with distinct names from concurrent tasks; remembers which got a 201."""

    def __init__(self, server: Server, token: str) -> None:
        self.server, self.token = server, token
        self.pending = [f"crash-{i:03d}" for i in range(WRITES)]
        self.acknowledged: set[str] = set()
        self.reached = asyncio.Event()

    async def run(self) -> None:
        timeout = aiohttp.ClientTimeout(total=10)
        async with aiohttp.ClientSession(timeout=timeout, headers={"X-Auth-Token": self.token}) as session:
            await asyncio.gather(*(self._worker(session) for _ in range(CONCURRENCY)))

    async def _worker(self, session: aiohttp.ClientSession) -> None:
        while self.pending:
            name = self.pending.pop()
            try:
                async with session.post(f"{self.server.url}{SERVICE}/apitokens", json={"name": name}) as response:
                    if response.status == 201:
                        self.acknowledged.add(name)
            except (TimeoutError, aiohttp.ClientError):
                continue
            if len(self.acknowledged) >= KILL_AFTER:
                self.reached.set()


async def kill_part_way(load: Load) -> None:
    await asyncio.wait_for(load.reached.wait(), LOAD_TIMEOUT)
    load.server.kill()


async def listed_names(server: Server) -> set[str]:
    """Every API token name GET /apitokens shows, page by page."""
    names: set[str] = set()
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as session:
        headers = {"X-Auth-Token": await login(session, server.url)}
        for page in range(1, WRITES // PAGE + 2):
            url = f"{server.url}{SERVICE}/apitokens?limit={PAGE}&page={page}"
            async with session.get(url, headers=headers) as response:
                assert response.status == 200, await response.text()
                body = await response.json()
            names |= {item["name"] for item in body["data"]}
            if page * PAGE >= body["total"]:
                return names
    raise AssertionError("more API tokens listed than were ever written")


@pytest.fixture
def servers(tmp_path, telephony_eventlog_url):
    """`servers()`: a new server on the test's data dir and log (on each store `--store` names)."""
    started: list[Server] = []

    def make() -> Server:
        started.append(Server(tmp_path / "data", tmp_path, **log_env(telephony_eventlog_url)))
        return started[-1]

    yield make
    for server in started:
        server.stop()


async def test_every_acknowledged_write_survives_a_kill_under_load(tmp_path, servers, telephony_eventlog_url):
    first = servers()
    await first.start()
    async with aiohttp.ClientSession() as session:
        load = Load(first, await login(session, first.url))
    await asyncio.wait_for(asyncio.gather(load.run(), kill_part_way(load)), LOAD_TIMEOUT)
    assert KILL_AFTER <= len(load.acknowledged) < WRITES

    second = servers()
    await second.start()
    assert load.acknowledged <= await listed_names(second)
    second.stop()

    env = log_env(telephony_eventlog_url)
    issued = logged_events(tmp_path / "data", "--type", "token.issued", cwd=tmp_path, **env)
    assert load.acknowledged <= {event["data"]["name"] for event in issued}
    verified = telephony("--data-dir", tmp_path / "data", "verify", cwd=tmp_path, **env)
    assert verified.returncode == 0, verified.stdout + verified.stderr
