#!/usr/bin/env python
"""Benchmark of the event log, in one run on one machine, against the Foundation goals.

(a) durable appends per second from concurrent writers: group commit vs one commit per event,
    both with `synchronous=FULL`;
(b) replay of N events (a realistic mix of account events) into the app's real projections;
(c) the peak resident memory of this process.

Usage: .venv/bin/python scripts/bench_eventlog.py [--events N] [--writers W] [--seconds S] [--dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import inspect
import itertools
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec

from telephony import wiring
from telephony.accounts.models import User
from telephony.clock import Clock
from telephony.domain.events import EVENTS, Event
from telephony.domain.events.accounts import (
    CustomerCreated,
    TokenIssued,
    TokenRevoked,
    TokenTouched,
    UserCreated,
    UserDeleted,
    UserUpdated,
)
from telephony.eventlog import LOG_FILE, EventLog, Metadata, NewEvent, store
from telephony.eventlog.hashing import GENESIS, canonical_bytes, chain_hash

CUSTOMER_ID = 100_001
FIRST_USER = 1_000_001
INSERT = f"INSERT INTO events ({store.COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)"
GOALS = {"group commit speed-up": 3.0, "replay events/s": 150_000, "peak RSS MB": 200}


# --- a realistic stream of account events --------------------------------------------------------


def _user_body(user_id: int) -> dict:
    body = User(id=user_id, email=f"user{user_id}@example.com", first_name="Ann", last_name=f"Lee {user_id}",
                roles=["ROLE_USER"], created_at="2026-01-01 00:00:00", customer=CUSTOMER_ID,
                customer_id_id=CUSTOMER_ID)  # fmt: skip
    return msgspec.to_builtins(body)


def _random_hex(seed: str, length: int) -> str:
    """Deterministic but random-looking hex, like the ids and digests the app makes."""
    return hashlib.sha256(seed.encode()).hexdigest()[:length]


def _token(user_id: int, n: int) -> TokenIssued:
    return TokenIssued(token_id=_random_hex(f"id{user_id}.{n}", 16), digest=_random_hex(f"digest{user_id}.{n}", 64),
                       sealed="gAAAAAB" + "x" * 120, user_id=user_id, customer_id=CUSTOMER_ID, kind="apitoken",
                       name=f"key {n}", expiry=0, inactivity=0, api_version="v1.2", host="127.0.0.1",
                       user_agent="bench/1.0", created_at="2026-01-01 00:00:00",
                       issued_epoch=1767225600.0)  # fmt: skip


def _user_life(user_id: int) -> list[tuple[str, Event]]:
    """Ten events about one user: created, edited, tokens issued and used, sometimes deleted."""
    user, token = f"user-{user_id}", _token(user_id, 1)
    stream = f"token-{token.token_id}"
    touched = TokenTouched(token_id=token.token_id, at="2026-01-01 00:05:00", epoch=1767225900.0)
    last: Event = UserDeleted(id=user_id) if user_id % 10 == 0 else UserUpdated(id=user_id, changes={"dnd": True})
    return [
        (user, UserCreated(id=user_id, customer_id=CUSTOMER_ID, body=_user_body(user_id),
                           password_hash="scrypt$16384$8$1$" + "ab" * 48, sip_password_sealed="gAAAAAB" + "y" * 80)),
        (user, UserUpdated(id=user_id, changes={"first_name": "Anna", "ext": f"{user_id % 9000}"})),
        (stream, token),
        (stream, touched),
        (user, UserUpdated(id=user_id, changes={"two_factor_auth": "E"})),
        (stream, touched),
        (user, UserUpdated(id=user_id, changes={"mobile": "+44700900123", "cw": False})),
        (stream, TokenRevoked(token_id=token.token_id, reason="deleted")),
        (user, UserUpdated(id=user_id, changes={"last_name": "Lee-Smith"})),
        (user, last),
    ]  # fmt: skip


def _versioned(life: list[tuple[str, Event]]) -> Iterator[tuple[str, int, Event]]:
    versions: dict[str, int] = {}
    for stream, event in life:
        versions[stream] = versions.get(stream, 0) + 1
        yield stream, versions[stream], event


def account_events(count: int) -> Iterator[tuple[str, int, Event]]:
    """`count` events (stream, version, event): one customer, then the lives of many users."""
    customer = CustomerCreated(id=CUSTOMER_ID, name="Bench", created_at="2026-01-01 00:00:00")
    yield f"customer-{CUSTOMER_ID}", 1, customer
    lives = itertools.chain.from_iterable(_versioned(_user_life(u)) for u in itertools.count(FIRST_USER))
    yield from itertools.islice(lives, count - 1)


# --- (a) appends ---------------------------------------------------------------------------------


async def _append_for(data_dir: Path, writers: int, seconds: float, max_batch: int) -> tuple[int, float]:
    log = await EventLog.open(data_dir, wiring.projection_set(), Clock(), max_batch=max_batch, progress=False)
    events = account_events(sys.maxsize)
    meta = Metadata(source="bench")
    deadline = time.perf_counter() + seconds
    done = 0

    async def writer() -> None:
        nonlocal done
        while time.perf_counter() < deadline:
            stream, _, event = next(events)
            await log.append([NewEvent(stream=stream, event=event)], meta)
            done += 1

    started = time.perf_counter()
    await asyncio.gather(*(writer() for _ in range(writers)))
    elapsed = time.perf_counter() - started
    await log.close()
    return done, elapsed


def appends_per_second(root: Path, writers: int, seconds: float, max_batch: int) -> float:
    data_dir = root / f"appends-{max_batch}"
    done, elapsed = asyncio.run(_append_for(data_dir, writers, seconds, max_batch))
    shutil.rmtree(data_dir)
    return done / elapsed


# --- (b) replay ----------------------------------------------------------------------------------


def write_log(path: Path, count: int, chunk: int = 20_000) -> None:
    """Write `count` events with a valid hash chain straight into a new log database."""
    conn = store.connect(path)
    conn.execute("PRAGMA synchronous=OFF")
    previous, recorded_at, meta = GENESIS, "2026-01-01T00:00:00.000000Z", msgspec.json.encode(Metadata())
    conn.execute("BEGIN")
    rows: list[tuple] = []
    for position, (stream, version, event) in enumerate(account_events(count), start=1):
        type_, schema, data_bytes = EVENTS.written(event)
        previous = chain_hash(
            previous, canonical_bytes(position, stream, version, type_, schema, recorded_at, data_bytes, meta)
        )
        rows.append((position, stream, version, type_, schema, data_bytes, meta, recorded_at, previous))
        if len(rows) == chunk:
            conn.executemany(INSERT, rows)
            rows.clear()
    conn.executemany(INSERT, rows)
    conn.execute("COMMIT")
    conn.close()


@dataclass
class Replay:
    events: int
    wall: float
    cpu: float


def replay(root: Path, count: int, repeat: int) -> Replay:
    """`Projections.rebuild` over a fresh log of `count` events: the best of `repeat` runs."""
    path = root / "replay" / LOG_FILE
    path.parent.mkdir()
    write_log(path, count)
    conn = store.connect(path)
    runs = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        replayed = wiring.projection_set().rebuild(conn, progress=False)
        runs.append(Replay(replayed, time.perf_counter() - wall, time.process_time() - cpu))
        check_replayed(conn, count)
    conn.close()
    return min(runs, key=lambda run: run.wall)


def check_replayed(conn, count: int) -> None:
    """The read models hold what the generated lives imply (guards against a benchmark of nothing)."""
    users = (count - 1 + 9) // 10
    deleted = sum(1 for u in range(FIRST_USER, FIRST_USER + users) if u % 10 == 0 and _life_complete(u, count))
    live = conn.execute("SELECT count(*) FROM doc_user").fetchone()[0]
    assert live == users - deleted, (live, users, deleted)


def _life_complete(user_id: int, count: int) -> bool:
    return 1 + (user_id - FIRST_USER + 1) * 10 <= count


# --- report --------------------------------------------------------------------------------------


@dataclass
class Row:
    measure: str
    value: float
    goal: float | None = None
    """None: shown for information only."""
    higher_is_better: bool = True

    @property
    def ok(self) -> bool:
        if self.goal is None:
            return True
        return self.value >= self.goal if self.higher_is_better else self.value < self.goal

    def __str__(self) -> str:
        goal = "" if self.goal is None else f"{'>=' if self.higher_is_better else '<'} {self.goal:,.0f}"
        result = "" if self.goal is None else "PASS" if self.ok else "FAIL"
        return f"{self.measure:<32}{self.value:>14,.1f}{goal:>14}  {result}"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def report(rows: list[Row]) -> bool:
    print(f"\n{'measure':<32}{'value':>14}{'goal':>14}  result")
    for row in rows:
        print(row)
    return all(row.ok for row in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000, help="events replayed (default 1,000,000)")
    parser.add_argument("--writers", type=int, default=64, help="concurrent appending tasks (default 64)")
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of each append run (default 5)")
    parser.add_argument("--repeat", type=int, default=1, help="replay runs, the best one counts (default 1)")
    parser.add_argument("--dir", help="where to put the scratch data dirs (default: the system temp dir)")
    args = parser.parse_args(argv)

    root = Path(tempfile.mkdtemp(prefix="telephony-bench-", dir=args.dir))
    try:
        print(f"appending for {args.seconds:g}s with {args.writers} writers, synchronous=FULL ...", flush=True)
        grouped = appends_per_second(root, args.writers, args.seconds, max_batch=default_max_batch())
        single = appends_per_second(root, args.writers, args.seconds, max_batch=1)
        print(f"  group commit {grouped:,.0f}/s, one commit per event {single:,.0f}/s", flush=True)
        print(f"replaying {args.events:,} events into the app's projections ...", flush=True)
        replayed = replay(root, args.events, args.repeat)
        print(f"  {replayed.events / replayed.wall:,.0f} events/s ({replayed.wall:.1f}s)", flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    rows = [
        Row("appends/s, group commit", grouped),
        Row("appends/s, commit per event", single),
        Row("group commit speed-up (x)", grouped / single, GOALS["group commit speed-up"]),
        Row("replay events/s", replayed.events / replayed.wall, GOALS["replay events/s"]),
        Row("replay events/s of CPU time", replayed.events / replayed.cpu),
        Row("peak RSS MB", peak_rss_mb(), GOALS["peak RSS MB"], higher_is_better=False),
    ]
    return 0 if report(rows) else 1


def default_max_batch() -> int:
    """The `max_batch` that `EventLog.open` uses when none is given."""
    return inspect.signature(EventLog.open).parameters["max_batch"].default


if __name__ == "__main__":
    sys.exit(main())
