"""Helpers for tests that drive the real `telephony` command and server as subprocesses."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp

SERVICE = "/v1.2/voipstudio"
ADMIN = {"email": "admin@example.com", "password": "change-me-now"}
CONTROL_KEY = "test-control-key-0123456789"
COMMAND_TIMEOUT = 120


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without any `TELEPHONY_*` setting, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TELEPHONY_")}
    return {**env, **extra}


def log_env(url: str) -> dict[str, str]:
    """The environment that points a command at the log at `url` (none for the data dir's SQLite log)."""
    return {"TELEPHONY_EVENTLOG_URL": url} if url else {}


def telephony(*args: str | Path, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run `python -m telephony ARGS` in `cwd` (so no ./config.toml of the repo is read); `env` adds to
    the environment."""
    return subprocess.run(
        [sys.executable, "-m", "telephony", *map(str, args)],
        cwd=cwd,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
        check=False,
    )


def logged_events(data_dir: Path, *filters: str, cwd: Path, **env: str) -> list[dict]:
    """The events `telephony log --json FILTERS` prints, decoded."""
    result = telephony("--data-dir", data_dir, "log", "--json", *filters, cwd=cwd, **env)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """`telephony serve` on 127.0.0.1 as a child process, its output kept in a file."""

    def __init__(self, data_dir: Path, workdir: Path, *options: str, **env: str) -> None:
        """`options` go after `serve` (`--demo`); `env` adds to the environment."""
        self.data_dir, self.workdir, self.options, self.env = data_dir, workdir, options, env
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.output = workdir / f"server-{self.port}.log"
        self.process: subprocess.Popen[bytes] | None = None

    async def start(self, timeout: float = 30) -> None:
        command = [sys.executable, "-m", "telephony", "--data-dir", str(self.data_dir), "serve"]
        with self.output.open("wb") as out:
            self.process = subprocess.Popen(
                [*command, "--host", "127.0.0.1", "--port", str(self.port), *self.options],
                cwd=self.workdir,
                env=clean_env(TELEPHONY_CONTROL_KEY=CONTROL_KEY, **self.env),
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        await self._wait_healthy(timeout)

    async def _wait_healthy(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as session:
            while time.monotonic() < deadline:
                assert self.process is not None and self.process.poll() is None, self.output.read_text()
                try:
                    async with session.get(f"{self.url}/_telephony/health") as response:
                        if response.status == 200:
                            return
                except (aiohttp.ClientError, TimeoutError):  # not listening yet, or still starting behind its socket
                    pass
                await asyncio.sleep(0.1)
        raise TimeoutError(f"server not healthy after {timeout}s:\n{self.output.read_text()}")

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush, like a crash."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM and wait for a clean exit (kill if it does not come)."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


async def login(session, base: str = "") -> str:
    """Log in as the bootstrap admin (over a ClientSession at `base`, or a test client); the user token."""
    async with session.post(f"{base}{SERVICE}/login", json=ADMIN) as response:
        assert response.status == 200, await response.text()
        return (await response.json())["user_token"]


def replay_difference(settings: Any) -> object | None:
    """How a fresh replay of the app's log differs from its live read models (None: not at all), on
    the store the app ran on: the data dir's SQLite file, or its PostgreSQL schema."""
    from telephony import wiring
    from telephony.audit import verify_projections
    from telephony.eventlog import store
    from telephony.projections import pg_verify

    if settings.eventlog.url:
        return pg_verify.compare(settings.eventlog.url, wiring.projection_set(settings.eventlog.url))
    conn = store.connect(settings.data_dir / "events.db")
    try:
        return verify_projections(conn, wiring.projection_set())
    finally:
        conn.close()
