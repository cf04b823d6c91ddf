#!/usr/bin/env python3
"""Several server processes on one PostgreSQL log against one SQLite process: creates, lists, hangups.

Starts a throwaway PostgreSQL cluster (`scripts/postgres start` in a temporary folder), then for each
configuration (SQLite in one process; PostgreSQL with 1, 2 and 4 processes by `serve --workers N`)
a fresh server: 1,000 contacts, then three phases of `--seconds` each from `--clients` client
processes of `--connections` connections each:
  hangups  POST /calls then DELETE /calls/{id} (the DELETE is timed, as scripts/bench_hangups.py)
  creates  POST /contacts
  lists    GET /contacts?page=1..20&limit=50
and prints a Markdown table: per second and p99 of each, and each rate's ratio to one PostgreSQL
process; with the events appended per second during the creates. Any answer that is not 2xx is
counted and shown. Then the commit lock's own figure, without HTTP or read models: 1, 2 and 4
processes each appending one-event transactions to one log (64 in flight each) for `--seconds`;
every process's batches take the lock in turn.

    .venv/bin/python scripts/bench_cluster.py [--seconds 10] [--clients 2] [--connections 16]
        [--processes 1,2,4] [--no-sqlite] [--lock-only] [--rounds 1]

`--rounds N` measures every configuration N times, the order turned round each time (a shared machine
growing busier during a round slows none more than another), then prints each one's medians and
their ratio to SQLite's.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

import aiohttp
import msgspec
from benchkit import ROOT, free_port, login, wait_until_up

CONTROL_KEY = "bench-control-key"
PAGES, PREFILL = 20, 1_000
PHASES = ("hangups", "creates", "lists")
"""In this order: calls first, before the creates add thousands of contacts. Calls slow down as contacts
grow (on SQLite, 16 connections for 3 s: 1,141 hangups with none, 220 with 3,000), which would
measure the contacts, not the processes."""


def start_postgres(folder: Path) -> str:
    done = subprocess.run([str(ROOT / "scripts" / "postgres"), "start", str(folder), str(free_port())],
                          capture_output=True, text=True, check=True, timeout=300)  # fmt: skip
    return done.stdout.strip().splitlines()[-1]


def schema_url(url: str) -> str:
    import psycopg

    name = f"bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    return f"{url}?options=-csearch_path%3D{name}"


def serve(data_dir: Path, port: int, workers: int, url: str) -> subprocess.Popen:
    env = {**os.environ, "TELEPHONY_LOG_LEVEL": "WARNING", "TELEPHONY_CONTROL_KEY": CONTROL_KEY,
           "TELEPHONY_EVENTLOG_URL": url}  # fmt: skip
    command = [sys.executable, "-m", "telephony", "--data-dir", str(data_dir), "serve", "--port", str(port),
               "--workers", str(workers)]  # fmt: skip
    process = subprocess.Popen(command, cwd=data_dir.parent, env=env, stdout=subprocess.DEVNULL)
    wait_until_up(f"http://127.0.0.1:{port}/_telephony/health", process)
    return process


def head(port: int) -> int:
    return request(port, "GET", "/_telephony/health", None, {})["position"]


async def _client(port: int, token: str, phase: str, connections: int, seconds: float, seed: int) -> dict:
    """One client process's part of a phase: how many succeeded, their latencies, the failures."""
    api = f"http://127.0.0.1:{port}/v1.2/voipstudio"
    latencies: list[float] = []
    failed: list[str] = []
    until = time.monotonic() + seconds

    async def send(session: aiohttp.ClientSession, method: str, url: str, body: object = None) -> dict | None:
        async with session.request(method, url, json=body) as answer:
            data = await answer.read()
            if answer.status < 300:
                return msgspec.json.decode(data) if data else {}
            failed.append(f"{method} {url.rsplit('/', 1)[-1]}: {answer.status} {data[:120]!r}")
            return None

    async def worker(session: aiohttp.ClientSession, n: int) -> None:
        serial = 0
        while time.monotonic() < until:
            serial += 1
            begun = time.perf_counter()
            if phase == "creates":
                body = {"first_name": f"Ann {seed}-{n}-{serial}", "last_name": "Smith", "tel": "+442071234567"}
                done = await send(session, "POST", f"{api}/contacts", body)
            elif phase == "lists":
                done = await send(session, "GET", f"{api}/contacts?page={serial % PAGES + 1}&limit=50")
            else:
                placed = await send(session, "POST", f"{api}/calls", {"to": f"+4470{seed}{n:03d}{serial:06d}"})
                if placed is None:
                    continue
                begun = time.perf_counter()
                done = await send(session, "DELETE", f"{api}/calls/{placed['data']['id']}")
            if done is not None:
                latencies.append(time.perf_counter() - begun)

    async with aiohttp.ClientSession(headers={"X-Auth-Token": token}) as session:
        await asyncio.gather(*(worker(session, n) for n in range(connections)))
    return {"latencies": latencies, "failed": failed}


def client(port: int, token: str, phase: str, connections: int, seconds: float, seed: int) -> dict:
    return asyncio.run(_client(port, token, phase, connections, seconds, seed))


def run_phase(port: int, token: str, phase: str, args: argparse.Namespace) -> dict:
    with concurrent.futures.ProcessPoolExecutor(args.clients) as pool:
        parts = list(pool.map(client, *zip(*[(port, token, phase, args.connections, args.seconds, seed)
                                              for seed in range(args.clients)], strict=True)))  # fmt: skip
    latencies = sorted(x for part in parts for x in part["latencies"])
    failed = [x for part in parts for x in part["failed"]]
    p99 = latencies[int(len(latencies) * 0.99)] * 1e3 if latencies else float("nan")
    return {"rate": len(latencies) / args.seconds, "p99": p99, "failed": failed}


def prepare(port: int, token: str) -> None:
    """Room for the calls (a second SIP registration of the admin) and the contacts the lists read."""
    auth = {"X-Auth-Token": token}
    user_id = request(port, "GET", "/v1.2/voipstudio/users?limit=1", None, auth)["data"][0]["id"]
    request(port, "POST", f"/_telephony/users/{user_id}/registrations", {}, {"X-Control-Key": CONTROL_KEY})
    for n in range(PREFILL):
        request(port, "POST", "/v1.2/voipstudio/contacts", {"first_name": f"Bob {n}", "last_name": "Jones"}, auth)


def request(port: int, method: str, path: str, body: object, headers: dict[str, str]) -> dict:
    data = msgspec.json.encode(body) if body is not None else None
    sent = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                  headers={"Content-Type": "application/json", **headers})  # fmt: skip
    with urllib.request.urlopen(sent) as answer:  # noqa: S310 - loopback only
        read = answer.read()
        return msgspec.json.decode(read) if read else {}


def measure(store: str, workers: int, url: str, scratch: Path, args: argparse.Namespace) -> dict:
    # a new data dir each time: a SQLite log holding the contacts of the rounds before would slow its calls
    data_dir, port = Path(tempfile.mkdtemp(prefix=f"{store}-{workers}-", dir=scratch)), free_port()
    process = serve(data_dir, port, workers, url)
    try:
        token = login(port)
        prepare(port, token)
        figures: dict = {}
        for phase in PHASES:
            before, started = head(port), time.monotonic()
            figures[phase] = run_phase(port, token, phase, args)
            if phase == "creates":
                figures["events_per_s"] = (head(port) - before) / (time.monotonic() - started)
        return figures
    finally:
        process.terminate()
        process.wait(60)


def appender(url: str, seconds: float, seed: int) -> int:
    """One process appending `clock.moved` events to the log at `url`: how many it appended."""
    from telephony.clock import Clock
    from telephony.eventlog.pg_log import PgEventLog
    from telephony.projections import Projections
    from telephony.projections.clock import clock_moved

    async def appending() -> int:
        event_log = await PgEventLog.open_url(url, Projections([]), Clock(), progress=False)
        until, appended = time.monotonic() + seconds, 0

        async def lane() -> None:
            nonlocal appended
            while time.monotonic() < until:
                await event_log.append([clock_moved(0.0, float(seed))])
                appended += 1

        await asyncio.gather(*(lane() for _ in range(64)))
        await event_log.close()
        return appended

    return asyncio.run(appending())


def lock_figures(url: str, counts: list[int], seconds: float) -> dict[int, float]:
    """Appends per second through the commit lock from 1, 2, 4... processes on one log."""
    figures = {}
    for processes in counts:
        schema = schema_url(url)
        appender(schema, 0, 0)  # the log's tables made once, before the processes open it together
        with concurrent.futures.ProcessPoolExecutor(processes) as pool:
            appended = sum(pool.map(appender, [schema] * processes, [seconds] * processes, range(processes)))
        figures[processes] = appended / seconds
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=2, help="client processes")
    parser.add_argument("--connections", type=int, default=16, help="connections of each client process")
    parser.add_argument("--processes", default="1,2,4", help="server processes on PostgreSQL, comma separated")
    parser.add_argument("--no-sqlite", action="store_true")
    parser.add_argument("--lock-only", action="store_true", help="only the commit lock's figure")
    parser.add_argument("--rounds", type=int, default=1, help="measure each configuration this many times")
    args = parser.parse_args()
    counts = [int(n) for n in args.processes.split(",") if n]
    configurations = [] if args.no_sqlite or args.lock_only else [("SQLite", 1)]
    configurations += [] if args.lock_only else [("PostgreSQL", workers) for workers in counts]
    rows: list[tuple[str, int, dict]] = []
    with tempfile.TemporaryDirectory(prefix="telephony-bench-cluster-") as folder:
        scratch = Path(folder)
        scratch.chmod(0o755)  # the cluster's owner (postgres) must reach its folder
        url = start_postgres(scratch / "postgres")
        try:
            for round_ in range(args.rounds):
                for store, workers in configurations if round_ % 2 == 0 else configurations[::-1]:
                    on = schema_url(url) if store == "PostgreSQL" else ""
                    rows.append((store, workers, measure(store.lower(), workers, on, scratch, args)))
            appends = lock_figures(url, counts, args.seconds)
        finally:
            subprocess.run([str(ROOT / "scripts" / "postgres"), "stop", str(scratch / "postgres")], check=False)
    table(rows)
    if args.rounds > 1:
        medians(rows, configurations)
    print("\n| processes appending | appends/s through the commit lock |\n|---|---|")
    for processes, rate in appends.items():
        print(f"| {processes} | {rate:,.0f} |")
    return 1 if any(row[2][phase]["failed"] for row in rows for phase in PHASES) else 0


def medians(rows: list[tuple[str, int, dict]], configurations: list[tuple[str, int]]) -> None:
    """Each configuration's median rate of each phase, and its ratio to SQLite's median."""
    median = {chosen: {phase: statistics.median(f[phase]["rate"] for *made, f in rows if tuple(made) == chosen)
                       for phase in PHASES} for chosen in configurations}  # fmt: skip
    sqlite = median.get(("SQLite", 1))
    print(f"\n| store | processes | {' | '.join(f'{phase}/s median (of SQLite)' for phase in PHASES)} |")
    print("|---|---|---|---|---|")
    for (store, workers), rates in median.items():
        cells = [f"{rates[phase]:,.0f}" + (f" (x{rates[phase] / sqlite[phase]:.2f})" if sqlite else "")
                 for phase in PHASES]  # fmt: skip
        print(f"| {store} | {workers} | {' | '.join(cells)} |")


def table(rows: list[tuple[str, int, dict]]) -> None:
    one = next((figures for store, n, figures in rows if store == "PostgreSQL" and n == 1), None)
    print(
        f"| store | processes | {' | '.join(f'{phase}/s (p99 ms, ratio)' for phase in PHASES)} | events/s in creates |"
    )
    print("|---|---|---|---|---|---|")
    for store, workers, figures in rows:
        cells = []
        for phase in PHASES:
            rate, p99 = figures[phase]["rate"], figures[phase]["p99"]
            ratio = f", x{rate / one[phase]['rate']:.2f}" if one and one[phase]["rate"] else ""
            cells.append(f"{rate:,.0f} ({p99:.0f}{ratio})")
        print(f"| {store} | {workers} | {' | '.join(cells)} | {figures['events_per_s']:,.0f} |")
    for store, workers, figures in rows:
        for phase in PHASES:
            for failure in figures[phase]["failed"][:3]:
                print(f"failed ({store}, {workers}, {phase}): {failure}")


if __name__ == "__main__":
    sys.exit(main())
