#!/usr/bin/env python3
"""Reads while calls hang up: `GET /cdrs` pages while the server ends calls at a steady rate.

Against a running server whose data dir holds CDRs (`scripts/bench_api.py` runs it on a million), the
admin places calls and hangs each up at once (`POST /calls`, then `DELETE /calls/{id}`), `--rate`
of them per second (default 200) from `--workers` clients (32), while `wrk` (or an aiohttp client) reads
`GET /cdrs?page=N&limit=50`, N in 1..`--pages` (200; `--newest-first`: sorted by id DESC), for `--seconds`.
Right after each hangup is acknowledged (204) the call's CDR is asked for (`GET /cdrs?filter=[live_id
= id]`, the one whose `dst` is the number dialled): it must be there, or the hangup counts as unseen.
Prints the list's req/s, the hangups per second reached, the hangup's latency and the unseen count.

    .venv/bin/python scripts/bench_hangups.py --port P [--rate 200] [--seconds 10] [--newest-first]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchkit import login

CONTROL_KEY = "bench-control-key"


async def _hang_up_calls(port: int, token: str, rate: float, workers: int, until: float) -> dict[str, Any]:
    """Place and hang up calls at `rate` per second until `until` (monotonic); what it saw."""
    import aiohttp

    root = f"http://127.0.0.1:{port}"
    api = f"{root}/v1.2/voipstudio"
    headers = {"X-Auth-Token": token}
    latencies: list[float] = []
    unseen = failed = 0
    failures: list[str] = []
    async with aiohttp.ClientSession(headers=headers) as session:
        async with session.get(f"{api}/users?limit=1") as answer:
            user_id = (await answer.json())["data"][0]["id"]
        async with session.post(f"{root}/_telephony/users/{user_id}/registrations", json={},
                                headers={"X-Control-Key": CONTROL_KEY}) as answer:  # fmt: skip
            await answer.read()
        started = time.monotonic()
        cycles = iter(range(10**9))

        async def worker() -> None:
            nonlocal unseen, failed

            async def refused(method: str, answer: Any) -> None:
                nonlocal failed
                failed += 1
                if len(failures) < 5:
                    failures.append(f"{method} {answer.status} {(await answer.text())[:200]}")

            for n in cycles:
                due = started + n / rate
                if due >= until:
                    return
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                number = f"+4470{n:08d}"
                async with session.post(f"{api}/calls", json={"to": number}) as answer:
                    if answer.status != 201:
                        await refused("POST /calls", answer)
                        continue
                    placed = await answer.json()
                call_id = placed["data"]["id"]
                begun = time.perf_counter()
                async with session.delete(f"{api}/calls/{call_id}") as answer:
                    if answer.status != 204:
                        await refused("DELETE /calls/{id}", answer)
                        continue
                    await answer.read()
                latencies.append(time.perf_counter() - begun)
                flt = json.dumps([{"property": "live_id", "operator": "eq", "value": call_id}])
                async with session.get(f"{api}/cdrs", params={"filter": flt}) as answer:
                    body = await answer.json()
                unseen += not any(cdr["dst"] == number for cdr in body.get("data", ()))

        await asyncio.gather(*(worker() for _ in range(workers)))
        elapsed = time.monotonic() - started
    latencies.sort()
    return {
        "hangups": len(latencies),
        "hangups_per_s": len(latencies) / elapsed,
        "hangup_p50_ms": statistics.median(latencies) * 1e3 if latencies else float("nan"),
        "hangup_p99_ms": latencies[int(len(latencies) * 0.99)] * 1e3 if latencies else float("nan"),
        "unseen": unseen,
        "failed": failed,
        "failures": failures,
    }


async def _measure_while_hanging_up(port: int, token: str, args: argparse.Namespace, scratch: Path) -> dict:
    from bench_api import measure

    order = "&sort=id&dir=DESC" if args.newest_first else ""
    template = f"http://127.0.0.1:{port}/v1.2/voipstudio/cdrs?page=%d&limit=50{order}"
    until = time.monotonic() + args.seconds + 1
    writes = asyncio.create_task(_hang_up_calls(port, token, args.rate, args.workers, until))
    await asyncio.sleep(0.5)  # the hangups run at their rate before the reads start
    reads = await asyncio.to_thread(measure, template, args.pages, token, args, scratch)
    figures = await writes
    return {"list_rps": reads, **figures}


def reads_while_hanging_up(port: int, token: str, args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    """GET /cdrs pages 1..`args.pages` (req/s) while `args.rate` calls per second hang up; the hangups' figures."""
    return asyncio.run(_measure_while_hanging_up(port, token, args, scratch))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True, help="a running server (control key bench-control-key)")
    parser.add_argument("--rate", type=float, default=200.0, help="hangups per second")
    parser.add_argument("--workers", type=int, default=32, help="clients hanging calls up")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--pages", type=int, default=200, help="page numbers are drawn from 1..PAGES")
    parser.add_argument("--newest-first", action="store_true", help="read the pages newest first (sort=id, DESC)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="telephony-bench-hangups-") as scratch:
        figures = reads_while_hanging_up(args.port, login(args.port), args, Path(scratch))
    for name, value in figures.items():
        if name == "failures":
            print(*(f"failed: {failure}" for failure in value), sep="\n")
        else:
            print(f"{name:<20}{value:>12,.1f}")
    return 0 if figures["unseen"] == 0 and figures["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
