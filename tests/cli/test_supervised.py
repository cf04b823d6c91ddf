"""`telephony serve` as a supervisor runs it (systemd, Docker, nohup): its output goes to a file, every
line at once; the console says what an operator needs and no more (libraries' warnings only, access lines
when asked, JSON lines for a log shipper); a newcomer is told where everything is and how to log in."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time

import aiohttp
import pytest

from ..serving import CONTROL_KEY, SERVICE, Server, clean_env, free_port, telephony

pytestmark = pytest.mark.sqlite_only  # the server's console, whatever its store
HEALTH_WITHIN = 1.0


async def until_said(server: Server, *words: str, within: float = 10) -> str:
    """The server's output once it holds every one of `words`, while the server runs."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        said = server.output.read_text()
        if all(word in said for word in words):
            assert server.process is not None and server.process.poll() is None
            return said
        await asyncio.sleep(0.05)
    raise AssertionError(f"not said within {within}s: {words}\n{server.output.read_text()}")


async def test_a_demos_logins_and_links_reach_a_file_while_it_runs(tmp_path):
    server = Server(tmp_path / "data", tmp_path, "--demo", "--seed", "3", PYTHONUNBUFFERED="")  # as a supervisor has it
    try:
        await server.start()
        await until_said(server, "every password", "root:", "control key", "dashboard:", "API docs:")
    finally:
        server.stop()


async def test_a_newcomer_is_told_the_api_the_dashboard_the_docs_and_the_login(tmp_path):
    server = Server(tmp_path / "data", tmp_path)
    try:
        await server.start()
        said = await until_said(server, "log in:")
    finally:
        server.stop()
    base = server.url
    told = (f"API:        {base}{SERVICE}", f"dashboard:  {base}/_telephony/dashboard",
            f"API docs:   {base}/_telephony/docs",
            "log in:     admin@example.com (password 'change-me-now'")  # fmt: skip
    assert all(line in said for line in told), said


async def console_after_requests(tmp_path, *options: str) -> str:
    """What a server started with `options` printed, in all, after three requests and a stop."""
    server = Server(tmp_path / "data", tmp_path, *options)
    try:
        await server.start()
        async with aiohttp.ClientSession() as session:
            for path in ("/_telephony/health", f"{SERVICE}/ping", "/_telephony/health"):
                async with session.get(server.url + path, headers={"X-Request-Id": "trace-me"}) as response:
                    await response.read()
    finally:
        server.stop()
    return server.output.read_text()


async def test_the_console_holds_no_access_line_and_no_librarys_chatter_unless_asked(tmp_path):
    said = await console_after_requests(tmp_path)
    assert "/_telephony/health" not in said, said
    assert "apscheduler" not in said.lower() and "Added job" not in said and "Running job" not in said, said
    assert len(said.splitlines()) <= 8, said


async def test_access_log_and_json_give_one_object_a_line_with_the_request_fields(tmp_path):
    said = await console_after_requests(tmp_path, "--access-log", "--log-format", "json")
    logged = [json.loads(line) for line in said.splitlines() if line.startswith("{")]
    access = [line for line in logged if line.get("path") == f"{SERVICE}/ping"]
    assert len(access) == 1, logged
    assert {"time", "level", "logger", "message", "request_id", "method", "path", "status", "duration_ms"} <= set(
        access[0]
    )
    assert access[0]["request_id"] == "trace-me" and access[0]["method"] == "GET" and access[0]["status"] == 401


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["serve", "--port", "99999"], ["--port 99999", "1 to 65535"]),
        (["serve", "--port", "-1"], ["--port -1", "1 to 65535"]),
        (["serve", "--port", "0"], ["--port 0", "1 to 65535"]),
        (["serve", "--port", "eighty"], ["--port", "'eighty'"]),
        (["serve", "--log-format", "xml"], ["--log-format", "'xml'"]),
        (
            ["migrate", "--from", "sqlite:data", "--to", "postgresql://nobody@127.0.0.1:1/none"],
            ["--to", "cannot connect"],
        ),
    ],
    ids=["above 65535", "negative", "zero", "not a number", "log format", "migrate to nowhere"],
)
def test_a_bad_flag_is_one_line_and_exit_2(args, words, tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "events.db").touch()
    result = telephony(*args, cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1 and all(word in result.stderr for word in words), result.stderr
    assert not result.stdout


def test_a_port_out_of_range_in_the_config_is_one_line_naming_the_key(tmp_path):
    result = telephony("serve", cwd=tmp_path, TELEPHONY_SERVER_PORT="70000")
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "server" in result.stderr and "1 to 65535" in result.stderr


async def test_the_root_sends_a_browser_to_the_dashboard_and_gives_a_client_the_links(client):
    browser = await client.get("/", headers={"Accept": "text/html,application/xhtml+xml"}, allow_redirects=False)
    assert browser.status == 302 and browser.headers["Location"] == "/_telephony/dashboard"
    answer = await client.get("/", headers={"Accept": "application/json"})
    assert answer.status == 200
    links = (await answer.json())["links"]
    assert links["dashboard"] == "/_telephony/dashboard" and links["docs"] == "/_telephony/docs"
    assert links["api_v1_2"] == SERVICE and links["api_v1_1"] == "/v1.1/voipstudio"
    for path in (links["docs"], links["openapi"], links["health"]):
        assert (await client.get(path)).status == 200


async def test_a_demo_whose_output_is_not_read_answers_health_and_stops_on_sigterm(tmp_path):
    """A supervisor that falls behind (here: a pipe nobody reads) held every request once the pipe was
    full, health's too, and the SIGTERM's handler: the output is written off the event loop now."""
    port, data_dir = free_port(), tmp_path / "data"
    command = [sys.executable, "-m", "telephony", "--data-dir", str(data_dir), "serve", "--demo", "--access-log",
               "--port", str(port)]  # fmt: skip
    env = clean_env(TELEPHONY_CONTROL_KEY=CONTROL_KEY, PYTHONUNBUFFERED="")
    process = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=HEALTH_WITHIN)) as session:
            await answered(session, port, within=30)
            slowest, began = 0.0, time.monotonic()
            while time.monotonic() - began < 8:  # the history is being made meanwhile (it takes 14 s or more)
                asked = time.monotonic()
                await answered(session, port, within=HEALTH_WITHIN)
                slowest = max(slowest, time.monotonic() - asked)
                await asyncio.sleep(0.02)
        stopping = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=15)
        assert time.monotonic() - stopping < 5 and process.returncode == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()  # type: ignore[union-attr]
    assert slowest < HEALTH_WITHIN
    assert telephony("--data-dir", data_dir, "verify", cwd=tmp_path).returncode == 0


async def answered(session: aiohttp.ClientSession, port: int, within: float) -> None:
    """Health answered 200 within `within` seconds (a refused connection is tried again until then)."""
    deadline = time.monotonic() + within
    while True:
        try:
            async with session.get(f"http://127.0.0.1:{port}/_telephony/health") as response:
                assert response.status == 200
                return
        except aiohttp.ClientConnectionError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)
