#!/usr/bin/env python3
"""The write path of a record, build against build in one run: creates per second, and the work of one.

For each build given (`NAME=PATH`, a checkout whose `telephony` package is run; default: this one), in
turns, `--rounds` times, each build going first in its turn (so a busy machine slows every build alike):
  creates  a fresh server (`serve`, one process, SQLite) and `POST /contacts` from `--connections`
           connections for `--seconds`: answers per second, their p99, and the server's CPU time per
           create (its user and system time over the run: what a busy machine changes least);
  one      in-process, without HTTP: a contact's `created` event made from its document, written as
           the log stores it, read back and applied to its document table (an in-memory SQLite): what
           the writer and the projection do for each create, in microseconds of CPU.
Prints each build's median of each figure (the best of `one`) and its ratio to the first build's. On
a machine others use, the CPU figures are the ones to compare: throughput follows whoever else runs.

    .venv/bin/python scripts/bench_creates.py [--build main=/work/main] [--build mine=.] [--rounds 3]
        [--seconds 10] [--connections 16]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import aiohttp
from benchkit import PYTHON, ROOT, free_port, login, start_server, stop

ONE = """
import sqlite3
import time
from telephony.documents import DocumentTable
from telephony.domain.events import EVENTS, events_of
from telephony.eventlog import Metadata, RecordedEvent
from telephony.registry.catalogue import BY_PATH
from telephony.registry.coercion import new_document

resource, events, table = BY_PATH["contacts"], events_of("contact"), DocumentTable("contact")
conn = sqlite3.connect(":memory:", isolation_level=None)
table.create(conn)
fields = {"first_name": "Ann", "last_name": "Smith", "tel": "+442071234567"}
document = new_document(resource, fields, 1, 100001, "2026-07-01 12:00:00")
made, meta = getattr(events, "made", None), Metadata()


def once(n):
    body = {**document, "id": n}
    event = made(n, 100001, body) if made else events.created(id=n, customer_id=100001, body=body)
    type_, schema, data = EVENTS.written(event)
    read = EVENTS.read(type_, schema, data)
    recorded = RecordedEvent(position=n, stream=f"contact-{n}", version=1, type=type_, schema=schema, event=read,
                             meta=meta, recorded_at="", hash="")
    table.apply(conn, recorded)


for n in range(2000):
    once(n)
best = float("inf")
for _ in range(7):
    began = time.process_time()
    for n in range(10000):
        once(n)
    best = min(best, (time.process_time() - began) / 10000)
print(best * 1e6)
"""
"""A contact's create without HTTP, as the build in `PYTHONPATH` does it: microseconds of CPU, the best of 7."""


async def _creates(port: int, token: str, connections: int, seconds: float) -> tuple[float, float, int]:
    until, latencies, failed = time.monotonic() + seconds, [], 0
    url = f"http://127.0.0.1:{port}/v1.2/voipstudio/contacts"

    async def worker(session: aiohttp.ClientSession, n: int) -> None:
        nonlocal failed
        serial = 0
        while time.monotonic() < until:
            serial += 1
            began = time.perf_counter()
            body = {"first_name": f"Ann {n}-{serial}", "last_name": "Smith", "tel": "+442071234567"}
            async with session.post(url, json=body) as answer:
                await answer.read()
                if answer.status == 201:
                    latencies.append(time.perf_counter() - began)
                else:
                    failed += 1

    async with aiohttp.ClientSession(headers={"X-Auth-Token": token}) as session:
        await asyncio.gather(*(worker(session, n) for n in range(connections)))
    latencies.sort()
    return len(latencies) / seconds, latencies[int(len(latencies) * 0.99)] * 1e3, failed


def cpu_seconds(pid: int) -> float:
    """A process's user and system time so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def creates(build: Path, args: argparse.Namespace) -> tuple[float, float, int, float]:
    """Creates per second, their p99 in ms, the failed ones, and the server's CPU µs per create."""
    with tempfile.TemporaryDirectory() as scratch:
        port = free_port()
        server = start_server(Path(scratch) / "data", port, {"PYTHONPATH": str(build)})
        try:
            token, before = login(port), cpu_seconds(server.pid)
            rate, p99, failed = asyncio.run(_creates(port, token, args.connections, args.seconds))
            return rate, p99, failed, (cpu_seconds(server.pid) - before) / (rate * args.seconds) * 1e6
        finally:
            stop(server)


def one(build: Path) -> float:
    done = subprocess.run([PYTHON, "-c", ONE], env={"PYTHONPATH": str(build)}, capture_output=True, text=True,
                          check=True, cwd=build)  # fmt: skip
    return float(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", action="append", default=[], help="NAME=PATH of a checkout (repeatable)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--connections", type=int, default=16)
    args = parser.parse_args()
    builds = {name: Path(path).resolve() for name, _, path in (b.partition("=") for b in args.build)} or {"this": ROOT}
    names = ("creates/s", "p99 ms", "server CPU µs/create", "one create, CPU µs")
    figures: dict[str, dict[str, list[float]]] = {build: {name: [] for name in names} for build in builds}
    for round_ in range(args.rounds):
        turn = list(builds.items())
        for build, path in turn[round_ % len(turn) :] + turn[: round_ % len(turn)]:  # each goes first in turn
            rate, p99, failed, cpu = creates(path, args)
            for name, value in zip(names, (rate, p99, cpu, one(path)), strict=True):
                figures[build][name].append(value)
            said = ", ".join(f"{figures[build][name][-1]:.1f} {name}" for name in names)
            print(f"round {round_ + 1} {build}: {said}, {failed} failed", flush=True)
    first = next(iter(builds))
    print("\n| build | " + " | ".join(names) + " |\n|---|" + "---|" * len(names))
    for name in builds:
        cells = []
        for figure in names:
            pick = min if figure == names[-1] else statistics.median  # the best run: the least disturbed
            value, base = pick(figures[name][figure]), pick(figures[first][figure])
            cells.append(f"{value:.1f}" + ("" if name == first else f" ({value / base:.2f})"))
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
