#!/usr/bin/env python3
"""What a request costs: this checkout against another build, in one run on one machine, each as a
ratio to a bare aiohttp handler measured in the same round.

    .venv/bin/python scripts/bench_request_cost.py --against DIR [--rounds 3] [--seconds 10]
        [--connections 32] [--mixed-seconds 30] [--no-mixed]

`DIR` is another checkout of the project (say a worktree at an older commit: `git worktree add
--detach ../old COMMIT`); its server runs from this virtualenv with `PYTHONPATH=DIR`. Each round
measures the bare handler, then each build in a fresh data dir, in turns (the order alternates from
round to round, so neither build always follows the other), with `wrk`:
  - creates: `POST /contacts` for `--seconds` (which fills the data dir);
  - a cached page: `GET /contacts?page=N&limit=50`, N in 1..20 (the list page cache on, as by default);
  - one contact: `GET /contacts/{id}`, id in the created ones;
then, unless `--no-mixed`, mix 8 of `scripts/bench_mixed.py` (32 clients, contacts CRUD) against
each build once. Prints every round and the median ratio of each figure. Needs `wrk` (apt-get
install wrk).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench_api import BARE_APP
from benchkit import PYTHON, ROOT, compiled, free_port, login, start_server, stop, wait_until_up

PAGES = 20
CREATE = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-Auth-Token"] = "{token}"
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, nil, nil, string.format(
    '{{"first_name":"Ann %d","last_name":"Smith","tel":"+4420%08d"}}', n, n))
end
"""
GET = """
math.randomseed(os.time())
request = function()
  return wrk.format("GET", string.format("{template}", math.random({low}, {top})), {{["X-Auth-Token"] = "{token}"}})
end
"""
FIGURES = ("creates", "cached page", "one contact")
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Load:
    """What one `wrk` run saw: requests per second, and the server's CPU time per request (user and
    system, all its threads: a figure that other work on the machine disturbs far less than req/s)."""

    rps: float
    cpu_us: float


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def wrk(pid: int, url: str, script: str, seconds: float, args: argparse.Namespace, scratch: Path) -> Load:
    """`wrk` running the Lua `script` against `url` served by process `pid`; every answer must be a 2xx."""
    path = scratch / "bench.lua"
    path.write_text(script)
    started = cpu_seconds(pid)
    result = subprocess.run(["wrk", "-t1", f"-c{args.connections}", f"-d{round(seconds)}s", "-s", str(path), url],
                            capture_output=True, text=True, check=True)  # fmt: skip
    used = cpu_seconds(pid) - started
    if failed := re.search(r"Non-2xx or 3xx responses: (\d+)", result.stdout):
        raise SystemExit(f"{failed.group(1)} failed answers from {url}")
    rate, done = re.search(r"Requests/sec:\s+([\d.]+)", result.stdout), re.search(r"(\d+) requests in", result.stdout)
    if rate is None or done is None:
        raise SystemExit(f"wrk said:\n{result.stdout}{result.stderr}")
    return Load(float(rate.group(1)), used / int(done.group(1)) * 1e6)


def get_script(template: str, low: int, top: int, token: str) -> str:
    return GET.format(template=template, low=low, top=top, token=token)


def bare(args: argparse.Namespace, scratch: Path) -> Load:
    port = free_port()
    app = subprocess.Popen([PYTHON, "-c", BARE_APP, str(port), "asyncio"])
    try:
        url = f"http://127.0.0.1:{port}/bare"
        wait_until_up(url, app)
        return wrk(app.pid, url, get_script("/bare?n=%d", 1, 1000, "-"), args.seconds, args, scratch)
    finally:
        stop(app)


def build_env(root: Path) -> dict[str, str]:
    return {"PYTHONPATH": str(root)}


def measure_build(root: Path, args: argparse.Namespace, scratch: Path) -> dict[str, Load]:
    """The figures of the build at `root`, in a fresh data dir."""
    data_dir = Path(tempfile.mkdtemp(prefix="data-", dir=scratch))
    port = free_port()
    server = start_server(data_dir, port, build_env(root))
    try:
        token, path = login(port), "/v1.2/voipstudio/contacts"
        contacts = f"http://127.0.0.1:{port}{path}"
        figures = {"creates": wrk(server.pid, contacts, CREATE.format(token=token), args.seconds, args, scratch)}
        page = get_script(path + "?page=%d&limit=50", 1, PAGES, token)
        wrk(server.pid, contacts, page, 1, args, scratch)  # warm the page cache
        figures["cached page"] = wrk(server.pid, contacts, page, args.seconds, args, scratch)
        one = get_script(path + "/%d", 1, 1000, token)  # ids are dense from 1 in a fresh data dir
        figures["one contact"] = wrk(server.pid, contacts, one, args.seconds, args, scratch)
        return figures
    finally:
        stop(server)
        shutil.rmtree(data_dir, ignore_errors=True)


def mixed(root: Path, args: argparse.Namespace) -> tuple[float, float]:
    """Mix 8 of bench_mixed.py against the build at `root`: req/s and p99 ms."""
    command = [PYTHON, str(Path(__file__).with_name("bench_mixed.py")), "--mixes", "8",
               "--long-seconds", str(args.mixed_seconds), "--connections", str(args.connections)]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, **build_env(root)})
    rate = re.search(r"mix 8 req/s\s+([\d,.]+)", result.stdout)
    p99 = re.search(r"mix 8 p99 ms\s+([\d,.]+)", result.stdout)
    if rate is None or p99 is None:
        raise SystemExit(f"bench_mixed.py failed against {root}:\n{result.stdout}\n{result.stderr}")
    return float(rate.group(1).replace(",", "")), float(p99.group(1).replace(",", ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--against",
        type=Path,
        action="append",
        required=True,
        help="another checkout of the project (repeat to compare several)",
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--mixed-seconds", type=float, default=30, help="duration of mix 8 (default 30)")
    parser.add_argument("--no-mixed", action="store_true")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("wrk is needed: apt-get install wrk")
    builds = {"this": ROOT} | {other.resolve().name: other.resolve() for other in args.against}
    compiled()
    for root in builds.values():
        subprocess.run([PYTHON, "-m", "compileall", "-q", str(root / "telephony")], check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
    seen: dict[str, dict[str, list[tuple[float, float, float]]]] = {name: {f: [] for f in FIGURES} for name in builds}
    """Per build and figure, each round's (req/s ratio to bare, CPU ratio to bare, CPU µs per request)."""
    with tempfile.TemporaryDirectory(prefix="telephony-bench-cost-") as scratch_name:
        scratch = Path(scratch_name)
        for n in range(args.rounds):
            base = bare(args, scratch)
            print(f"round {n + 1}: bare {base.rps:,.0f} req/s, {base.cpu_us:.0f} µs CPU a request", flush=True)
            for name in list(builds) if n % 2 == 0 else reversed(builds):
                figures = measure_build(builds[name], args, scratch)
                for f, load in figures.items():
                    seen[name][f].append((load.rps / base.rps, base.cpu_us / load.cpu_us, load.cpu_us))
                    print(f"  {name:<14}{f:<13}{load.rps:>8,.0f} req/s ({load.rps / base.rps:.3f} of bare), "
                          f"{load.cpu_us:>5.0f} µs CPU ({base.cpu_us / load.cpu_us:.3f})", flush=True)  # fmt: skip
        print(f"\nmedian of {args.rounds} rounds; req/s and CPU a request as ratios to the bare handler's, "
              f"and the CPU µs a request ({args.connections} connections):")  # fmt: skip
        print(f"{'':<14}" + "".join(f"{name + ': ' + builds[name].name:>30}" for name in builds))
        for f in FIGURES:
            cells = []
            for name in builds:
                rps, cpu, us = (statistics.median(column) for column in zip(*seen[name][f], strict=True))
                cells.append(f"{rps:.3f} | {cpu:.3f} | {us:4.0f} µs")
            print(f"{f:<14}" + "".join(f"{cell:>30}" for cell in cells))
        if not args.no_mixed:
            base = bare(args, scratch)
            print(f"\nmix 8 of bench_mixed.py, {args.mixed_seconds:.0f} s (bare {base.rps:,.0f} req/s):")
            for name, root in builds.items():
                rate, p99 = mixed(root, args)
                print(f"  {name:<14} {rate:,.0f} req/s ({rate / base.rps:.3f} of bare), p99 {p99:.1f} ms", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
