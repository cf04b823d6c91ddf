"""The two PostgreSQL drivers on the log's own work: one-event append transactions under the commit
lock (head read, stream version, insert) and reads of pages and single positions.

    python scripts/bench_pg_drivers.py postgresql://postgres@127.0.0.1:55432/telephony

Commits do not wait for the disk here (`synchronous_commit = off`), so the numbers are the drivers'
cost, not the fsync's. asyncpg is measured only when installed (it is no dependency of the project)."""

from __future__ import annotations

import asyncio
import hashlib
import sys
import time

import psycopg

N = 2000
SETUP = ("SET synchronous_commit = off",
         "DROP TABLE IF EXISTS bench_drivers",
         "CREATE TABLE bench_drivers (position BIGINT PRIMARY KEY, stream TEXT, data BYTEA, hash BYTEA)")  # fmt: skip
DATA = b"x" * 200


def with_psycopg(url: str) -> tuple[float, float]:
    with psycopg.connect(url, autocommit=True) as conn:
        for statement in SETUP:
            conn.execute(statement)
        started = time.perf_counter()
        for i in range(1, N + 1):
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(1)")
                conn.execute("SELECT max(position) FROM bench_drivers WHERE stream = %s", (f"s{i % 10}",))
                conn.execute("INSERT INTO bench_drivers VALUES (%s, %s, %s, %s)",
                             (i, f"s{i % 10}", DATA, hashlib.sha256(b"%d" % i).digest()))  # fmt: skip
        appended = time.perf_counter() - started
        started = time.perf_counter()
        for i in range(0, N, 100):
            conn.execute("SELECT * FROM bench_drivers WHERE position > %s ORDER BY position LIMIT 100", (i,)).fetchall()
        for i in range(1, 501):
            conn.execute("SELECT * FROM bench_drivers WHERE position = %s", (i,)).fetchone()
        return appended, time.perf_counter() - started


async def with_asyncpg(url: str) -> tuple[float, float]:
    import asyncpg

    conn = await asyncpg.connect(url)
    for statement in SETUP:
        await conn.execute(statement)
    started = time.perf_counter()
    for i in range(1, N + 1):
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(1)")
            await conn.fetchval("SELECT max(position) FROM bench_drivers WHERE stream = $1", f"s{i % 10}")
            await conn.execute("INSERT INTO bench_drivers VALUES ($1, $2, $3, $4)",
                               i, f"s{i % 10}", DATA, hashlib.sha256(b"%d" % i).digest())  # fmt: skip
    appended = time.perf_counter() - started
    started = time.perf_counter()
    for i in range(0, N, 100):
        await conn.fetch("SELECT * FROM bench_drivers WHERE position > $1 ORDER BY position LIMIT 100", i)
    for i in range(1, 501):
        await conn.fetchrow("SELECT * FROM bench_drivers WHERE position = $1", i)
    read = time.perf_counter() - started
    await conn.execute("DROP TABLE bench_drivers")
    await conn.close()
    return appended, read


def main() -> None:
    url = sys.argv[1]
    runs = [("psycopg 3 (sync)", lambda: with_psycopg(url))]
    try:
        import asyncpg  # noqa: F401

        runs.append(("asyncpg", lambda: asyncio.run(with_asyncpg(url))))
    except ImportError:
        print("asyncpg is not installed: psycopg only")
    for _ in range(2):
        for name, run in runs:
            appended, read = run()
            print(f"{name:18} {N / appended:7.0f} appends/s ({appended * 1e6 / N:4.0f} us each); "
                  f"20 pages of 100 + 500 point reads: {read * 1000:4.0f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
