"""The one binary: `./scripts/build-binary` makes `dist/telephony`, which runs from an empty folder with a
minimal environment (no virtualenv, no Python on PATH): it serves, logs in, places a call, checks its
log and starts a demo."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import aiohttp
import pytest

from tests.serving import ADMIN, SERVICE, free_port

ROOT = Path(__file__).resolve().parents[1]
BUILD_TIMEOUT = 1800


class Binary:
    """`dist/telephony` copied into an empty folder, run with only PATH and HOME set."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.env = {"PATH": "/usr/bin:/bin", "HOME": str(folder / "home")}
        (folder / "home").mkdir()
        shutil.copy2(ROOT / "dist" / "telephony", folder / "telephony")

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["./telephony", *args], cwd=self.folder, env=self.env, capture_output=True, text=True,
                              timeout=120, check=False)  # fmt: skip

    def serve(self, data_dir: str, *options: str) -> tuple[subprocess.Popen[bytes], str, Path]:
        port, output = free_port(), self.folder / f"serve-{data_dir}.log"
        with output.open("wb") as out:
            process = subprocess.Popen(["./telephony", "--data-dir", data_dir, "serve", "--port", str(port), *options],
                                       cwd=self.folder, env=self.env, stdout=out, stderr=subprocess.STDOUT)  # fmt: skip
        return process, f"http://127.0.0.1:{port}", output


async def healthy(session: aiohttp.ClientSession, url: str, process: subprocess.Popen, output: Path) -> float:
    """Seconds from now until the server answers health 200."""
    began = time.monotonic()
    while time.monotonic() - began < 60:
        assert process.poll() is None, output.read_text()
        try:
            async with session.get(f"{url}/_telephony/health") as response:
                if response.status == 200:
                    return time.monotonic() - began
        except aiohttp.ClientError:
            pass
        await asyncio.sleep(0.05)
    raise TimeoutError(output.read_text())


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def built() -> Path:
    result = subprocess.run(["./scripts/build-binary"], cwd=ROOT, capture_output=True, text=True,
                            timeout=BUILD_TIMEOUT, check=False)  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return ROOT / "dist" / "telephony"


@pytest.mark.slow
async def test_the_binary_serves_logs_in_places_a_call_and_checks_its_log_with_no_python(built, tmp_path):
    binary = Binary(tmp_path)
    assert binary.run("--help").returncode == 0
    process, url, output = binary.serve("data")
    try:
        async with aiohttp.ClientSession() as session:
            await healthy(session, url, process, output)
            async with session.post(f"{url}{SERVICE}/login", json=ADMIN) as response:
                assert response.status == 200, await response.text()
                login = await response.json()
            headers = {"X-Auth-Token": login["user_token"]}
            call = {"from": login["user_id"], "to": "+447700900123"}
            async with session.post(f"{url}{SERVICE}/calls", json=call, headers=headers) as response:
                assert response.status == 201, await response.text()
                assert (await response.json())["data"]["state"] == "RINGING"
            async with session.get(f"{url}/_telephony/dashboard/static/dashboard.css") as response:
                assert response.status == 200 and await response.text()  # the package's data files are in
            async with session.get(f"{url}/_telephony/openapi.json") as response:
                assert response.status == 200 and "paths" in await response.json()
    finally:
        stop(process)
    assert re.search(r"Generated control key", output.read_text())
    for command in (["verify"], ["log", "--type", "call.placed"], ["replay"], ["events"], ["routes"]):
        result = binary.run("--data-dir", "data", *command)
        assert result.returncode == 0, (command, result.stdout[-2000:], result.stderr[-2000:])
    assert "call.placed" in binary.run("--data-dir", "data", "log", "--type", "call.placed").stdout
    shutil.copy2(ROOT / "scenarios" / "support-line.yaml", tmp_path)
    ran = binary.run("scenario", "run", "support-line.yaml")
    assert ran.returncode == 0 and "0 failed" in ran.stdout, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert binary.run("listen", "--help").returncode == 0


@pytest.mark.slow
async def test_the_binary_starts_a_demo_with_no_python(built, tmp_path):
    binary = Binary(tmp_path)
    process, url, output = binary.serve("demo", "--demo", "--rate", "60")
    try:
        async with aiohttp.ClientSession() as session:
            took = await healthy(session, url, process, output)
            deadline = time.monotonic() + 120
            while "demo: live traffic" not in output.read_text() and time.monotonic() < deadline:
                await asyncio.sleep(0.5)
    finally:
        stop(process)
    text = output.read_text()
    assert "demo: live traffic" in text and "demo-password" in text, text[-3000:]
    assert (tmp_path / "demo" / "demo.json").exists()
    print(f"binary: {os.path.getsize(built) / 1e6:.1f} MB, healthy {took:.2f}s after start")
