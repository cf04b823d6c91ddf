"""The read side: short queries answer inline, long ones finish on the thread, errors surface."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from telephony.documents import reader as reader_module
from telephony.documents.reader import Reader

LONG = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000) SELECT count(*) FROM n"


@pytest.fixture
def database(tmp_path):
    path = tmp_path / "read.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
    conn.executemany("INSERT INTO t VALUES (?, ?)", [(i, f"v{i}") for i in range(1, 101)])
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize("budget", [0, 50_000])
async def test_short_and_long_queries_both_answer_in_full(database, budget):
    reader = await Reader.open(database, budget)
    try:
        assert await reader.execute_fetchall("SELECT v FROM t WHERE id = ?", (7,)) == [("v7",)]
        assert await reader.execute_fetchall(LONG) == [(200000,)]
    finally:
        await reader.close()


async def test_a_query_past_the_budget_is_finished_on_the_thread(database, monkeypatch):
    reader = await Reader.open(database, 10_000)
    threaded = []
    original = reader._threaded.execute_fetchall

    async def spy(sql, parameters):
        threaded.append(sql)
        return await original(sql, parameters)

    monkeypatch.setattr(reader._threaded, "execute_fetchall", spy)
    try:
        await reader.execute_fetchall("SELECT v FROM t WHERE id = 1")
        assert threaded == []
        await reader.execute_fetchall(LONG)
        assert threaded == [LONG]
    finally:
        await reader.close()


async def test_a_broken_query_raises_rather_than_retrying(database):
    reader = await Reader.open(database, 50_000)
    try:
        with pytest.raises(sqlite3.OperationalError):
            await reader.execute_fetchall("SELECT nope FROM t")
    finally:
        await reader.close()


@pytest.fixture
def log_database(tmp_path):
    path = tmp_path / "log.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE events (position INTEGER PRIMARY KEY)")
    conn.execute("INSERT INTO events VALUES (1)")
    return path, conn


def _seen(reader: Reader) -> tuple[int, int] | None:
    """The position of the reader's snapshot and the count of events it sees."""
    return reader.at_snapshot(lambda s: (s.position, s.conn.execute("SELECT count(*) FROM events").fetchone()[0]))


async def _next_iterations() -> None:
    for _ in range(3):
        await asyncio.sleep(0)


async def test_the_loops_snapshot_outlives_its_iteration_until_a_commit_while_nothing_is_written(
    log_database, monkeypatch
):
    """With no commit followed lately, a snapshot is kept across loop iterations (a write the reader does
    not follow stays unseen) until the next commit lets it go; while commits come, each snapshot is let go
    at the end of its iteration, so the log's WAL file can start over between them."""
    path, writer = log_database
    reader = await Reader.open(path, 50_000)
    try:
        assert _seen(reader) == (1, 1)
        writer.execute("INSERT INTO events VALUES (2)")
        await _next_iterations()
        assert _seen(reader) == (1, 1)
        await reader.follow(None, 2)
        assert _seen(reader) == (2, 2)
        writer.execute("INSERT INTO events VALUES (3)")
        await _next_iterations()
        assert _seen(reader) == (3, 3)
        monkeypatch.setattr(reader_module, "WRITING_SECONDS", 0.0)
        await reader.follow(None, 3)
        await _next_iterations()
        assert _seen(reader) == (3, 3)
        writer.execute("INSERT INTO events VALUES (4)")
        await _next_iterations()
        assert _seen(reader) == (3, 3)
    finally:
        await reader.close()
        writer.close()
