#!/usr/bin/env python3
"""The demo's responsiveness while it makes its history, beside two busy processes.

Starts two processes that only spin (so the server shares the machine, as on a busy laptop or a CI
runner), then `telephony serve --demo` on a new data dir, and asks `GET /_telephony/health` every
`--every` seconds from the first answer until the history is made (its mark in `demo.json`):
health's latency p50, p99 and max, and any answer slower than `--timeout` (counted, not waited for).
Then SIGTERM, timed to the process's exit, and `telephony verify` on the data dir. A second demo gets
its SIGTERM `--stop-after` seconds into its history (the moment a stop used to be ignored), timed and
verified the same way.

    .venv/bin/python scripts/bench_demo.py [--every 0.05] [--timeout 5] [--stop-after 10] [--busy 2]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from benchkit import PYTHON, free_port

BUSY = "while True: pass"


def start_demo(data_dir: Path, port: int, output: Path) -> subprocess.Popen:
    env = {**os.environ, "TELEPHONY_CONTROL_KEY": "bench-control-key", "PYTHONUNBUFFERED": ""}
    with output.open("wb") as out:
        return subprocess.Popen([PYTHON, "-m", "telephony", "--data-dir", str(data_dir), "serve", "--demo",
                                 "--port", str(port)], cwd=data_dir.parent, env=env, stdout=out,
                                stderr=subprocess.STDOUT)  # fmt: skip


def health_seconds(port: int, timeout: float) -> float | None:
    """How long health took to answer; None when it did not within `timeout` (or not at all)."""
    began = time.perf_counter()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_telephony/health", timeout=timeout) as answer:  # noqa: S310
            answer.read()
    except OSError:
        return None
    return time.perf_counter() - began


def first_answer(port: int, process: subprocess.Popen, within: float = 60) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and process.poll() is None:
        if health_seconds(port, 1) is not None:
            return
        time.sleep(0.02)
    raise SystemExit(f"the demo did not answer health within {within}s")


def stopped_in(process: subprocess.Popen, limit: float = 60) -> float:
    """SIGTERM, and the seconds until the process ended (killed after `limit`: reported as such)."""
    began = time.perf_counter()
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(limit)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return float("inf")
    return time.perf_counter() - began


def verified(data_dir: Path) -> str:
    result = subprocess.run([PYTHON, "-m", "telephony", "--data-dir", str(data_dir), "verify"], capture_output=True,
                            text=True, cwd=data_dir.parent, check=False)  # fmt: skip
    return "verify OK" if result.returncode == 0 else f"verify FAILED: {(result.stdout + result.stderr).strip()}"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def history_made(data_dir: Path) -> bool:
    """Whether the demo marked its data dir's history as made (`demo.json`)."""
    try:
        return json.loads((data_dir / "demo.json").read_text()).get("history") is not None
    except (OSError, ValueError):
        return False


def whole_history(folder: Path, args: argparse.Namespace) -> None:
    data_dir, port, output = folder / "whole", free_port(), folder / "whole.out"
    process = start_demo(data_dir, port, output)
    began = time.monotonic()
    first_answer(port, process)
    latencies, timeouts = [], 0
    while not history_made(data_dir) and process.poll() is None:
        took = health_seconds(port, args.timeout)
        if took is None:
            timeouts += 1
        else:
            latencies.append(took)
        time.sleep(args.every)
    made = time.monotonic() - began
    exit_seconds = stopped_in(process)
    ms = [1000 * value for value in latencies]
    print(f"history made in {made:.1f} s; health asked {len(ms) + timeouts} times meanwhile")
    print(f"  health latency: p50 {percentile(ms, 0.5):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms, "
          f"max {max(ms):.1f} ms; {timeouts} not answered within {args.timeout:g} s")  # fmt: skip
    print(f"  SIGTERM after the history: exit in {exit_seconds:.2f} s; {verified(data_dir)}")


def stopped_during_history(folder: Path, args: argparse.Namespace) -> None:
    data_dir, port, output = folder / "stopped", free_port(), folder / "stopped.out"
    process = start_demo(data_dir, port, output)
    first_answer(port, process)
    time.sleep(args.stop_after)
    making = not history_made(data_dir)
    exit_seconds = stopped_in(process)
    print(f"  SIGTERM {args.stop_after:g} s into {'the history' if making else 'the live traffic'}: exit in "
          f"{exit_seconds:.2f} s (status {process.returncode}); {verified(data_dir)}")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=float, default=0.05, help="seconds between two health requests")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds a health request is given")
    parser.add_argument("--stop-after", type=float, default=10.0, help="seconds into the second demo's history")
    parser.add_argument("--busy", type=int, default=2, help="processes that only spin beside the server")
    args = parser.parse_args()
    busy = [subprocess.Popen([PYTHON, "-c", BUSY]) for _ in range(args.busy)]
    try:
        with tempfile.TemporaryDirectory(prefix="bench-demo-") as folder:
            print(f"beside {args.busy} busy processes, on {os.cpu_count()} cores:")
            whole_history(Path(folder), args)
            stopped_during_history(Path(folder), args)
    finally:
        for process in busy:
            process.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
