"""What the API benchmarks share: start the real server in a data dir, wait for it, log in, stop it.

    from benchkit import free_port, login, peak_rss_mb, start_server, stop

`start_server` runs `python -m telephony --data-dir D serve --port P` with warnings-only logging and
a control key; `extra_env` adds settings as `TELEPHONY_<SECTION>_<KEY>` variables (see
telephony/config.py).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
ADMIN = {"email": "admin@example.com", "password": "change-me-now"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_up(url: str, process: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server exited with {process.returncode}")
        try:
            urllib.request.urlopen(url, timeout=1).read()  # noqa: S310 - loopback only
            return
        except OSError:
            time.sleep(0.02)  # the start-up time is measured through this wait
    raise SystemExit(f"{url} did not answer in {timeout}s")


def compiled() -> None:
    """The package's bytecode, as `scripts/serve` writes it before starting the server (a benchmark
    calls this first, so start-up is measured as a server starts)."""
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(ROOT / "telephony")], check=True, stdout=subprocess.DEVNULL)


def start_server(data_dir: Path, port: int, extra_env: Mapping[str, str] | None = None) -> subprocess.Popen:
    env = {**os.environ, "TELEPHONY_LOG_LEVEL": "WARNING", "TELEPHONY_CONTROL_KEY": "bench-control-key"}
    env.update(extra_env or {})
    process = subprocess.Popen(
        [PYTHON, "-m", "telephony", "--data-dir", str(data_dir), "serve", "--port", str(port)],
        cwd=data_dir.parent,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_until_up(f"http://127.0.0.1:{port}/_telephony/health", process)
    return process


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()


def login(port: int) -> str:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1.2/voipstudio/login",
        data=json.dumps(ADMIN).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as answer:  # noqa: S310 - loopback only
        return json.load(answer)["user_token"]


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")
