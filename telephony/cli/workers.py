"""`telephony serve --workers N`: N server processes on one port, each with its own socket bound with
`SO_REUSEPORT` (the kernel spreads connections over them), all on one PostgreSQL log.

The parent reserves the port first (a bound socket that never listens: a busy port stops it with
nothing started, and port 0 becomes one port for all), then starts the workers as `telephony serve`
processes of their own, the first alone until it answers health (it makes the data dir's keys). They
share its standard output and error. It restarts none: a worker that ends is reported on standard
error, the others go on serving (they take its leases over); when none is left the parent exits 1.
SIGTERM or SIGINT stops every worker with SIGTERM (each finishes its in-flight work), then exits 0.
"""

from __future__ import annotations

import argparse
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

from ..config import Settings
from .arguments import CliError

START_TIMEOUT = 300.0
"""Seconds the first worker has to answer health (a first start may rebuild projections)."""
STOP_TIMEOUT = 30.0
"""Seconds a worker has to finish after SIGTERM before it is killed."""


def check(args: argparse.Namespace, settings: Settings) -> None:
    """Refuse what several workers cannot do: a SQLite log (one process owns the data dir), a demo."""
    if args.workers < 1:
        raise CliError("--workers must be at least 1")
    if args.workers > 1 and not settings.eventlog.url:
        raise CliError("--workers above 1 needs the event log on PostgreSQL ([eventlog] url or "
                       "TELEPHONY_EVENTLOG_URL): a SQLite data dir is served by one process")  # fmt: skip
    if args.workers > 1 and args.demo:
        raise CliError("--demo runs in one process: leave --workers out")


def run(args: argparse.Namespace, settings: Settings, sockets: list[socket.socket]) -> int:
    """Start `args.workers` workers on the reserved `sockets`' port; wait for a signal or their end."""
    port = sockets[0].getsockname()[1]
    command = [sys.executable, "-m", "telephony", *_globals(args), "serve", "--host", settings.server.host,
               "--port", str(port), "--reuse-port", "--log-format", settings.log.format,
               *(["--access-log"] if settings.log.access else [])]  # fmt: skip
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    first = subprocess.Popen(command)  # noqa: S603 - our own command
    if not _healthy(port, first):
        return 1
    workers = [first, *(subprocess.Popen(command) for _ in range(args.workers - 1))]  # noqa: S603
    print(f"telephony: {len(workers)} workers on port {port}, pids {' '.join(str(w.pid) for w in workers)}",
          flush=True)  # fmt: skip
    alive = list(workers)
    while alive and not stop.wait(0.2):
        for worker in [w for w in alive if w.poll() is not None]:
            alive.remove(worker)
            print(f"telephony: worker {worker.pid} ended with status {worker.returncode}; {len(alive)} left, "
                  "not restarted", file=sys.stderr, flush=True)  # fmt: skip
    for sock in sockets:
        sock.close()
    if not alive:
        return 1
    _stop(alive)
    return 0


def _healthy(port: int, worker: subprocess.Popen[bytes]) -> bool:
    """Wait for the first worker to answer health (it makes the data dir's keys and, on an empty log,
    the first customer, which the others then find); False when it ended first."""
    deadline = time.monotonic() + START_TIMEOUT
    while worker.poll() is None and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_telephony/health", timeout=1):  # noqa: S310
                return True
        except OSError:
            time.sleep(0.1)
    print(f"telephony: the first worker did not start (status {worker.poll()})", file=sys.stderr, flush=True)
    _stop([worker])
    return False


def _stop(workers: list[subprocess.Popen[bytes]]) -> None:
    for worker in workers:
        worker.send_signal(signal.SIGTERM)
    for worker in workers:
        try:
            worker.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def _globals(args: argparse.Namespace) -> list[str]:
    """The global options the parent was given, for its workers."""
    given = [("--config", getattr(args, "config", None)), ("--data-dir", getattr(args, "data_dir", None))]
    return [part for option, value in given if value for part in (option, value)]
