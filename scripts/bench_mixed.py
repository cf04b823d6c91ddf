#!/usr/bin/env python3
"""Mixed reads and writes on contacts: pure runs of each operation, then mixes of them, in one run.

Starts the real server in a fresh data dir, creates 2,000 contacts (20 pages of 50), then runs each
mix for `--seconds` with `--connections` concurrent workers of an aiohttp client in this process:
  1. creates only (POST /contacts)             5. 98% lists, 2% creates
  2. lists only (GET /contacts?page=1..20)     6. 50% creates, 40% patches, 10% deletes
  3. patches only (PATCH /contacts/{id})       7. 50% creates, 50% lists
  4. deletes only (DELETE /contacts/{id})      8. 35% creates, 40% lists, 15% patches, 10% deletes,
                                                  for `--long-seconds`
Patches and deletes take their ids from a pool of live contacts that creates add to. Before a mix
that deletes more than it creates (4), the pool is topped up for it; should it still fall under 200
ids, a delete is replaced by a create that is not counted. For each mix it prints req/s, p50 and
p99 latency overall and per operation, and this process's CPU use (near 100%: the client is the
bottleneck), then checks mix 8 against the goals:
  - at least 2,000 req/s overall, and p99 under 50 ms;
  - no operation slower than in its pure run (1-4) by more than 2x, at p50 and at p99.
Also prints the server's peak RSS. Exit status: 0 goals met, 1 a goal missed, 2 a request failed
(any answer that is not 2xx; they are listed).

    .venv/bin/python scripts/bench_mixed.py [--seconds 20] [--long-seconds 60] [--connections 32]
        [--mixes 1,2,...,8] [--synchronous FULL|NORMAL] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import operator
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import msgspec
from benchkit import free_port, login, peak_rss_mb, start_server, stop
from yarl import URL

OPS = {"create": "creates", "list": "lists", "patch": "patches", "delete": "deletes"}
"""The operations, and their plurals for titles."""
TAKERS = frozenset({"patch", "delete"})
"""The operations that take an id out of the pool."""
PURE_MIX = {"create": 1, "list": 2, "patch": 3, "delete": 4}
"""The mix that runs each operation alone."""
PAGES, PAGE_SIZE, PREFILL, FLOOR = 20, 50, 2_000, 200
DRAIN_MARGIN = 2.0
"""Before a mix that deletes more than it creates, the pool is topped up for this many times the ids
that it would take at the fastest write rate seen so far (deletes go faster than creates)."""
GOAL_RPS, GOAL_P99_MS, GOAL_RATIO = 2_000, 50, 2.0
JSON = {"Content-Type": "application/json"}
FIRST_NAMES = ("Ann", "Bob", "Carol", "Dave", "Eve", "Femi", "Gita", "Hugo", "Ines", "Jun", "Kofi", "Lena")
LAST_NAMES = ("Smith", "Jones", "Adams", "Okafor", "Novak", "Silva", "Tanaka", "Khan", "Moreau", "Berg")


@dataclass(frozen=True)
class Mix:
    number: int
    weights: dict[str, int]
    long: bool = False

    @property
    def title(self) -> str:
        total = sum(self.weights.values())
        if len(self.weights) == 1:
            return f"{OPS[next(iter(self.weights))]} only"
        return ", ".join(f"{100 * w // total}% {OPS[op]}" for op, w in self.weights.items())


MIXES = {
    mix.number: mix
    for mix in (
        Mix(1, {"create": 1}),
        Mix(2, {"list": 1}),
        Mix(3, {"patch": 1}),
        Mix(4, {"delete": 1}),
        Mix(5, {"list": 98, "create": 2}),
        Mix(6, {"create": 50, "patch": 40, "delete": 10}),
        Mix(7, {"create": 50, "list": 50}),
        Mix(8, {"create": 35, "list": 40, "patch": 15, "delete": 10}, long=True),
    )
}


class _Id(msgspec.Struct):
    id: int


class _Created(msgspec.Struct):
    data: _Id


decode_created = msgspec.json.Decoder(_Created).decode


# --- the pool of live contact ids ----------------------------------------------------------------


class Pool:
    """Live contact ids not in flight: a patch or a delete takes one out, a create or a patch adds one."""

    def __init__(self) -> None:
        self.ids: list[int] = []

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, contact_id: int) -> None:
        self.ids.append(contact_id)

    def take(self, rng: random.Random) -> int:
        ids = self.ids
        i = rng.randrange(len(ids))
        ids[i], ids[-1] = ids[-1], ids[i]
        return ids.pop()


# --- the client ----------------------------------------------------------------------------------


@dataclass
class Client:
    session: aiohttp.ClientSession
    base: URL
    pool: Pool = field(default_factory=Pool)
    failures: list[str] = field(default_factory=list)
    failed: Counter = field(default_factory=Counter)
    serial: int = 0
    stage: str = "prefill"
    """What is running, for the failures' descriptions."""

    def __post_init__(self) -> None:
        self.contacts = self.base / "contacts"
        query = {"limit": PAGE_SIZE, "sort": "id", "dir": "DESC"}
        self.pages = [self.contacts.with_query(page=page, **query) for page in range(1, PAGES + 1)]
        self.patches = [msgspec.json.encode({"notes": f"note {n}", "company": f"Firm {n}"}) for n in range(64)]

    async def _send(self, op: str, method: str, url: URL, body: bytes | None = None) -> bytes | None:
        """The answer's body when it is a 2xx, else None with the failure recorded."""
        try:
            async with self.session.request(method, url, data=body, headers=JSON if body else None) as answer:
                data = await answer.read()
                if 200 <= answer.status < 300:
                    return data
                self._fail(op, f"{method} {url.path_qs}: HTTP {answer.status} {data[:200]!r}")
        except (TimeoutError, aiohttp.ClientError) as error:
            self._fail(op, f"{method} {url.path_qs}: {error!r}")
        return None

    def _fail(self, op: str, description: str) -> None:
        self.failed[op] += 1
        self.failures.append(f"{self.stage}: {description}")

    def new_contact(self, rng: random.Random) -> bytes:
        self.serial += 1
        return msgspec.json.encode(
            {
                "first_name": f"{rng.choice(FIRST_NAMES)} {self.serial}",
                "last_name": f"{rng.choice(LAST_NAMES)}-{rng.randrange(10**6):06d}",
                "tel": f"+4420{rng.randrange(10**7, 10**8)}",
            }
        )

    async def create(self, rng: random.Random) -> None:
        data = await self._send("create", "POST", self.contacts, self.new_contact(rng))
        if data is not None:
            self.pool.add(decode_created(data).data.id)

    async def list(self, rng: random.Random) -> None:
        await self._send("list", "GET", rng.choice(self.pages))

    async def patch(self, rng: random.Random) -> None:
        contact_id = self.pool.take(rng)
        if await self._send("patch", "PATCH", self.contacts / str(contact_id), rng.choice(self.patches)) is not None:
            self.pool.add(contact_id)

    async def delete(self, rng: random.Random) -> None:
        await self._send("delete", "DELETE", self.contacts / str(self.pool.take(rng)))


# --- runs ----------------------------------------------------------------------------------------


@dataclass
class Result:
    mix: Mix
    seconds: float
    samples: dict[str, list[float]]
    """Latencies in seconds by operation."""
    refills: int = 0
    """Patches or deletes replaced by uncounted creates to keep FLOOR ids in the pool."""
    client_cpu: float = 0.0
    """This process's CPU time over the wall time: near 1.0, the client is the bottleneck."""

    def all_samples(self) -> list[float]:
        return [s for samples in self.samples.values() for s in samples]

    @property
    def rate(self) -> float:
        return sum(map(len, self.samples.values())) / self.seconds


def percentile(sorted_samples: list[float], q: float) -> float:
    """Nearest-rank percentile, 0 < q <= 1."""
    return sorted_samples[max(0, math.ceil(q * len(sorted_samples)) - 1)]


async def _worker(client: Client, mix: Mix, deadline: float, rng: random.Random, result: Result) -> None:
    ops, weights = list(mix.weights), list(mix.weights.values())
    calls = {op: getattr(client, op) for op in OPS}
    clock = time.perf_counter
    while clock() < deadline:
        op = rng.choices(ops, weights)[0]
        if op in TAKERS and len(client.pool) < FLOOR:
            await client.create(rng)
            result.refills += 1
            continue
        started = clock()
        await calls[op](rng)
        result.samples[op].append(clock() - started)


async def run_mix(client: Client, mix: Mix, seconds: float, connections: int, seed: int) -> Result:
    result = Result(mix, seconds, {op: [] for op in mix.weights})
    started, cpu = time.perf_counter(), time.process_time()
    deadline = started + seconds
    rngs = [random.Random(f"{seed}-{mix.number}-{n}") for n in range(connections)]
    await asyncio.gather(*(_worker(client, mix, deadline, rng, result) for rng in rngs))
    result.seconds = time.perf_counter() - started
    result.client_cpu = (time.process_time() - cpu) / result.seconds
    return result


async def fill(client: Client, count: int, connections: int, rng: random.Random) -> float:
    """Create `count` contacts with `connections` workers; answer creates per second."""
    left, started = count, time.perf_counter()

    async def creator() -> None:
        nonlocal left
        while left > 0:
            left -= 1
            await client.create(rng)

    await asyncio.gather(*(creator() for _ in range(connections)))
    return count / (time.perf_counter() - started)


def ids_needed(mix: Mix, seconds: float, write_rate: float) -> int:
    """The pool a mix needs so as not to fall under FLOOR ids, if its writes go at `write_rate`."""
    drain = (mix.weights.get("delete", 0) - mix.weights.get("create", 0)) / sum(mix.weights.values())
    return FLOOR + math.ceil(max(0.0, drain) * write_rate * seconds * DRAIN_MARGIN)


# --- report --------------------------------------------------------------------------------------


def stats_ms(samples: list[float]) -> tuple[float, float]:
    if not samples:
        return math.nan, math.nan
    ordered = sorted(samples)
    return percentile(ordered, 0.5) * 1000, percentile(ordered, 0.99) * 1000


def print_result(result: Result) -> None:
    mix = result.mix
    print(f"\nmix {mix.number}: {mix.title} ({result.seconds:.1f} s)")
    print(f"  {'operation':<10}{'requests':>10}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}")
    rows = [("all", result.all_samples())] + [(op, result.samples[op]) for op in mix.weights]
    for name, samples in rows:
        p50, p99 = stats_ms(samples)
        print(f"  {name:<10}{len(samples):>10,}{len(samples) / result.seconds:>10,.0f}{p50:>10.1f}{p99:>10.1f}")
    if result.refills:
        print(f"  ({result.refills:,} replaced by uncounted creates to keep {FLOOR} ids in the pool)")
    print(f"  client CPU: {result.client_cpu:.0%} of a core")


COMPARE = {">=": operator.ge, "<": operator.lt, "<=": operator.le}


@dataclass
class Row:
    measure: str
    value: float
    goal: float | None = None
    """None: shown for information only."""
    compare: str = ">="
    """How the value must compare with the goal: one of COMPARE."""
    digits: int = 1

    @property
    def ok(self) -> bool:
        return self.goal is None or COMPARE[self.compare](self.value, self.goal)

    def __str__(self) -> str:
        goal = "" if self.goal is None else f"{self.compare} {self.goal:,.{self.digits}f}"
        result = "" if self.goal is None else "PASS" if self.ok else "FAIL"
        return f"{self.measure:<40}{self.value:>14,.{self.digits}f}{goal:>14}  {result}"


def summary_rows(results: dict[int, Result]) -> list[Row]:
    final = results[8]
    rows = [
        Row("mix 8 req/s", final.rate, GOAL_RPS, digits=0),
        Row("mix 8 p99 ms", stats_ms(final.all_samples())[1], GOAL_P99_MS, "<"),
    ]
    for op in final.mix.weights:
        pure = results.get(PURE_MIX[op])
        if pure is None:
            continue
        mixed, alone = stats_ms(final.samples[op]), stats_ms(pure.samples[op])
        for i, label in enumerate(("p50", "p99")):
            name = f"{op} {label}: mix 8 / mix {pure.mix.number} (x)"
            rows.append(Row(name, mixed[i] / alone[i], GOAL_RATIO, "<=", digits=2))
    return rows


def report(rows: list[Row]) -> bool:
    print(f"\n{'measure':<40}{'value':>14}{'goal':>14}  result")
    for row in rows:
        print(row)
    return all(row.ok for row in rows)


def print_failures(client: Client, shown: int = 20) -> None:
    print(f"\n{len(client.failures):,} requests failed: " + ", ".join(f"{op} {n:,}" for op, n in client.failed.items()))
    for description in client.failures[:shown]:
        print(f"  {description}")
    if len(client.failures) > shown:
        print(f"  ... and {len(client.failures) - shown:,} more")


# --- main ----------------------------------------------------------------------------------------


async def top_up(client: Client, mix: Mix, seconds: float, write_rate: float, args: argparse.Namespace) -> None:
    """Create what `mix` will need so that its deletes do not have to be replaced by creates."""
    missing = ids_needed(mix, seconds, write_rate) - len(client.pool)
    if missing > 0:
        started = time.perf_counter()
        await fill(client, missing, args.connections, random.Random(f"{args.seed}-fill-{mix.number}"))
        print(f"\ncreated {missing:,} more contacts for mix {mix.number} in {time.perf_counter() - started:.1f} s")


async def bench(port: int, token: str, args: argparse.Namespace) -> tuple[Client, dict[int, Result]]:
    connector = aiohttp.TCPConnector(limit=args.connections)
    headers = {"X-Auth-Token": token}
    async with aiohttp.ClientSession(connector=connector, headers=headers) as session:
        client = Client(session, URL(f"http://127.0.0.1:{port}/v1.2/voipstudio"))
        write_rate = await fill(client, PREFILL, args.connections, random.Random(f"{args.seed}-prefill"))
        print(f"created {PREFILL:,} contacts at {write_rate:,.0f}/s", flush=True)
        results = {}
        for number in args.mixes:
            mix = MIXES[number]
            seconds = args.long_seconds if mix.long else args.seconds
            client.stage = f"mix {number}"
            await top_up(client, mix, seconds, write_rate, args)
            result = results[number] = await run_mix(client, mix, seconds, args.connections, args.seed)
            print_result(result)
            sys.stdout.flush()
            if "list" not in mix.weights:
                write_rate = max(write_rate, result.rate)
    return client, results


def parse_mixes(text: str) -> list[int]:
    numbers = [int(part) for part in text.split(",") if part.strip()]
    unknown = sorted(set(numbers) - set(MIXES))
    if unknown:
        raise argparse.ArgumentTypeError(f"no mix {unknown}: mixes are 1..{len(MIXES)}")
    return numbers


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=20, help="duration of mixes 1-7 (default 20)")
    parser.add_argument("--long-seconds", type=float, default=60, help="duration of mix 8 (default 60)")
    parser.add_argument("--connections", type=int, default=32, help="concurrent workers (default 32)")
    parser.add_argument("--mixes", type=parse_mixes, default=list(MIXES), help="e.g. 1,2,8 (default: all)")
    parser.add_argument("--synchronous", choices=("FULL", "NORMAL"), help="the server's [eventlog] synchronous")
    parser.add_argument("--seed", type=int, default=1, help="seed of the workers' random choices (default 1)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    env = {} if args.synchronous is None else {"TELEPHONY_EVENTLOG_SYNCHRONOUS": args.synchronous}
    with tempfile.TemporaryDirectory(prefix="telephony-bench-mixed-") as scratch:
        port = free_port()
        server = start_server(Path(scratch) / "data", port, env)
        try:
            client, results = asyncio.run(bench(port, login(port), args))
            rss = peak_rss_mb(server.pid)
        finally:
            stop(server)
    sync = args.synchronous or "server default"
    print(f"\nload: aiohttp client, {args.connections} connections, eventlog synchronous: {sync}, seed {args.seed}")
    rows = summary_rows(results) if 8 in results else []
    if not rows:
        print("no goals checked: mix 8 was not run")
    ok = report(rows + [Row("server peak RSS MB", rss)])
    if client.failures:
        print_failures(client)
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
