"""`telephony verify` on a data dir a server is writing: the log and the read models are read in one
snapshot, so commits meanwhile raise no false alarm, and a real change is still found with its position.
(`scripts/verify_under_load.py` makes 20 runs of it for the figure.)"""

from __future__ import annotations

import asyncio
import re
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import requests

from ..serving import ADMIN, SERVICE, Server, telephony

WRITERS = 8
RUNS = 4

pytestmark = pytest.mark.sqlite_only  # the data dir's file, written while it is read


@contextmanager
def writing(url: str, token: str) -> Iterator[list[int]]:
    """`WRITERS` threads POSTing contacts until the block ends; the count each made, kept as they go."""
    made, stop = [0] * WRITERS, threading.Event()

    def write(n: int) -> None:
        with requests.Session() as session:
            session.headers["X-Auth-Token"] = token
            while not stop.is_set():
                answer = session.post(f"{url}{SERVICE}/contacts", json={"first_name": f"w{n}"}, timeout=30)
                assert answer.status_code == 201, answer.text
                made[n] += 1

    threads = [threading.Thread(target=write, args=(n,), daemon=True) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    try:
        yield made
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)


def tamper(data_dir, sql: str, *args) -> None:
    with sqlite3.connect(data_dir / "events.db", timeout=30) as conn:
        conn.execute(sql, args)


async def verify(data_dir, cwd):
    return await asyncio.to_thread(telephony, "--data-dir", data_dir, "verify", cwd=cwd)


async def test_verify_while_a_server_writes_raises_no_false_alarm_and_still_finds_a_change(tmp_path):
    data_dir = tmp_path / "data"
    server = Server(data_dir, tmp_path)
    await server.start()
    try:
        token = requests.post(f"{server.url}{SERVICE}/login", json=ADMIN, timeout=30).json()["user_token"]
        with writing(server.url, token) as made:
            while sum(made) < 50:
                await asyncio.sleep(0.05)
            for _ in range(RUNS):
                before = sum(made)
                result = await verify(data_dir, tmp_path)
                assert result.returncode == 0, result.stdout + result.stderr
                assert sum(made) > before, "the server wrote while verify read"

            tamper(data_dir, "UPDATE doc_contact SET body = json_set(body, '$.first_name', 'forged') "
                             "WHERE id = (SELECT min(id) FROM doc_contact)")  # fmt: skip
            result = await verify(data_dir, tmp_path)
            assert result.returncode == 1, result.stdout + result.stderr
            assert re.search(r"projections at position \d+: row .* the live table 'doc_contact'", result.stdout)

            with sqlite3.connect(data_dir / "events.db", timeout=30) as conn:
                position, data = conn.execute("SELECT position, data FROM events WHERE type = 'contact.created' "
                                              "ORDER BY position LIMIT 1").fetchone()  # fmt: skip
            flipped = data[:-2] + bytes([data[-2] ^ 1]) + data[-1:]
            tamper(data_dir, "UPDATE events SET data = ? WHERE position = ?", flipped, position)
            result = await verify(data_dir, tmp_path)
            assert result.returncode == 1, result.stdout + result.stderr
            assert f"verify FAILED at position {position}:" in result.stdout
    finally:
        server.stop()
