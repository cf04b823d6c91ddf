"""A read-only data dir (a backup, an evidence copy, a read-only mount): the commands that read work on it
as it is; those that write refuse in one line."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from telephony.app import create_app

from ..serving import free_port, login, telephony
from .prepared import Prepared, issue, prepare

pytestmark = pytest.mark.sqlite_only  # the data dir's SQLite files


@contextmanager
def read_only(folder: Path) -> Iterator[Path]:
    """`folder` as a read-only mount shows it: bind-mounted read-only where this process may mount (as
    root, whom file modes do not stop), else with its write bits taken away."""
    seen = folder.with_name(folder.name + "-read-only")
    seen.mkdir()
    if os.geteuid() != 0:
        shutil.copytree(folder, seen, dirs_exist_ok=True)
        for path in [seen, *seen.iterdir()]:
            path.chmod(path.stat().st_mode & ~0o222)
        yield seen
        seen.chmod(0o700)
        return
    mounted = subprocess.run(f"mount --bind '{folder}' '{seen}' && mount -o remount,bind,ro '{seen}'", shell=True,
                             capture_output=True, text=True, check=False)  # fmt: skip
    if mounted.returncode:
        pytest.skip(f"no read-only mount can be made here: {mounted.stderr.strip()}")
    try:
        yield seen
    finally:
        subprocess.run(["umount", "-l", str(seen)], check=False)


@pytest.fixture(params=["stopped", "copied while running"])
async def backup(request, aiohttp_client, settings, clock, tmp_path) -> Path:
    """A data dir as a stopped server leaves it (its log in one file), or copied while the server ran
    (commits still in its WAL file, beside the WAL index)."""
    if request.param == "stopped":
        return (await prepare(aiohttp_client, settings, clock)).data_dir
    prepared = await prepare(aiohttp_client, settings, clock)
    client = await aiohttp_client(create_app(settings, clock=clock))
    await issue(client, await login(client), "while running")
    assert (settings.data_dir / "events.db-wal").stat().st_size > 0
    copy = tmp_path / "copy"
    shutil.copytree(prepared.data_dir, copy)
    await client.close()
    return copy


def test_the_reading_commands_work_on_a_read_only_data_dir(backup, tmp_path):
    with read_only(backup) as seen:
        for args in (["log"], ["log", "--json"], ["verify"], ["export"], ["events"]):
            result = telephony("--data-dir", seen, *args, cwd=tmp_path)
            assert result.returncode == 0, f"{args}: {result.stderr}"
            assert result.stdout and not result.stderr, args
        assert "token.issued" in telephony("--data-dir", seen, "log", cwd=tmp_path).stdout
        out = tmp_path / "elsewhere"
        result = telephony("--data-dir", seen, "replay", "--out", out, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
    assert telephony("--data-dir", out, "verify", cwd=tmp_path).returncode == 0
    logged = telephony("--data-dir", backup, "log", cwd=tmp_path).stdout
    assert telephony("--data-dir", out, "log", cwd=tmp_path).stdout == logged, "replay --out copied every event"


@pytest.mark.parametrize("args", [["serve", "--port", "0"], ["replay"], ["import", "records.jsonl"]],
                         ids=["serve", "replay in place", "import"])  # fmt: skip
async def test_a_command_that_writes_refuses_a_read_only_data_dir_in_one_line(args, aiohttp_client, settings, clock,
                                                                              tmp_path):  # fmt: skip
    prepared: Prepared = await prepare(aiohttp_client, settings, clock)
    (tmp_path / "records.jsonl").write_text("")
    if args[0] == "serve":
        args = ["serve", "--port", str(free_port())]
    with read_only(prepared.data_dir) as seen:
        result = telephony("--data-dir", seen, *args, cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith(f"telephony: {seen} cannot be written") and result.stderr.count("\n") == 1


async def test_commits_in_a_wal_file_without_its_index_are_named_not_lost(aiohttp_client, settings, clock, tmp_path):
    """A copy that took the WAL file but not the index SQLite reads it with: one line saying so."""
    await prepare(aiohttp_client, settings, clock)
    client = await aiohttp_client(create_app(settings, clock=clock))
    await issue(client, await login(client), "while running")
    copy = tmp_path / "copy"
    shutil.copytree(settings.data_dir, copy, ignore=shutil.ignore_patterns("*-shm"))
    await client.close()
    with read_only(copy) as seen:
        result = telephony("--data-dir", seen, "log", cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "events.db-wal holds commits" in result.stderr and result.stderr.count("\n") == 1
