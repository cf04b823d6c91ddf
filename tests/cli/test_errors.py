"""The command as an operator meets it when something is wrong: one clear line on standard error and
exit status 2, never a traceback; files holding password hashes readable by their owner only."""

from __future__ import annotations

import asyncio
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from telephony.app import create_app

from ..serving import Server, clean_env, free_port, telephony

pytestmark = pytest.mark.sqlite_only  # the commands on a data dir and its SQLite files (PostgreSQL: test_migrate.py)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def one_line_error(result: subprocess.CompletedProcess[str], *words: str) -> str:
    """The command failed with status 2 and said why in one line, naming `words`."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("telephony: "), result.stderr
    assert "Traceback" not in result.stderr
    assert all(word in lines[0] for word in words), lines[0]
    return lines[0]


@pytest.fixture
async def data_dir(aiohttp_client, settings, clock) -> Path:
    """A data dir written by the real app (the bootstrap customer and user), the app stopped."""
    client = await aiohttp_client(create_app(settings, clock=clock))
    await client.close()
    return settings.data_dir


async def test_the_event_log_and_its_journal_are_readable_by_their_owner_only(client, settings):
    files = {f.name: mode(f) for f in settings.data_dir.glob("events.db*")}
    assert set(files) == {"events.db", "events.db-wal", "events.db-shm"}
    assert files == dict.fromkeys(files, 0o600)


def test_an_export_file_is_readable_by_its_owner_only_however_it_is_written(data_dir, tmp_path):
    loose = tmp_path / "loose.jsonl"
    loose.write_text("")
    loose.chmod(0o644)
    for out in (tmp_path / "new.jsonl", loose):
        result = telephony("--data-dir", data_dir, "export", "--out", out, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert mode(out) == 0o600 and b"password_hash" in out.read_bytes()
    redirected = tmp_path / "redirected.jsonl"
    with redirected.open("wb") as out:
        command = [sys.executable, "-m", "telephony", "--data-dir", str(data_dir), "export"]
        subprocess.run(command, cwd=tmp_path, env=clean_env(), stdout=out, check=True, timeout=60)
    assert mode(redirected) == 0o600 and b"password_hash" in redirected.read_bytes()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["log", "--since", "yesterday"], ["--since", "'yesterday'", "YYYY-MM-DD"]),
        (["log", "--until", "2026-13-01"], ["--until", "2026-13-01"]),
        (["log", "--since", "0001-01-01T00:00:00+05:00"], ["--since"]),
        (["replay", "--until", "soon", "--out", "then"], ["--until", "'soon'"]),
        (["replay", "--until", "3"], ["--out"]),
        (["import", "missing.jsonl"], ["no file to import", "missing.jsonl"]),
        (["import", "seed.jsonl", "--seal-key", "nowhere.key"], ["--seal-key", "nowhere.key"]),
        (["export", "--out", "no/such/dir/seed.jsonl"], ["cannot write", "seed.jsonl"]),
    ],
    ids=[
        "since",
        "until",
        "since out of range",
        "replay until",
        "until without out",
        "missing file",
        "missing seal key",
        "export dir",
    ],  # fmt: skip
)
def test_a_wrong_argument_is_one_line_and_exit_2(data_dir, args, words):
    (data_dir.parent / "seed.jsonl").write_text("")
    one_line_error(telephony("--data-dir", data_dir, *args, cwd=data_dir.parent), *words)


def test_a_command_on_a_data_dir_without_a_log_is_one_line_and_exit_2(tmp_path):
    for args in (["log"], ["verify"], ["export"], ["replay"]):
        one_line_error(telephony("--data-dir", tmp_path / "nothing", *args, cwd=tmp_path), "no event log")


def test_serve_refuses_several_workers_on_a_sqlite_data_dir_and_a_demo_with_workers(tmp_path):
    data_dir = tmp_path / "data"
    one_line_error(
        telephony("--data-dir", data_dir, "serve", "--workers", "2", cwd=tmp_path), "--workers", "PostgreSQL"
    )
    one_line_error(telephony("--data-dir", data_dir, "serve", "--workers", "0", cwd=tmp_path), "--workers")
    assert not data_dir.exists()


def test_serve_on_a_busy_port_says_so_and_creates_no_data_dir(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = telephony("--data-dir", tmp_path / "data", "serve", "--host", "127.0.0.1", "--port", str(port),
                           cwd=tmp_path)  # fmt: skip
    one_line_error(result, f"127.0.0.1:{port}", "in use")
    assert not (tmp_path / "data").exists()


def serve(data_dir: Path) -> subprocess.CompletedProcess[str]:
    return telephony("--data-dir", data_dir, "serve", "--host", "127.0.0.1", "--port", str(free_port()),
                     cwd=data_dir.parent)  # fmt: skip


def test_serve_on_a_data_dir_whose_secret_key_is_gone_stops_and_makes_no_new_key(data_dir):
    (data_dir / "secret.key").unlink()
    one_line_error(serve(data_dir), f"{data_dir / 'secret.key'} is missing", "restore it")
    assert not (data_dir / "secret.key").exists()
    (data_dir.parent / "seed.jsonl").write_text("")
    import_ = telephony("--data-dir", data_dir, "import", "seed.jsonl", cwd=data_dir.parent)
    one_line_error(import_, "secret.key is missing")
    assert not (data_dir / "secret.key").exists()


def test_serve_with_another_data_dirs_secret_key_stops_naming_it(data_dir, tmp_path):
    (tmp_path / "nothing.jsonl").write_text("")
    other = tmp_path / "other"
    assert telephony("--data-dir", other, "import", "nothing.jsonl", cwd=tmp_path).returncode == 0  # its own key
    (data_dir / "secret.key").write_bytes((other / "secret.key").read_bytes())
    one_line_error(serve(data_dir), "secret.key is not the key this data dir's secrets are sealed with")


@pytest.mark.parametrize(
    ("name", "spoil", "words"),
    [
        ("secret.key", lambda path: path.write_text("not a key"), ["secret.key is not a seal key"]),
        ("secret.key", lambda path: (path.unlink(), path.mkdir()), ["cannot read", "secret.key"]),
        ("control-key.sha256", lambda path: path.write_text("0123"), ["control-key.sha256 is not a SHA-256"]),
        ("control-key.sha256", lambda path: path.mkdir(), ["cannot read", "control-key.sha256"]),
    ],
    ids=["seal key garbled", "seal key unreadable", "control key digest garbled", "control key digest unreadable"],
)
def test_serve_with_a_spoilt_key_file_stops_naming_it(data_dir, name, spoil, words):
    spoil(data_dir / name)
    one_line_error(serve(data_dir), *words)


async def test_offline_writers_and_a_second_server_refuse_a_data_dir_being_served(tmp_path):
    server = Server(tmp_path / "data", tmp_path)
    await server.start()
    try:
        (tmp_path / "seed.jsonl").write_text('{"resource": "customers", "customer_id": 7, "data": {"id": 7, '
                                             '"name": "Seven"}}\n')  # fmt: skip
        for args in (["import", "seed.jsonl"], ["replay"],
                     ["serve", "--host", "127.0.0.1", "--port", str(free_port())]):  # fmt: skip
            result = await asyncio.to_thread(telephony, "--data-dir", server.data_dir, *args, cwd=tmp_path)
            one_line_error(result, "in use by another telephony process")
    finally:
        server.stop()
    imported = await asyncio.to_thread(telephony, "--data-dir", server.data_dir, "import", "seed.jsonl", cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr


def test_the_wrapper_script_runs_the_command_in_the_directory_it_is_called_from(tmp_path):
    root = Path(__file__).resolve().parents[2]
    if not list((root / ".venv").glob(".installed-*")):
        pytest.skip("the .venv of ./scripts/* is not installed")
    wrapper = [str(root / "scripts" / "telephony")]
    routes = subprocess.run([*wrapper, "routes"], cwd=tmp_path, env=clean_env(), capture_output=True, text=True,
                            timeout=60, check=False)  # fmt: skip
    assert routes.returncode == 0 and "/_telephony/health" in routes.stdout, routes.stderr
    missing = subprocess.run([*wrapper, "--data-dir", "here", "log"], cwd=tmp_path, env=clean_env(),
                             capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    one_line_error(missing, "here/events.db")
