"""The read side: short queries answer inline, long ones finish on the thread, errors surface."""

from __future__ import annotations

import sqlite3

import pytest

from telephony.documents.sqlite.reader import Reader

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


async def test_each_read_sees_the_latest_commit(database):
    """No read transaction is held between statements: a commit is seen by the next read, on either
    connection."""
    reader, writer = await Reader.open(database, 50_000), sqlite3.connect(database, isolation_level=None)
    try:
        assert await reader.execute_fetchall("SELECT count(*) FROM t") == [(100,)]
        writer.execute("INSERT INTO t VALUES (101, 'v101')")
        assert await reader.execute_fetchall("SELECT count(*) FROM t") == [(101,)]
        writer.execute("INSERT INTO t VALUES (102, 'v102')")
        assert [row async for row in reader.each("SELECT count(*) FROM t")] == [(102,)]
    finally:
        await reader.close()
        writer.close()
