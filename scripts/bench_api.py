#!/usr/bin/env python3
"""API benchmark: list endpoints over a million CDRs against a bare aiohttp handler, in one run.

Loads N CDRs (default 1,000,000) into a fresh data dir with `telephony import`, starts the real
server, and measures requests per second, with `wrk` when it is installed (apt-get install wrk) or
an aiohttp client otherwise, of:
  1. an authenticated `GET /v1.2/voipstudio/cdrs?page=N&limit=50` (N varies),
  2. a filtered list (`live_id =` a varying id),
  3. a bare aiohttp handler answering a small JSON body.
Prints each figure, the ratio of (1) and (2) to (3) (goal: >= 0.5) and the server's peak RSS
(goal: < 200 MB). Repeated pages are served from the server's list page cache unless
`--list-cache-bytes 0` turns it off; run both to see the cached and the uncached figure.

    .venv/bin/python scripts/bench_api.py [--cdrs 1000000] [--seconds 10] [--connections 32]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
ADMIN = {"email": "admin@example.com", "password": "change-me-now"}
BARE_APP = """
import sys
from aiohttp import web
async def handle(request):
    return web.json_response({"data": [], "total": 0})
app = web.Application()
app.router.add_get("/bare", handle)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None, access_log=None)
"""
LUA = """
math.randomseed(os.time())
request = function()
  local n = math.random(1, {top})
  return wrk.format("GET", string.format("{template}", n), {{["X-Auth-Token"] = "{token}"}})
end
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_cdrs(path: Path, count: int) -> None:
    rng = random.Random(7)
    with path.open("w") as out:
        for i in range(1, count + 1):
            record = {
                "calldate": f"2026-{1 + i % 12:02d}-{1 + i % 28:02d} {i % 24:02d}:{i % 60:02d}:00",
                "src": "+447700900123",
                "dst": f"+4420{rng.randrange(10**7, 10**8)}",
                "type": "O",
                "disposition": "CONNECTED",
                "destination": "out",
                "duration": i % 600,
                "billsec": i % 500,
                "live_id": i,
                "user_id": 1000001,
                "context": "PSTN_CALL",
                "rate": 0.01,
                "charge": 0.05,
            }
            out.write(json.dumps({"resource": "cdrs", "customer_id": 100001, "data": record}) + "\n")


def wait_until_up(url: str, process: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server exited with {process.returncode}")
        try:
            urllib.request.urlopen(url, timeout=1).read()  # noqa: S310 - loopback only
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"{url} did not answer in {timeout}s")


def start_server(data_dir: Path, port: int, cache_bytes: int | None = None) -> subprocess.Popen:
    env = {**os.environ, "TELEPHONY_LOG_LEVEL": "WARNING", "TELEPHONY_CONTROL_KEY": "bench-control-key"}
    if cache_bytes is not None:
        env["TELEPHONY_API_LIST_CACHE_BYTES"] = str(cache_bytes)
    process = subprocess.Popen(
        [PYTHON, "-m", "telephony", "--data-dir", str(data_dir), "serve", "--port", str(port)],
        cwd=data_dir.parent,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_until_up(f"http://127.0.0.1:{port}/_telephony/health", process)
    return process


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()


def login(port: int) -> str:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1.2/voipstudio/login",
        data=json.dumps(ADMIN).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as answer:  # noqa: S310 - loopback only
        return json.load(answer)["user_token"]


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure_wrk(template: str, top: int, token: str, seconds: int, connections: int, scratch: Path) -> float:
    script = scratch / "bench.lua"
    script.write_text(LUA.format(top=top, template=template.replace("%", "%%").replace("%%d", "%d"), token=token))
    url = template.split("?")[0].replace("%d", "1")
    result = subprocess.run(
        ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "-s", str(script), url],
        capture_output=True,
        text=True,
        check=True,
    )
    match = re.search(r"Requests/sec:\s+([\d.]+)", result.stdout)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", result.stdout)
    if non2xx:
        raise SystemExit(f"{non2xx.group(1)} failed responses from {url}")
    return float(match.group(1)) if match else float("nan")


async def _client_load(template: str, top: int, token: str, seconds: int, connections: int) -> float:
    import aiohttp

    done = 0
    deadline = time.monotonic() + seconds
    async with aiohttp.ClientSession(headers={"X-Auth-Token": token}) as session:

        async def worker() -> None:
            nonlocal done
            rng = random.Random()
            while time.monotonic() < deadline:
                async with session.get(template.replace("%d", str(rng.randint(1, top)))) as answer:
                    await answer.read()
                    if answer.status != 200:
                        raise SystemExit(f"HTTP {answer.status} from {template}")
                done += 1

        await asyncio.gather(*(worker() for _ in range(connections)))
    return done / seconds


def measure(template: str, top: int, token: str, args: argparse.Namespace, scratch: Path) -> float:
    if shutil.which("wrk"):
        return measure_wrk(template, top, token, args.seconds, args.connections, scratch)
    return asyncio.run(_client_load(template, top, token, args.seconds, args.connections))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cdrs", type=int, default=1_000_000)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--pages", type=int, default=200, help="page numbers are drawn from 1..PAGES")
    parser.add_argument("--list-cache-bytes", type=int, help="the server's [api] list_cache_bytes (0: no page cache)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="telephony-bench-api-") as scratch_name:
        scratch = Path(scratch_name)
        data_dir, port, bare_port = scratch / "data", free_port(), free_port()
        started = time.monotonic()
        stop(start_server(data_dir, port))  # bootstrap customer and admin
        write_cdrs(scratch / "cdrs.jsonl", args.cdrs)
        subprocess.run(
            [PYTHON, "-m", "telephony", "--data-dir", str(data_dir), "import", str(scratch / "cdrs.jsonl")],
            cwd=scratch,
            check=True,
            stderr=subprocess.DEVNULL,
        )
        print(f"loaded {args.cdrs:,} CDRs in {time.monotonic() - started:.0f} s")
        server = start_server(data_dir, port, args.list_cache_bytes)
        bare = subprocess.Popen([PYTHON, "-c", BARE_APP, str(bare_port)])
        try:
            wait_until_up(f"http://127.0.0.1:{bare_port}/bare", bare)
            token = login(port)
            base = f"http://127.0.0.1:{port}/v1.2/voipstudio/cdrs"
            live = '[{"property":"live_id","operator":"=","value":%d}]'
            page_rps = measure(base + "?page=%d&limit=50", args.pages, token, args, scratch)
            filter_rps = measure(
                base + "?filter=" + urllib.request.quote(live, safe="%"), args.cdrs, token, args, scratch
            )
            bare_rps = measure(f"http://127.0.0.1:{bare_port}/bare?n=%d", 1000, token, args, scratch)
            rss = peak_rss_mb(server.pid)
        finally:
            stop(server)
            stop(bare)
    tool = "wrk" if shutil.which("wrk") else "aiohttp client"
    cache = "default" if args.list_cache_bytes is None else f"{args.list_cache_bytes:,} bytes"
    print(
        f"\nload: {tool}, {args.connections} connections, {args.seconds} s each, {args.cdrs:,} CDRs, "
        f"pages 1..{args.pages}, list page cache: {cache}"
    )
    print(f"{'measure':<44}{'figure':>14}{'goal':>14}")
    print(f"{'GET /cdrs?page=N&limit=50 (req/s)':<44}{page_rps:>14,.0f}")
    print(f"{'GET /cdrs?filter=live_id = K (req/s)':<44}{filter_rps:>14,.0f}")
    print(f"{'bare aiohttp handler (req/s)':<44}{bare_rps:>14,.0f}")
    print(f"{'CDR page / bare':<44}{page_rps / bare_rps:>14.2f}{'>= 0.50':>14}")
    print(f"{'filtered list / bare':<44}{filter_rps / bare_rps:>14.2f}")
    print(f"{'server peak RSS (MB)':<44}{rss:>14.1f}{'< 200':>14}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
