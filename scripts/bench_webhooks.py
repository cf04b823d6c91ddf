#!/usr/bin/env python3
"""Webhook delivery benchmark: call events at a steady rate against a local HTTPS receiver, in one run.

Starts the real server (`telephony serve`, real clock) on a fresh data dir, trusting a CA made for
the run (`[webhooks] ca_file`), with a receiver of its own (aiohttp over HTTPS) subscribed to
`call.state`. Calls ring a number whose target hangs up (`POST /_telephony/simulate/inbound-call`):
each appends its events at once and makes three webhook events (call.initial, call.missed,
call.hangup). Two phases of `--seconds` each at `--rate` webhook events per second:
  1. one live receiver: deliveries per second, and the latency from the append of the call event
     (its `recorded_at` in the log, by the position in the delivery's `webhook-id`) to its arrival
     at the receiver, p50 and p99 (goal: p99 < 100 ms);
  2. the same with a second webhook whose receiver is dead (its port closed after the webhook was
     saved): the live receiver's figures again, which must not move.

    .venv/bin/python scripts/bench_webhooks.py [--rate 500] [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import trustme
from aiohttp import web
from bench_api import free_port, stop, wait_until_up

PYTHON = sys.executable
CONTROL = {"X-Control-Key": "bench-control-key"}
EVENTS_PER_CALL = 3
NUMBER = "+442071230000"
CONFIG = """
[control]
key = "bench-control-key"
[log]
level = "WARNING"
[auth]
v12_inactivity_seconds = 86400
[webhooks]
ca_file = "{ca}"
"""


class Receiver:
    """An HTTPS receiver that notes when each delivery arrives, by its `webhook-id`."""

    def __init__(self) -> None:
        self.arrived: dict[str, float] = {}

    async def handle(self, request: web.Request) -> web.Response:
        await request.read()
        self.arrived.setdefault(request.headers["webhook-id"], time.time())
        return web.Response(status=204)


async def serve_https(ca: trustme.CA, handler, port: int) -> web.AppRunner:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    app = web.Application()
    app.router.add_post("/hooks", handler)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port, ssl_context=context).start()
    return runner


async def call(session: aiohttp.ClientSession, method: str, url: str, status: int, **kwargs) -> dict:
    async with session.request(method, url, **kwargs) as response:
        body = await response.json()
        if response.status != status:
            raise SystemExit(f"{method} {url}: HTTP {response.status} {body}")
        return body


async def webhook(session: aiohttp.ClientSession, base: str, token: str, name: str, url: str) -> None:
    await call(session, "POST", f"{base}/_telephony/webhooks", 201, headers={"X-Auth-Token": token},
               json={"name": name, "url": url, "events": ["call.state"]})  # fmt: skip


async def load(session: aiohttp.ClientSession, base: str, rate: float, seconds: float) -> int:
    """Inbound calls at `rate` webhook events per second for `seconds`; the calls made."""
    interval = EVENTS_PER_CALL / rate
    started, made, tasks = time.perf_counter(), 0, set()
    while (elapsed := time.perf_counter() - started) < seconds:
        body = {"from": f"+4477009{made % 100000:05d}", "to": NUMBER}
        task = asyncio.create_task(call(session, "POST", f"{base}/_telephony/simulate/inbound-call", 201,
                                        headers=CONTROL, json=body))  # fmt: skip
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        made += 1
        await asyncio.sleep(max(0.0, made * interval - elapsed))
    await asyncio.gather(*tasks)
    return made


async def settled(receiver: Receiver, expected: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while len(receiver.arrived) < expected and time.monotonic() < deadline:
        await asyncio.sleep(0.1)


def appended(data_dir: Path, scratch: Path) -> dict[int, float]:
    """Each call event's position and the time it was appended (`telephony log --json`)."""
    times = {}
    for kind in ("call.placed", "call.ended"):
        out = subprocess.run([PYTHON, "-m", "telephony", "--data-dir", str(data_dir), "log", "--json", "--type", kind],
                             capture_output=True, text=True, cwd=scratch, check=True)  # fmt: skip
        for line in out.stdout.splitlines():
            event = json.loads(line)
            recorded = dt.datetime.strptime(event["recorded_at"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=dt.UTC)
            times[event["position"]] = recorded.timestamp()
    return times


def figures(arrived: dict[str, float], since: set[str], appended_at: dict[int, float], seconds: float) -> str:
    latencies = sorted((at - appended_at[int(key.split("_")[1])]) * 1000 for key, at in arrived.items()
                       if key in since)  # fmt: skip
    p50, p99 = statistics.median(latencies), latencies[int(len(latencies) * 0.99) - 1]
    return f"{len(latencies) / seconds:,.0f} deliveries/s, latency p50 {p50:.1f} ms, p99 {p99:.1f} ms"


async def run(args: argparse.Namespace, scratch: Path) -> None:
    ca = trustme.CA()
    pem = scratch / "ca.pem"
    ca.cert_pem.write_to_path(str(pem))
    config = scratch / "bench.toml"
    config.write_text(CONFIG.format(ca=pem))
    port, live_port, dead_port = free_port(), free_port(), free_port()
    with (scratch / "server.log").open("wb") as log:
        server = subprocess.Popen([PYTHON, "-m", "telephony", "--config", str(config), "--data-dir",
                                   str(scratch / "data"), "serve", "--port", str(port)], cwd=scratch,
                                  env={k: v for k, v in os.environ.items() if not k.startswith("TELEPHONY_")},
                                  stdout=subprocess.DEVNULL, stderr=log)  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    wait_until_up(f"{base}/_telephony/health", server)
    receiver = Receiver()
    live = await serve_https(ca, receiver.handle, live_port)
    report = []
    try:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=64)) as session:
            login = await call(session, "POST", f"{base}/v1.2/voipstudio/login", 200,
                               json={"email": "admin@example.com", "password": "change-me-now"})  # fmt: skip
            token = login["user_token"]
            await call(session, "POST", f"{base}/_telephony/customers/100001/ddis", 201, headers=CONTROL,
                       json={"e164": NUMBER, "target_type": "H"})  # fmt: skip
            await webhook(session, base, token, "live", f"https://127.0.0.1:{live_port}/hooks")
            calls = await load(session, base, args.rate, args.seconds)
            await settled(receiver, calls * EVENTS_PER_CALL)
            first = set(receiver.arrived)
            dying = await serve_https(ca, Receiver().handle, dead_port)  # answers while the webhook is saved
            await webhook(session, base, token, "dead", f"https://127.0.0.1:{dead_port}/hooks")
            await dying.cleanup()
            more = await load(session, base, args.rate, args.seconds)
            await settled(receiver, (calls + more) * EVENTS_PER_CALL)
            second = set(receiver.arrived) - first
    finally:
        await live.cleanup()
        stop(server)
    appended_at = appended(scratch / "data", scratch)
    report.append(f"one live receiver, {args.rate:.0f} events/s asked: " +
                  figures(receiver.arrived, first, appended_at, args.seconds))  # fmt: skip
    report.append("with a dead receiver beside it: " + figures(receiver.arrived, second, appended_at, args.seconds))
    print("\n".join(report))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=float, default=500.0, help="webhook events per second")
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-webhooks-") as scratch:
        asyncio.run(run(args, Path(scratch)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
