"""The `telephony` command, run as a subprocess against a data dir written by the real app."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime, timedelta, timezone

import aiohttp
import pytest

from telephony import audit, wiring
from telephony.app import create_app
from telephony.config import Control, Settings, Storage
from telephony.eventlog import store
from telephony.security import digest

from ..serving import ADMIN, CONTROL_KEY, SERVICE, Server, logged_events, login, telephony
from .prepared import Prepared, auth, run, tamper

pytestmark = pytest.mark.sqlite_only  # the commands read the data dir's SQLite files (PostgreSQL's: test_migrate.py)


# --- log -----------------------------------------------------------------------------------------


def test_log_prints_one_line_per_event_in_position_order(prepared):
    result = run(prepared, "log")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    events = logged_events(prepared.data_dir, cwd=prepared.data_dir.parent)
    assert len(lines) == len(events) >= 5
    assert [int(line.split()[0]) for line in lines] == list(range(1, len(lines) + 1))
    assert all(event["type"] in line for event, line in zip(events, lines, strict=True))


def test_log_json_gives_one_event_object_per_line(prepared):
    events = logged_events(prepared.data_dir, cwd=prepared.data_dir.parent)
    assert [e["position"] for e in events] == list(range(1, len(events) + 1))
    assert {"stream", "version", "type", "data", "meta", "recorded_at", "hash"} <= set(events[0])
    assert [e["type"] for e in events[:2]] == ["customer.created", "user.created"]


def shifted(utc: str, hours: int) -> str:
    """The same moment as `utc`, written in the time zone `hours` east of UTC."""
    moment = datetime.fromisoformat(utc).replace(tzinfo=UTC)
    return moment.astimezone(timezone(timedelta(hours=hours))).isoformat(sep=" ")


def selection(name: str, prepared: Prepared, first_token: dict):
    """The arguments of one `log` filter and the predicate of the events it must show."""
    cut = prepared.cut.replace(" ", "T")
    return {
        "type": (["--type", "token.issued"], lambda e: e["type"] == "token.issued"),
        "stream": (["--stream", first_token["stream"]], lambda e: e["stream"] == first_token["stream"]),
        "since": (["--since", prepared.cut], lambda e: e["recorded_at"] >= cut),
        "until": (["--until", prepared.cut], lambda e: e["recorded_at"] <= cut),
        "since with an offset": (["--since", shifted(prepared.cut, hours=2)], lambda e: e["recorded_at"] >= cut),
    }[name]


@pytest.mark.parametrize("name", ["type", "stream", "since", "until", "since with an offset"])
def test_log_filters_show_exactly_the_matching_events(prepared, name):
    everything = logged_events(prepared.data_dir, cwd=prepared.data_dir.parent)
    args, keep = selection(name, prepared, next(e for e in everything if e["type"] == "token.issued"))
    shown = logged_events(prepared.data_dir, *args, cwd=prepared.data_dir.parent)
    assert shown == [e for e in everything if keep(e)]
    assert 0 < len(shown) < len(everything)


@pytest.mark.parametrize("form", [[], ["--json"]], ids=["text", "json"])
def test_log_never_shows_a_token_or_password(prepared, form):
    result = run(prepared, "log", *form)
    assert result.returncode == 0, result.stderr
    assert "[redacted]" in result.stdout
    for secret in [*prepared.secrets, ADMIN["password"]]:
        assert secret not in result.stdout


# --- verify --------------------------------------------------------------------------------------


def test_verify_passes_on_an_untouched_data_dir_and_names_the_hash_chains_head(prepared):
    result = run(prepared, "verify")
    assert result.returncode == 0, result.stdout + result.stderr
    with sqlite3.connect(prepared.data_dir / "events.db") as conn:
        (head,) = conn.execute("SELECT hash FROM events ORDER BY position DESC LIMIT 1").fetchone()
    assert "OK" in result.stdout and f"(head {head.hex()})" in result.stdout


def test_verify_names_the_position_of_a_changed_byte(prepared):
    position = prepared.early_position
    with sqlite3.connect(prepared.data_dir / "events.db") as conn:
        (data,) = conn.execute("SELECT data FROM events WHERE position = ?", (position,)).fetchone()
    middle = len(data) // 2
    flipped = data[:middle] + bytes([data[middle] ^ 1]) + data[middle + 1 :]
    tamper(prepared, "UPDATE events SET data = ? WHERE position = ?", flipped, position)
    result = run(prepared, "verify")
    assert result.returncode == 1
    assert f"position {position}" in result.stdout


@pytest.mark.parametrize("data", [b'{"broken', b"\x00\x01garbage"], ids=["truncated", "garbage"])
def test_verify_names_the_position_of_an_event_that_cannot_be_read(prepared, data):
    """The replay beside the chain check fails on such an event; the chain's answer is what is shown."""
    tamper(prepared, "UPDATE events SET data = ? WHERE position = ?", data, prepared.early_position)
    result = run(prepared, "verify")
    assert result.returncode == 1
    assert f"position {prepared.early_position}" in result.stdout, result.stdout + result.stderr


def test_verify_fails_when_a_projection_row_was_changed(prepared):
    tamper(prepared, "UPDATE tokens SET name = 'forged' WHERE name = 'early'")
    result = run(prepared, "verify")
    assert result.returncode == 1
    assert "tokens" in result.stdout
    assert all(digest(secret) not in result.stdout for secret in prepared.secrets)


def test_verify_compares_the_substring_index_too(prepared):
    tamper(prepared, "INSERT INTO doc_cdr_dst_search (rowid, text) VALUES (424242, '+442071234567')")
    result = run(prepared, "verify")
    assert result.returncode == 1
    assert "doc_cdr_dst_search" in result.stdout


def test_verify_compares_the_projections_each_process_rebuilt(prepared):
    """`verify` rebuilds the projections in two groups, one in each of two processes (`audit.split`): a
    row gone from a table of either group is found."""
    with sqlite3.connect(prepared.data_dir / "events.db") as conn:
        groups = audit.split(conn, wiring.projection_set(), beside=audit.CHAIN_COST * store.count(conn))
        tables = [_a_table_with_rows(conn, group) for group in groups]
    assert all(groups[n].all for n in (0, 1)), "both processes rebuild some projection here"
    for table in tables:
        tamper(prepared, f'DELETE FROM "{table}" WHERE rowid = (SELECT min(rowid) FROM "{table}")')
        result = run(prepared, "verify")
        assert result.returncode == 1 and f"missing from the live table {table!r}" in result.stdout, result.stdout
        assert run(prepared, "replay").returncode == 0
    assert run(prepared, "verify").returncode == 0


def _a_table_with_rows(conn: sqlite3.Connection, group) -> str:
    for table in (table for projection in group.all for table in projection.tables):
        found = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()
        if found and "VIRTUAL" not in found[0] and conn.execute(f'SELECT 1 FROM "{table}"').fetchone():
            return table
    raise AssertionError("no table of the group holds a row")


# --- replay --------------------------------------------------------------------------------------


def test_replay_rebuilds_projections_that_were_lost(prepared):
    tamper(prepared, "DELETE FROM tokens WHERE name = 'late'")
    assert run(prepared, "verify").returncode == 1
    result = run(prepared, "replay")
    assert result.returncode == 0, result.stderr
    assert "rebuilt" in result.stdout
    assert run(prepared, "verify").returncode == 0


def test_the_data_dir_may_also_follow_the_command(prepared):
    tamper(prepared, "DELETE FROM tokens WHERE name = 'late'")
    result = telephony("replay", "--data-dir", prepared.data_dir, cwd=prepared.data_dir.parent)
    assert result.returncode == 0, result.stderr
    assert run(prepared, "verify").returncode == 0


@pytest.mark.parametrize("point", ["position", "time"])
async def test_replay_until_writes_a_data_dir_holding_the_state_at_that_point(prepared, aiohttp_client, point):
    out = prepared.data_dir.parent / "then"
    until = str(prepared.early_position) if point == "position" else prepared.cut
    result = run(prepared, "replay", "--until", until, "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert logged_events(out, cwd=out.parent)[-1]["position"] == prepared.early_position
    then = Settings(storage=Storage(data_dir=str(out)), control=Control(key=CONTROL_KEY))
    client = await aiohttp_client(create_app(then))
    _, early, late = prepared.secrets
    listed = await client.get(f"{SERVICE}/apitokens", headers=auth(early))
    assert listed.status == 200
    assert [item["name"] for item in (await listed.json())["data"]] == ["early"]
    assert (await client.get(f"{SERVICE}/apitokens", headers=auth(late))).status == 401


def test_replay_until_refuses_to_overwrite_the_live_data_dir(prepared):
    result = run(prepared, "replay", "--until", "1")
    assert result.returncode != 0
    assert "--out" in result.stderr


# --- routes and config ---------------------------------------------------------------------------


def test_routes_lists_health_and_login_on_both_versions(tmp_path):
    result = telephony("routes", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    paths = {line.split()[1] for line in result.stdout.splitlines() if line.strip()}
    assert {"/_telephony/health", "/v1.1/voipstudio/login", "/v1.2/voipstudio/login"} <= paths


def test_an_unknown_config_key_stops_the_command_naming_the_key(tmp_path):
    (tmp_path / "bad.toml").write_text("[server]\nport = 8080\nportt = 9090\n")
    result = telephony("--config", "bad.toml", "routes", cwd=tmp_path)
    assert result.returncode != 0
    assert "server.portt" in result.stderr


async def test_verify_asks_a_running_server_to_compare_its_in_memory_projections(tmp_path):
    server = Server(tmp_path / "data", tmp_path)
    await server.start()
    try:
        async with aiohttp.ClientSession() as session:
            await login(session, server.url)  # a session the server holds in memory
        checked = await asyncio.to_thread(telephony, "--data-dir", server.data_dir, "verify", "--server", server.url,
                                          "--control-key", CONTROL_KEY, cwd=tmp_path)  # fmt: skip
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "in-memory projections match" in checked.stdout
        refused = await asyncio.to_thread(telephony, "--data-dir", server.data_dir, "verify", "--server", server.url,
                                          "--control-key", "wrong", cwd=tmp_path)  # fmt: skip
        assert refused.returncode == 1 and "could not verify" in refused.stdout
    finally:
        server.stop()


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
async def test_the_server_runs_on_the_event_loop_its_config_names(tmp_path, loop):
    server = Server(tmp_path / "data", tmp_path, TELEPHONY_SERVER_EVENT_LOOP=loop)
    await server.start()
    try:
        async with aiohttp.ClientSession() as session:
            headers, contacts = {"X-Auth-Token": await login(session, server.url)}, f"{server.url}{SERVICE}/contacts"
            async with session.post(contacts, json={"first_name": "Ada"}, headers=headers) as made:
                assert made.status == 201, await made.text()
            async with session.get(contacts, headers=headers) as listed:
                assert [c["first_name"] for c in (await listed.json())["data"]] == ["Ada"]
    finally:
        server.stop()
    assert f"({loop} loop)" in server.output.read_text()
