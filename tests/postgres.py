"""A throwaway PostgreSQL cluster for the tests, started once per session by `scripts/postgres`.

Each test that asks for a PostgreSQL log gets a schema of its own in the cluster's database (its URL
sets the search path), so tests never see each other's tables. Without a server to start (no Debian
package and no root to install it) the PostgreSQL tests skip saying why, except in CI (`CI=true`),
where they fail: CI must run both stores."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "postgres"


class Cluster:
    """A started cluster: its database URL, and a schema per test."""

    def __init__(self, folder: Path, url: str) -> None:
        self.folder, self.url = folder, url

    def schema_url(self) -> str:
        """The URL of a new, empty schema of the database."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {name}")
        return f"{self.url}?options=-csearch_path%3D{name}"

    def stop(self) -> None:
        subprocess.run([str(SCRIPT), "stop", str(self.folder)], check=False, capture_output=True)
        shutil.rmtree(self.folder, ignore_errors=True)


def free_port() -> int:
    """A port of the loopback address no one listens on now (other test sessions may run beside)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_cluster() -> Cluster:
    """Start the session's cluster in a folder under the system's temporary folder (the cluster's owner
    must reach it), or skip (fail in CI) saying why it cannot be had."""
    folder = Path(tempfile.mkdtemp(prefix="telephony-pg-"))
    done = subprocess.run([str(SCRIPT), "start", str(folder), str(free_port())], capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    if done.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        reason = f"no PostgreSQL cluster could be started: {done.stderr.strip()[-500:]}"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return Cluster(folder, done.stdout.strip().splitlines()[-1])
