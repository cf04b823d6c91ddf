#!/usr/bin/env python3
"""`telephony verify` on a data dir while a server writes to it: how many runs raise a false alarm.

Starts the server on a new data dir, has `--writers` threads POST contacts as fast as it answers, and
runs `telephony verify --data-dir D` `--runs` times meanwhile; prints each run's exit status, seconds
and the contacts written during it, then the false alarms (goal: 0). A run that fails prints what it
said.

    .venv/bin/python scripts/verify_under_load.py [--runs 20] [--writers 8]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from benchkit import PYTHON, free_port, login, start_server, stop


def writer(port: int, token: str, stop_writing: threading.Event, made: list[int], n: int) -> None:
    body = json.dumps({"first_name": f"writer {n}"}).encode()
    url, headers = f"http://127.0.0.1:{port}/v1.2/voipstudio/contacts", {"Content-Type": "application/json",
                                                                         "X-Auth-Token": token}  # fmt: skip
    while not stop_writing.is_set():
        request = urllib.request.Request(url, data=body, headers=headers)
        with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310 - loopback only
            answer.read()
        made[n] += 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--writers", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="verify-load-") as folder:
        data_dir, port = Path(folder) / "data", free_port()
        server = start_server(data_dir, port)
        made, stop_writing = [0] * args.writers, threading.Event()
        threads = [threading.Thread(target=writer, args=(port, login(port), stop_writing, made, n), daemon=True)
                   for n in range(args.writers)]  # fmt: skip
        for thread in threads:
            thread.start()
        alarms = 0
        try:
            time.sleep(1)
            for run in range(1, args.runs + 1):
                before, began = sum(made), time.monotonic()
                result = subprocess.run([PYTHON, "-m", "telephony", "--data-dir", str(data_dir), "verify"],
                                        capture_output=True, text=True, cwd=folder, check=False)  # fmt: skip
                seconds, written = time.monotonic() - began, sum(made) - before
                print(f"run {run:>2}: exit {result.returncode}, {seconds:.1f} s, {written} contacts written meanwhile")
                if result.returncode != 0:
                    alarms += 1
                    print("  " + (result.stdout + result.stderr).strip().replace("\n", "\n  "))
        finally:
            stop_writing.set()
            for thread in threads:
                thread.join(timeout=30)
            stop(server)
        print(f"{args.runs} runs under {args.writers} writers ({sum(made)} contacts in all): {alarms} false alarms")
        return 1 if alarms else 0


if __name__ == "__main__":
    sys.exit(main())
