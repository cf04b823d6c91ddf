#!/usr/bin/env python3
"""Call engine benchmark: N simulated calls (default 10,000) live at once in the real server, in one run.

Starts the real server (`telephony serve`, flowing real clock) on a fresh data dir with a
`[simulator]` that keeps calls alive: the caller's own client answers after `--own-answer-seconds`
of clock time (default an hour, so the simulator stays idle until step 3), then the destination (a
`[[simulator.destinations]]` rule) rings 5 s, answers and talks for two hours. Provisions a customer
with `--users` users (each starts with one registered SIP client) and logs them in, then:
  1. places N calls, `POST /v1.2/voipstudio/calls {"to": "+4470..."}` with `--connections` in flight,
     spread over the users: calls started per second, the latency of the POST (p50, p99), and the
     events appended per second (the log position's move);
  2. checks that all N are live at once (`GET /calls` total == N) and measures
     `GET /calls?page=K&limit=50` (K varies) for `--seconds`, with `wrk` when it is installed
     (apt-get install wrk) or an aiohttp client otherwise;
  3. moves the clock past the answers (`POST /_telephony/clock`) and waits until all N calls are
     CONNECTED: the simulator takes two steps per call (the caller's client answers and the
     destination rings; the destination answers), and the events it appends per second are measured;
  4. reads the server's peak RSS (goal: < 300 MB) and counts its log's warnings and errors.
With `--own-answer-seconds 1` the simulator answers in real time while the calls are placed and
listed instead, and the events it appended meanwhile show how far it kept up.

    .venv/bin/python scripts/bench_calls.py [--calls 10000] [--users 100] [--connections 32]
        [--seconds 10] [--synchronous FULL|NORMAL] [--own-answer-seconds 3600]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench_api import free_port, measure, peak_rss_mb, stop, wait_until_up

PYTHON = sys.executable
CONTROL_KEY = "bench-control-key"
PASSWORD = "bench-password"
API_EVENTS_PER_CALL = 3
"""What placing a call appends itself: call.placed, call.accepted, call.ringing (the caller's client)."""
RING_SECONDS = 5.0
TALK_SECONDS = 7200.0
PREFIX = "+4470"
CONFIG = """
[api]
service = "voipstudio"
[control]
key = "{key}"
[log]
level = "WARNING"
[auth]
v12_inactivity_seconds = 86400
[eventlog]
synchronous = "{synchronous}"
[simulator]
seed = 1
own_answer_seconds = {own}
[[simulator.destinations]]
prefix = "{prefix}"
outcome = "answer"
ring_seconds = {ring}
talk_seconds = {talk}
"""


def start_server(scratch: Path, port: int, args: argparse.Namespace) -> subprocess.Popen:
    config = scratch / "bench.toml"
    config.write_text(CONFIG.format(key=CONTROL_KEY, synchronous=args.synchronous, own=args.own_answer_seconds,
                                    prefix=PREFIX, ring=RING_SECONDS, talk=TALK_SECONDS))  # fmt: skip
    with (scratch / "server.log").open("wb") as log:
        process = subprocess.Popen(
            [PYTHON, "-m", "telephony", "--config", str(config), "--data-dir", str(scratch / "data"), "serve",
             "--port", str(port)],
            cwd=scratch,
            env={k: v for k, v in os.environ.items() if not k.startswith("TELEPHONY_")},
            stdout=subprocess.DEVNULL,
            stderr=log,
        )  # fmt: skip
    wait_until_up(f"http://127.0.0.1:{port}/_telephony/health", process)
    return process


def server_complaints(scratch: Path) -> Counter[str]:
    """The server's warnings and errors, by logger and level (its log goes to a file)."""
    found: Counter[str] = Counter()
    for line in (scratch / "server.log").read_text(errors="replace").splitlines():
        if match := re.search(r" (WARNING|ERROR|CRITICAL) (\S+)", line):
            found[f"{match.group(1)} {match.group(2)}"] += 1
    return found


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Server:
    """The running server's HTTP surface, as this benchmark needs it."""

    def __init__(self, session: Any, port: int) -> None:
        self.session = session
        self.root = f"http://127.0.0.1:{port}"
        self.api = f"{self.root}/v1.2/voipstudio"

    async def call(self, method: str, url: str, status: int, **kwargs: Any) -> Any:
        async with self.session.request(method, url, **kwargs) as answer:
            body = await answer.json()
            if answer.status != status:
                raise SystemExit(f"{method} {url}: HTTP {answer.status} {body}")
            return body

    async def control(self, method: str, path: str, body: dict | None = None, status: int = 200) -> Any:
        headers = {"X-Control-Key": CONTROL_KEY}
        return await self.call(method, f"{self.root}/_telephony{path}", status, json=body, headers=headers)

    async def position(self) -> int:
        return (await self.control("GET", "/health"))["position"]

    async def login(self, email: str) -> str:
        body = await self.call("POST", f"{self.api}/login", 200, json={"email": email, "password": PASSWORD})
        return body["user_token"]

    async def get(self, path: str, token: str) -> Any:
        return await self.call("GET", self.api + path, 200, headers={"X-Auth-Token": token})


async def provision(server: Server, users: int) -> tuple[str, list[str]]:
    """A customer with `users` users, all logged in; the root's token and the users' tokens."""
    opened = await server.control("POST", "/customers", {"name": "Bench Ltd", "admin_email": "root@bench.example",
                                                         "admin_password": PASSWORD}, status=201)  # fmt: skip
    customer_id = opened["data"]["customer"]["id"]

    async def user(n: int) -> str:
        email = f"user{n}@bench.example"
        await server.control("POST", f"/customers/{customer_id}/users", {"email": email, "password": PASSWORD},
                             status=201)  # fmt: skip
        return await server.login(email)

    tokens = [await user(n) for n in range(users)]
    return await server.login("root@bench.example"), tokens


async def place_calls(server: Server, tokens: list[str], count: int, connections: int) -> tuple[float, list[float]]:
    """Place `count` calls with `connections` in flight; the seconds it took and each POST's latency."""
    latencies: list[float] = []
    numbers = iter(range(count))

    async def worker() -> None:
        for n in numbers:
            headers = {"X-Auth-Token": tokens[n % len(tokens)]}
            body = {"to": f"{PREFIX}{n:08d}"}
            started = time.perf_counter()
            await server.call("POST", f"{server.api}/calls", 201, json=body, headers=headers)
            latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(connections)))
    return time.perf_counter() - started, latencies


async def states(server: Server, token: str, count: int) -> Counter[str]:
    """The states of all live calls, read page by page."""
    seen: Counter[str] = Counter()
    for page in range(1, count // 5000 + 2):
        body = await server.get(f"/calls?page={page}&limit=5000", token)
        seen.update(call["state"] for call in body["data"])
    return seen


async def all_connected(server: Server, token: str, count: int, timeout: float = 600) -> Counter[str]:
    """Wait until all `count` live calls are CONNECTED; their states."""
    deadline = time.monotonic() + timeout
    while (seen := await states(server, token, count))["CONNECTED"] != count and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    return seen


async def run(port: int, args: argparse.Namespace, scratch: Path, pid: int) -> dict[str, Any]:
    import aiohttp

    figures: dict[str, Any] = {}
    connector = aiohttp.TCPConnector(limit=args.connections + 4)
    async with aiohttp.ClientSession(connector=connector) as session:
        server = Server(session, port)
        root, tokens = await provision(server, args.users)
        figures["rss_before"] = rss_mb(pid)

        before = await server.position()
        elapsed, latencies = await place_calls(server, tokens, args.calls, args.connections)
        placed_events = await server.position() - before
        latencies.sort()
        figures.update(
            calls_per_s=args.calls / elapsed, place_seconds=elapsed, place_events=placed_events,
            place_events_per_s=placed_events / elapsed, p50_ms=statistics.median(latencies) * 1e3,
            p99_ms=latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1e3,
            max_ms=latencies[-1] * 1e3, rss_live=rss_mb(pid),
            sim_while_placing=placed_events - API_EVENTS_PER_CALL * args.calls,
        )  # fmt: skip

        figures["live"] = (await server.get("/calls?limit=1", root))["total"]
        if figures["live"] != args.calls:
            raise SystemExit(f"{figures['live']:,} calls live after placing {args.calls:,}")
        template = f"{server.api}/calls?page=%d&limit=50"
        before = await server.position()
        figures["list_rps"] = await asyncio.to_thread(measure, template, max(1, args.calls // 50), root, args, scratch)
        figures["sim_while_listing"] = await server.position() - before
        live = (await server.get("/calls?limit=1", root))["total"]
        if live != args.calls:
            raise SystemExit(f"{live:,} calls live after the GET /calls phase, not {args.calls:,}")

        before = await server.position()
        started = time.perf_counter()
        await server.control("POST", "/clock", {"advance": args.own_answer_seconds + RING_SECONDS + elapsed + 5})
        figures["states"] = await all_connected(server, root, args.calls)
        simulated = time.perf_counter() - started
        sim_events = await server.position() - before
        figures.update(sim_seconds=simulated, sim_events=sim_events, sim_events_per_s=sim_events / simulated)
    return figures


def report(figures: dict[str, Any], args: argparse.Namespace) -> None:
    tool = "wrk" if shutil.which("wrk") else "aiohttp client"
    print(
        f"\n{args.calls:,} calls from {args.users} users, {args.connections} connections, synchronous "
        f"{args.synchronous}; GET /calls load: {tool}, {args.seconds} s, pages 1..{max(1, args.calls // 50)}"
    )
    states = ", ".join(f"{n:,} {state}" for state, n in sorted(figures["states"].items()))
    rows = [
        ("calls started per second", f"{figures['calls_per_s']:,.0f}", ""),
        (f"  ({figures['place_seconds']:.1f} s to place them all)", "", ""),
        ("POST /calls latency p50 (ms)", f"{figures['p50_ms']:,.1f}", ""),
        ("POST /calls latency p99 (ms)", f"{figures['p99_ms']:,.1f}", ""),
        ("POST /calls latency max (ms)", f"{figures['max_ms']:,.1f}", ""),
        ("events appended per second, placing", f"{figures['place_events_per_s']:,.0f}", ""),
        (f"  ({figures['place_events']:,} events, {figures['sim_while_placing']:,} of them the simulator's)", "", ""),
        ("calls live at once (GET /calls total)", f"{figures['live']:,}", f"{args.calls:,}"),
        ("GET /calls?page=K&limit=50 (req/s)", f"{figures['list_rps']:,.0f}", ""),
        (f"  ({figures['sim_while_listing']:,} events from the simulator meanwhile)", "", ""),
        ("events appended per second, simulator", f"{figures['sim_events_per_s']:,.0f}", ""),
        (f"  ({figures['sim_events']:,} events in {figures['sim_seconds']:.1f} s after the clock moved)", "", ""),
        (f"  (then: {states})", "", ""),
        ("server RSS before placing (MB)", f"{figures['rss_before']:,.1f}", ""),
        ("server RSS with all calls live (MB)", f"{figures['rss_live']:,.1f}", ""),
        ("server peak RSS (MB)", f"{figures['rss_peak']:,.1f}", "< 300"),
    ]  # fmt: skip
    print(f"{'measure':<52}{'figure':>10}{'goal':>10}")
    for name, figure, goal in rows:
        print(f"{name:<52}{figure:>10}{goal:>10}")
    checks = {
        f"all {args.calls:,} calls live at once": figures["live"] == args.calls,
        f"all {args.calls:,} calls CONNECTED after the simulator": figures["states"].get("CONNECTED") == args.calls,
        "peak RSS < 300 MB": figures["rss_peak"] < 300,
    }
    for name, ok in checks.items():
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
    for name, n in figures["complaints"].most_common():
        print(f"server log: {n:,} x {name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--users", type=int, default=100, help="users the calls are spread over")
    parser.add_argument("--connections", type=int, default=32, help="requests in flight")
    parser.add_argument("--seconds", type=int, default=10, help="length of the GET /calls load")
    parser.add_argument("--synchronous", choices=("FULL", "NORMAL"), default="FULL", help="[eventlog] synchronous")
    parser.add_argument("--own-answer-seconds", type=float, default=3600.0,
                        help="[simulator] own_answer_seconds: when the simulator starts answering")  # fmt: skip
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="telephony-bench-calls-") as scratch_name:
        scratch, port = Path(scratch_name), free_port()
        server = start_server(scratch, port, args)
        try:
            figures = asyncio.run(run(port, args, scratch, server.pid))
            figures["rss_peak"] = peak_rss_mb(server.pid)
        finally:
            stop(server)
        figures["complaints"] = server_complaints(scratch)
    report(figures, args)
    connected = figures["states"].get("CONNECTED") == args.calls
    return 0 if figures["live"] == args.calls and connected and figures["rss_peak"] < 300 else 1


if __name__ == "__main__":
    sys.exit(main())
