#!/usr/bin/env python3
"""API benchmark: every list figure of the read path over a million CDRs, against a bare aiohttp
handler, in one run, and the data dir's storage, verify, replay and start-up figures.

Loads N CDRs (default 1,000,000) into a fresh data dir with `telephony import` (or takes one with
`--data-dir`), then measures requests per second with `wrk` when it is installed (apt-get install
wrk), an aiohttp client otherwise, with the list page cache off and on (`[api] list_cache_bytes`):
  - `GET /cdrs?page=N&limit=50`, N in 1..200 and N anywhere in the collection;
  - filtered lists: `live_id =`, a `calldate` range with `type eq` (sorted by calldate),
    `user_id eq`, `src like` and `dst like` (substrings);
  - a bare aiohttp handler answering a small JSON body (the ratios' denominator), and one that reads
    pages 1..200 straight from SQLite and nothing else (the most an uncached page can reach);
  - a BI-style walk: every page (`limit=5000`) of one `calldate` month, against reading the same
    rows straight from SQLite and encoding them with msgspec;
  - the Singer tap's walk: every page (`limit=5000`) of all the CDRs by id, in order (seconds);
  - pages 1..200 while calls hang up at `--hangup-rate` per second (`scripts/bench_hangups.py`,
    which also checks that each CDR is listed as soon as its hangup is acknowledged), oldest and
    then newest first;
then bytes per CDR on disk, `telephony verify`, `telephony replay` (events/s), start-up time and
the server's peak RSS; and, unless `--no-mixed`, the mixed read/write load of
`scripts/bench_mixed.py`. Prints a table with the goal beside each figure.

    .venv/bin/python scripts/bench_api.py [--cdrs 1000000] [--seconds 10] [--connections 32]
        [--data-dir DIR] [--no-mixed] [--no-audit] [--hangup-rate 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bench_hangups import reads_while_hanging_up
from benchkit import PYTHON, compiled, free_port, login, peak_rss_mb, start_server, stop, wait_until_up

BARE_APP = """
import sys
from aiohttp import web
async def handle(request):
    return web.json_response({"data": [], "total": 0})
app = web.Application()
app.router.add_get("/bare", handle)
loop = __import__("uvloop").new_event_loop() if sys.argv[2] == "uvloop" else None
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None, access_log=None, loop=loop)
"""
FLOOR_APP = """
import sqlite3, sys
from aiohttp import web
conn = sqlite3.connect(f"file:{sys.argv[2]}?mode=ro", uri=True, isolation_level=None)
conn.execute("PRAGMA cache_size=-32768")
CUSTOMER = 100001
PAGE = ("SELECT CAST(group_concat(body, ',') AS BLOB) FROM (SELECT body FROM doc_cdr WHERE customer_id = ? "
        "AND id > ? ORDER BY id LIMIT 50)")
TOTAL = "SELECT n FROM doc_cdr_counts WHERE customer_id = ?"
async def page(request):
    after = (int(request.query["page"]) - 1) * 50
    joined, total = conn.execute(PAGE, (CUSTOMER, after)).fetchone()[0], conn.execute(TOTAL, (CUSTOMER,)).fetchone()[0]
    return web.Response(body=b'{"data":[%s],"total":%d}' % (joined or b"", total), content_type="application/json")
app = web.Application()
app.router.add_get("/page", page)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None, access_log=None,
            loop=__import__("uvloop").new_event_loop())
"""
"""A handler that does nothing but read a page of CDRs from SQLite, on uvloop as the server runs, on the
loop as the server reads a page: the most an uncached page can reach here. It answers what the server
answers: the fresh import's ids are dense, so page N is found by id (the server skips to it in the
index), and `total` is the kept count."""
LUA = """
math.randomseed(os.time())
request = function()
  local n = math.random(1, {top})
  return wrk.format("GET", string.format("{template}", n), {{["X-Auth-Token"] = "{token}"}})
end
"""


def write_cdrs(path: Path, count: int) -> None:
    rng = random.Random(7)
    with path.open("w") as out:
        for i in range(1, count + 1):
            record = {
                "calldate": f"2026-{1 + i % 12:02d}-{1 + i % 28:02d} {i % 24:02d}:{i % 60:02d}:00",
                "src": f"+447700{i % 1_000_000:06d}",
                "dst": f"+4420{rng.randrange(10**7, 10**8)}",
                "type": "I" if i % 5 == 0 else "O",
                "disposition": "CONNECTED",
                "destination": "out",
                "duration": i % 600,
                "billsec": i % 500,
                "live_id": i,
                "user_id": 1000001 + i % 4,
                "context": "PSTN_CALL",
                "rate": 0.01,
                "charge": 0.05,
            }
            out.write(json.dumps({"resource": "cdrs", "customer_id": 100001, "data": record}) + "\n")


def list_cache_env(cache_bytes: int | None) -> dict[str, str]:
    return {} if cache_bytes is None else {"TELEPHONY_API_LIST_CACHE_BYTES": str(cache_bytes)}


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


MONTH = ("2026-03-01 00:00:00", "2026-04-01 00:00:00")
"""The month of the BI walk and the calldate-range lists (a twelfth of the CDRs)."""


def lists(cdrs: int, pages: int) -> list[tuple[str, str, int, str]]:
    """(label, query template, top of %d, goal as a ratio to bare) of every list figure."""

    def flt(*conditions: tuple[str, str, object]) -> str:
        return "filter=" + urllib.request.quote(
            json.dumps([{"property": p, "operator": o, "value": v} for p, o, v in conditions]), safe="%"
        ).replace("%25d", "%d")

    month = (("calldate", "gte", MONTH[0]), ("calldate", "lt", MONTH[1]))
    return [
        ("page N in 1..200", "?page=%d&limit=50", min(pages, 200), ">= 0.50"),
        ("page N anywhere (first..last)", "?page=%d&limit=50", max(1, cdrs // 50), ">= 0.50"),
        ("live_id = K", "?" + flt(("live_id", "eq", "%d")), cdrs, ">= 0.50"),
        ("type eq + calldate month, sorted", "?limit=50&sort=calldate&page=%d&" + flt(("type", "eq", "O"), *month),
         200, ">= 0.50"),
        ("user_id eq", "?limit=50&page=%d&" + flt(("user_id", "eq", 1000002)), 200, ">= 0.50"),
        ("src like (substring)", "?limit=50&" + flt(("src", "like", "77%d")), 9999, ">= 0.50"),
        ("dst like (substring)", "?limit=50&" + flt(("dst", "like", "20%d")), 999, ">= 0.50"),
    ]  # fmt: skip


def walk(port: int, token: str, query: str) -> tuple[float, int]:
    """Seconds to read every page (limit 5000) of the CDRs a query lists, in order, and the rows read."""
    started, rows, page = time.perf_counter(), 0, 1
    while True:
        url = f"http://127.0.0.1:{port}/v1.2/voipstudio/cdrs?{query}&limit=5000&page={page}"
        request = urllib.request.Request(url, headers={"X-Auth-Token": token})
        with urllib.request.urlopen(request) as answer:  # noqa: S310 - loopback only
            data = json.loads(answer.read())["data"]
        rows += len(data)
        if len(data) < 5000:
            return time.perf_counter() - started, rows
        page += 1


def bi_walk(port: int, token: str) -> tuple[float, int]:
    """Seconds to read every page (limit 5000) of the month's CDRs by calldate, and the rows read."""
    conditions = [{"property": "calldate", "operator": "gte", "value": MONTH[0]},
                  {"property": "calldate", "operator": "lt", "value": MONTH[1]}]  # fmt: skip
    return walk(port, token, "filter=" + urllib.request.quote(json.dumps(conditions)) + "&sort=calldate")


def bi_limit(data_dir: Path) -> tuple[float, int]:
    """Seconds to read the month's rows straight from SQLite and encode them with msgspec, in pages."""
    import sqlite3

    import msgspec

    conn = sqlite3.connect(f"file:{data_dir / 'events.db'}?mode=ro", uri=True)
    started, rows = time.perf_counter(), 0
    columns = {row[1] for row in conn.execute("PRAGMA table_info(doc_cdr)")}
    calldate = "calldate" if "calldate" in columns else "json_extract(body, '$.calldate')"  # as the data dir has it
    cursor = conn.execute(
        f"SELECT body FROM doc_cdr WHERE customer_id = 100001 AND {calldate} >= ? AND {calldate} < ? "
        f"ORDER BY {calldate}, id",
        MONTH,
    )
    while found := cursor.fetchmany(5000):
        msgspec.json.encode({"data": [msgspec.json.decode(row[0]) for row in found], "total": 0})
        rows += len(found)
    conn.close()
    return time.perf_counter() - started, rows


def timed(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def events_in(data_dir: Path) -> int:
    import sqlite3

    conn = sqlite3.connect(f"file:{data_dir / 'events.db'}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT coalesce(max(position), 0) FROM events").fetchone()[0]
    finally:
        conn.close()


def app_rps(source: str, argv: list[str], port: int, path: str, top: int, args: argparse.Namespace, scratch: Path
            ) -> float:  # fmt: skip
    """Req/s of the aiohttp app `source` (run with its port and `argv`) answering `path`, %d in 1..`top`."""
    app = subprocess.Popen([PYTHON, "-c", source, str(port), *argv])
    try:
        wait_until_up(f"http://127.0.0.1:{port}{path.replace('%d', '1')}", app)
        return measure(f"http://127.0.0.1:{port}{path}", top, "-", args, scratch)
    finally:
        stop(app)


def list_figures(data_dir: Path, port: int, cache_bytes: int, args: argparse.Namespace, scratch: Path
                 ) -> tuple[dict[str, float], float, float]:  # fmt: skip
    """Req/s of every list with this page cache, the start-up seconds and the peak RSS."""
    started = time.perf_counter()
    server = start_server(data_dir, port, list_cache_env(cache_bytes))
    startup = time.perf_counter() - started
    try:
        token = login(port)
        base = f"http://127.0.0.1:{port}/v1.2/voipstudio/cdrs"
        figures = {}
        for label, template, top, _ in lists(args.cdrs, args.pages):
            measure(
                base + template.replace("%d", "1"),
                1,
                token,
                argparse.Namespace(**{**vars(args), "seconds": 1}),
                scratch,
            )  # warm
            figures[label] = measure(base + template, top, token, args, scratch)
        bi_walk(port, token)  # warm, as every list above
        walk_seconds, walked = bi_walk(port, token)
        figures["BI walk (rows/s)"] = walked / walk_seconds
        figures["tap walk (s)"], figures["tap walk rows"] = walk(port, token, "sort=id")
        if args.hangup_rate:
            for order, newest_first in (("busy", False), ("busy newest", True)):
                busy = reads_while_hanging_up(port, token, argparse.Namespace(
                    **{**vars(args), "rate": args.hangup_rate, "newest_first": newest_first}), scratch)  # fmt: skip
                figures.update({f"{order} {name}": value for name, value in busy.items()})
        return figures, startup, peak_rss_mb(server.pid)
    finally:
        stop(server)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cdrs", type=int, default=1_000_000)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--pages", type=int, default=200, help="page numbers are drawn from 1..PAGES")
    parser.add_argument("--data-dir", type=Path, help="a data dir already holding the CDRs (kept as it is)")
    parser.add_argument("--no-mixed", action="store_true", help="skip the mixed read/write load")
    parser.add_argument("--no-audit", action="store_true", help="skip `telephony verify` and `telephony replay`")
    parser.add_argument("--hangup-rate", type=float, default=200.0, help="calls hung up per second while reading "
                        "(scripts/bench_hangups.py; 0 skips it)")  # fmt: skip
    parser.add_argument("--workers", type=int, default=32, help="clients hanging calls up")
    args = parser.parse_args()
    compiled()
    with tempfile.TemporaryDirectory(prefix="telephony-bench-api-") as scratch_name:
        scratch = Path(scratch_name)
        data_dir, port, bare_port = args.data_dir or scratch / "data", free_port(), free_port()
        if args.data_dir is None:
            started = time.monotonic()
            stop(start_server(data_dir, port))  # bootstrap customer and admin
            write_cdrs(scratch / "cdrs.jsonl", args.cdrs)
            load = [PYTHON, "-m", "telephony", "--data-dir", str(data_dir), "import", str(scratch / "cdrs.jsonl")]
            subprocess.run(load, cwd=scratch, check=True, stderr=subprocess.DEVNULL)
            print(f"loaded {args.cdrs:,} CDRs in {time.monotonic() - started:.0f} s")
        bare_rps, bare_uvloop_rps = (app_rps(BARE_APP, [loop], bare_port, "/bare?n=%d", 1000, args, scratch)
                                     for loop in ("asyncio", "uvloop"))  # fmt: skip
        floor_rps = app_rps(FLOOR_APP, [str(data_dir / "events.db")], bare_port, "/page?page=%d", 200, args, scratch)
        uncached, startup, rss = list_figures(data_dir, port, 0, args, scratch)
        cached, _, rss_cached = list_figures(data_dir, port, 32 * 1024 * 1024, args, scratch)
        limit_seconds, limit_rows = bi_limit(data_dir)
        size = sum(f.stat().st_size for f in data_dir.rglob("*") if f.is_file())
        events = events_in(data_dir)
        telephony = [PYTHON, "-m", "telephony", "--data-dir", str(data_dir)]
        audited = not args.no_audit
        verify_seconds = timed([*telephony, "verify"], scratch) if audited else float("nan")
        replay_seconds = timed([*telephony, "replay"], scratch) if audited else float("nan")
    tool = "wrk" if shutil.which("wrk") else "aiohttp client"
    print(f"\nload: {tool}, {args.connections} connections, {args.seconds} s each, {args.cdrs:,} CDRs; "
          f"bare aiohttp handler: {bare_rps:,.0f} req/s (the ratios' denominator; on uvloop, as the server runs: "
          f"{bare_uvloop_rps:,.0f})")  # fmt: skip
    print(f"{'GET /cdrs, list page cache off | on':<40}{'req/s':>9}{'/ bare':>8}{'req/s':>9}{'/ bare':>8}{'goal':>10}")
    for label, _, _, goal in lists(args.cdrs, args.pages):
        off, on = uncached[label], cached[label]
        print(f"{label:<40}{off:>9,.0f}{off / bare_rps:>8.2f}{on:>9,.0f}{on / bare_rps:>8.2f}{goal:>10}")
    label = "  page N in 1..200: SQLite alone"
    print(f"{label:<40}{floor_rps:>9,.0f}{floor_rps / bare_rps:>8.2f}{'':>17}{'(ceiling)':>10}")
    limit_rate = limit_rows / limit_seconds
    walk_off, walk_on = uncached["BI walk (rows/s)"], cached["BI walk (rows/s)"]
    print(f"{'BI walk, rows/s (/ SQLite+msgspec)':<40}{walk_off:>9,.0f}{walk_off / limit_rate:>8.2f}"
          f"{walk_on:>9,.0f}{walk_on / limit_rate:>8.2f}{'>= 0.50':>10}")  # fmt: skip
    print(f"{'  SQLite + msgspec, rows/s':<40}{limit_rate:>9,.0f}")
    tap_off, tap_on = uncached["tap walk (s)"], cached["tap walk (s)"]
    print(f"{'tap walk: all CDRs by id, limit 5000, s':<40}{tap_off:>9.1f}{'':>8}{tap_on:>9.1f}"
          f"{'':>8}{'':>10}  ({uncached['tap walk rows']:,.0f} rows)")  # fmt: skip
    print(f"{'storage, bytes per CDR':<40}{size / max(args.cdrs, 1):>9,.0f}{'':>25}{'<= 700':>10}")
    print(f"{'telephony verify, s':<40}{verify_seconds:>9.1f}{'':>25}{'<= 15':>10}")
    print(f"{'telephony replay, events/s':<40}{events / replay_seconds:>9,.0f}{'':>25}{'>= 75,000':>10}")
    print(f"{'start-up, s':<40}{startup:>9.2f}{'':>25}{'< 1':>10}")
    print(f"{'server peak RSS, MB (cache off | on)':<40}{rss:>9.0f}{'':>8}{rss_cached:>9.0f}{'':>8}{'< 200':>10}")
    if args.hangup_rate:
        rows = ((f"page 1..200 while {args.hangup_rate:,.0f} hang up/s", "busy"),
                ("  the same, newest first (sort=id DESC)", "busy newest"))  # fmt: skip
        for label, order in rows:
            off, on = uncached[f"{order} list_rps"], cached[f"{order} list_rps"]
            print(f"{label:<40}{off:>9,.0f}{off / bare_rps:>8.2f}{on:>9,.0f}{on / bare_rps:>8.2f}{'>= 0.40':>10}")
        for figures, state in ((uncached, "off"), (cached, "on")):
            for order in ("busy", "busy newest"):
                seen = {name: figures[f"{order} {name}"] for name in ("hangups_per_s", "hangup_p50_ms",
                        "hangup_p99_ms", "unseen", "hangups", "failed", "failures")}  # fmt: skip
                print(
                    f"  cache {state}{', newest first' if order != 'busy' else ''}: "
                    f"{seen['hangups_per_s']:,.0f} hangups/s, hangup p50 {seen['hangup_p50_ms']:.1f} ms, "
                    f"p99 {seen['hangup_p99_ms']:.1f} ms; CDRs not listed right after their hangup: "
                    f"{seen['unseen']:,.0f} of {seen['hangups']:,.0f} (goal 0), failed: {seen['failed']:,.0f}"
                )
                print(*(f"    {failure}" for failure in seen["failures"]), sep="\n")
    if not args.no_mixed:
        print("\nmixed load (scripts/bench_mixed.py):", flush=True)
        subprocess.run([PYTHON, str(Path(__file__).with_name("bench_mixed.py")), "--seconds", str(args.seconds),
                        "--long-seconds", str(3 * args.seconds)], check=False)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
