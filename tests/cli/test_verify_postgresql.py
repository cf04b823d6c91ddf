"""`telephony verify` on a PostgreSQL log checks what it checks on SQLite: the hash chain, the fold of
the in-memory projections with their stored snapshots, the read models, and with `--server` the
running server's in-memory projections."""

from __future__ import annotations

import asyncio

import aiohttp
import msgspec

from telephony.eventlog.pg_connection import PgConnection

from ..serving import CONTROL_KEY, Server, login, telephony
from .test_replay_postgresql import Sandbox, sandbox  # noqa: F401 - the PostgreSQL log the app wrote


def verify(sandbox: Sandbox, *args: str):  # noqa: F811
    data_dir = sandbox.settings.data_dir
    return telephony("--data-dir", data_dir, "verify", *args, cwd=data_dir.parent,
                     TELEPHONY_EVENTLOG_URL=sandbox.settings.eventlog.url)  # fmt: skip


def tamper(sandbox: Sandbox, sql: str, *params: object) -> None:  # noqa: F811
    conn = PgConnection(sandbox.settings.eventlog.url)
    try:
        assert conn.execute(sql, params).rowcount == 1
    finally:
        conn.close()


def test_verify_on_postgresql_passes_on_a_log_the_app_wrote_and_its_snapshots(sandbox):  # noqa: F811
    conn = PgConnection(sandbox.settings.eventlog.url)
    saved = {name for (name,) in conn.execute("SELECT name FROM memory_snapshots")}
    conn.close()
    assert {"live_calls", "sessions"} <= saved  # the app's shutdown saved them
    result = verify(sandbox)
    assert result.returncode == 0 and "read models match a fresh replay" in result.stdout, result.stdout


def test_verify_on_postgresql_reports_a_snapshot_that_differs_from_a_fold(sandbox):  # noqa: F811
    tamper(sandbox, "UPDATE memory_snapshots SET state = ? WHERE name = 'live_calls'", msgspec.msgpack.encode([]))
    result = verify(sandbox)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "snapshot of in-memory projection 'live_calls' differs from a fold" in result.stdout


def test_verify_on_postgresql_reports_a_broken_read_model_row(sandbox):  # noqa: F811
    tamper(sandbox, "UPDATE doc_contact SET body = '{}' WHERE id = (SELECT min(id) FROM doc_contact)")
    result = verify(sandbox)
    assert result.returncode == 1 and "verify FAILED: documents:contact: 1 rows of doc_contact" in result.stdout


async def test_verify_on_postgresql_asks_a_running_server_to_compare_its_in_memory_projections(sandbox, tmp_path):  # noqa: F811
    url = sandbox.settings.eventlog.url
    server = Server(sandbox.settings.data_dir, tmp_path, TELEPHONY_EVENTLOG_URL=url)
    await server.start()
    try:
        async with aiohttp.ClientSession() as session:
            await login(session, server.url)  # a session the server holds in memory
        checked = await asyncio.to_thread(verify, sandbox, "--server", server.url, "--control-key", CONTROL_KEY)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "in-memory projections match" in checked.stdout
        refused = await asyncio.to_thread(verify, sandbox, "--server", server.url, "--control-key", "wrong")
        assert refused.returncode == 1 and "could not verify" in refused.stdout
    finally:
        server.stop()
