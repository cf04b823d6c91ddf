"""A throwaway PostgreSQL cluster for the tests, started once per session by `scripts/postgres`.

Each test that asks for an empty PostgreSQL log gets a schema of its own in the cluster's database (its
URL sets the search path). A test's app gets a database of its own, copied from a template made once
per session with the log's tables, the read models and their functions (`CREATE DATABASE ... TEMPLATE`),
and dropped when the next one is made (the app closes after the test's own fixtures): its cost stays the
same however many tests ran before, where schemas pile up in one catalog. The cluster commits without
waiting for the disk (`synchronous_commit = off`): its data is thrown away, and an app's tests commit
often. Without a server to start (no Debian package and no root to install it) the PostgreSQL tests skip
saying why, except in CI (`CI=true`), where they fail: CI must run both stores."""

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


TEMPLATE = "telephony_app_template"
"""The session's database an app's database is copied from."""


class Cluster:
    """A started cluster: its database URL, a schema per test, and a database per test's app."""

    def __init__(self, folder: Path, url: str) -> None:
        self.folder, self.url = folder, url
        self._template_made = False
        self._apps: list[str] = []

    def schema_url(self) -> str:
        """The URL of a new, empty schema of the database."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {name}")
        return f"{self.url}?options=-csearch_path%3D{name}"

    def database_url(self, name: str) -> str:
        """The URL of the cluster's database `name`."""
        return f"{self.url.rsplit('/', 1)[0]}/{name}"

    def app_url(self, kept: bool = False) -> str:
        """The URL of a new database holding an empty log with every read model. The databases of the
        tests before are dropped (closing what is still connected to them), unless it is `kept`: then
        nothing is dropped, and it lives until `drop` (a module's app, or a test's second log)."""
        import psycopg

        if not self._template_made:
            self._make_template()
        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            while self._apps and not kept:
                conn.execute(f"DROP DATABASE IF EXISTS {self._apps.pop()} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
        if not kept:
            self._apps.append(name)
        return self.database_url(name)

    def drop(self, url: str) -> None:
        """Drop the database of `url` (one made `kept`)."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[1]} WITH (FORCE)")

    def _make_template(self) -> None:
        """The template: the log's tables, the read models and their functions, as an app makes them."""
        import psycopg

        from telephony.eventlog import pg_store
        from telephony.wiring import read_models

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {TEMPLATE}")
            conn.execute(f"CREATE DATABASE {TEMPLATE} TEMPLATE template0")
        url = self.database_url(TEMPLATE)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION pg_trgm")
        made = pg_store.connect(url)
        try:
            read_models.projection_set(url).prepare(made, progress=False)
        finally:
            made.close()
        self._template_made = True

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
    import psycopg

    cluster = Cluster(folder, done.stdout.strip().splitlines()[-1])
    with psycopg.connect(cluster.url, autocommit=True) as conn:
        conn.execute("ALTER SYSTEM SET synchronous_commit = off")
        conn.execute("SELECT pg_reload_conf()")
    return cluster
