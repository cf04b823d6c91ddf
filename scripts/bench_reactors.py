#!/usr/bin/env python
"""Benchmark of the spine for behaviour, in one run on one machine.

(a) timers: the cost of 10,000 pending one-shot jobs (adding, cancelling half, running the rest by
    one clock move), per job, in time and memory;
(b) a reactor catching up over N events (default 1,000,000) of a log it has never seen, while a
    writer keeps appending: catch-up speed, the resident memory it takes, and how long those
    appends waited meanwhile.

Usage: .venv/bin/python scripts/bench_reactors.py [--timers T] [--events N] [--dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from bench_eventlog import write_log

from telephony.clock import Clock
from telephony.domain.events import EVENTS, Event
from telephony.eventlog import LOG_FILE, EventLog, NewEvent, RecordedEvent
from telephony.projections import Projections
from telephony.reactors.reactor import Reaction, Reactor, ReactorRunner
from telephony.reactors.running import Reactors
from telephony.reactors.scheduler import Scheduler

START = 1_800_000_000.0


# --- (a) timers ----------------------------------------------------------------------------------


async def timers(count: int) -> dict[str, float]:
    clock = Clock.virtual(START)
    scheduler = Scheduler(clock)
    scheduler.start()
    ran = 0

    async def job() -> None:
        nonlocal ran
        ran += 1

    rng = random.Random(1)
    dues = [START + rng.uniform(1, 86_400) for _ in range(count)]
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    started = time.perf_counter()
    for n, due in enumerate(dues):
        scheduler.at(due, f"timer-{n}", job)
    added = time.perf_counter() - started
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    started = time.perf_counter()
    for n in range(0, count, 2):
        scheduler.cancel(f"timer-{n}")
    cancelled = time.perf_counter() - started
    started = time.perf_counter()
    await scheduler.advance_to(START + 86_401)
    run = time.perf_counter() - started
    await scheduler.stop()
    assert ran == count - (count + 1) // 2, ran
    return {"add µs/job": added / count * 1e6, "cancel µs/job": cancelled / (count // 2) * 1e6,
            "run µs/job": run / ran * 1e6, "bytes/pending job": held / count}  # fmt: skip


# --- (b) catch-up --------------------------------------------------------------------------------


class Echoed(Event, frozen=True, kw_only=True, tag="bench.echoed"):
    of: int


class Written(Event, frozen=True, kw_only=True, tag="bench.written"):
    n: int


class Tally(Reactor):
    """Reacts to every event; one in a hundred reactions appends an event of its own."""

    name = "tally"
    from_beginning = True

    def __init__(self) -> None:
        self.seen = 0

    async def react(self, event: RecordedEvent) -> Reaction:
        self.seen += 1
        if isinstance(event.event, Echoed) or event.position % 100:
            return None
        return [NewEvent(stream="echoes", event=Echoed(of=event.position))]


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def catch_up(root: Path, count: int) -> dict[str, float]:
    write_log(root / LOG_FILE, count)
    clock = Clock()
    log = await EventLog.open(
        root, Projections([], catalogue=EVENTS.with_types(Echoed, Written)), clock, progress=False
    )
    gc.collect()
    baseline, peak = rss_mb(), rss_mb()
    tally = Tally()
    runner = ReactorRunner(tally, log, clock)
    reactors = Reactors([runner])
    waits: list[float] = []
    head = log.position

    async def keep_appending() -> None:
        n = 0
        while runner.position < head:
            started = time.perf_counter()
            await log.append([NewEvent(stream="writer", event=Written(n=n))])
            waits.append(time.perf_counter() - started)
            n += 1
            await asyncio.sleep(0.01)

    async def watch_memory() -> None:
        nonlocal peak
        while runner.position < head:
            peak = max(peak, rss_mb())
            await asyncio.sleep(0.05)

    started = time.perf_counter()
    reactors.start()
    await asyncio.gather(keep_appending(), watch_memory(), runner.reached(head))
    elapsed = time.perf_counter() - started
    await runner.reached(log.position)
    await reactors.stop()
    await log.close()
    waits.sort()
    p99 = waits[int(len(waits) * 0.99)]
    return {"events/s": count / elapsed, "seconds": elapsed, "RSS before MB": baseline, "RSS peak MB": peak,
            "RSS growth MB": peak - baseline, "appends during catch-up": len(waits),
            "append wait p50 ms": statistics.median(waits) * 1e3, "append wait p99 ms": p99 * 1e3,
            "append wait max ms": waits[-1] * 1e3, "reacted": tally.seen}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timers", type=int, default=10_000)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--dir", help="where to write the log (default: a temporary directory)")
    args = parser.parse_args()
    print(f"(a) {args.timers:,} pending one-shot timers")
    for name, value in asyncio.run(timers(args.timers)).items():
        print(f"    {name:<24} {value:>10.2f}")
    with tempfile.TemporaryDirectory(dir=args.dir) as scratch:
        print(f"(b) a reactor catching up over {args.events:,} events while a writer appends")
        for name, value in asyncio.run(catch_up(Path(scratch), args.events)).items():
            print(f"    {name:<24} {value:>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
