"""`telephony serve --demo` as a process, on real time: health at once while a new demo's history is
made, and the live traffic of a demo dir made before, on the real clock."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import pytest

from telephony import demo
from tests.serving import SERVICE, Server, log_env

HEALTH_WITHIN = 3.0


async def cdr_total(session: aiohttp.ClientSession, server: Server, token: str) -> int:
    async with session.get(f"{server.url}{SERVICE}/cdrs", headers={"X-Auth-Token": token}) as response:
        assert response.status == 200, await response.text()
        return (await response.json())["total"]


async def login_root(session: aiohttp.ClientSession, server: Server, seed: int) -> str:
    body = {"email": demo.plan_for(seed).root.email, "password": demo.PASSWORD}
    async with session.post(f"{server.url}{SERVICE}/login", json=body) as response:
        assert response.status == 200, await response.text()
        return (await response.json())["user_token"]


async def test_a_new_demo_answers_health_within_three_seconds_of_start(tmp_path):
    server = Server(tmp_path / "data", tmp_path, "--demo", "--seed", "2")
    began = time.monotonic()
    try:
        await server.start(timeout=HEALTH_WITHIN + 5)
        took = time.monotonic() - began
        assert took <= HEALTH_WITHIN, f"healthy after {took:.2f}s"
        assert (tmp_path / "data" / demo.MARKER_FILE).exists()
    finally:
        server.stop()
    assert "demo-password" in server.output.read_text()


async def test_a_demo_dir_made_before_starts_its_live_traffic_on_real_time(make_demo, tmp_path):
    made = await make_demo(seed=1, data_dir=tmp_path / "data")
    await made.server.close()
    server = Server(tmp_path / "data", tmp_path, "--demo", "--rate", "600", **log_env(made.demo.settings.eventlog.url))
    began = time.monotonic()
    try:
        await server.start(timeout=HEALTH_WITHIN + 5)
        assert time.monotonic() - began <= HEALTH_WITHIN
        async with aiohttp.ClientSession() as session:
            token = await login_root(session, server, 1)
            before, calls, after = await cdr_total(session, server, token), [], 0
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not (calls and after > before):
                async with session.get(f"{server.url}{SERVICE}/calls", headers={"X-Auth-Token": token}) as response:
                    calls = calls or (await response.json())["data"]
                after = await cdr_total(session, server, token)
                await asyncio.sleep(0.2)
        assert calls and after > before, server.output.read_text()[-2000:]
    finally:
        server.stop()


@pytest.mark.slow
async def test_a_new_demo_shows_live_calls_and_new_cdrs_within_a_minute(tmp_path):
    """The command's own ninety days of history, then the traffic: the whole real-time path."""
    server = Server(tmp_path / "data", tmp_path, "--demo", "--rate", "60")
    began = time.monotonic()
    try:
        await server.start(timeout=HEALTH_WITHIN + 5)
        async with aiohttp.ClientSession() as session:
            seen_live, history_cdrs, token = False, 0, ""
            while time.monotonic() - began < 60 and not seen_live:
                if "demo: live traffic" in server.output.read_text():
                    token = token or await login_root(session, server, 1)  # on real time: a login made before
                    history_cdrs = history_cdrs or await cdr_total(session, server, token)  # expired in the history
                    async with session.get(f"{server.url}{SERVICE}/calls", headers={"X-Auth-Token": token}) as got:
                        seen_live = (await got.json())["total"] > 0
                await asyncio.sleep(0.5)
            assert seen_live, server.output.read_text()[-3000:]
            while time.monotonic() - began < 75 and await cdr_total(session, server, token) <= history_cdrs:
                await asyncio.sleep(0.5)
            assert await cdr_total(session, server, token) > history_cdrs
    finally:
        server.stop()
