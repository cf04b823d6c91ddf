"""`telephony migrate` copies a data dir's log into PostgreSQL, and `log` and `verify` read it there."""

from __future__ import annotations

import json

from telephony.eventlog import pg_store, store

from ..serving import telephony
from .test_commands import Prepared, prepared  # noqa: F401 - the data dir the app wrote


def on_postgresql(data: Prepared, url: str, *args: str):
    """`telephony ARGS` with the log at `url` (`[eventlog] url` in a config file)."""
    config = data.data_dir.parent / "postgresql.toml"
    config.write_text(f'[eventlog]\nurl = "{url}"\n')
    return telephony("--config", config, *args, cwd=data.data_dir.parent)


def test_migrate_copies_the_log_and_the_copy_has_the_same_hash_chain_head(prepared, postgres_cluster):  # noqa: F811
    url = postgres_cluster.schema_url()
    done = telephony("migrate", "--from", f"sqlite:{prepared.data_dir}", "--to", url, cwd=prepared.data_dir.parent)
    assert done.returncode == 0, done.stderr
    source = store.connect(prepared.data_dir / "events.db", readonly=True)
    copy = pg_store.connect(url)
    assert store.head(copy) == store.head(source) and store.count(copy) == store.count(source) > 0
    assert store.head(source)[1].hex() in done.stdout
    verified = on_postgresql(prepared, url, "verify")
    assert verified.returncode == 0 and f"hash chain intact (head {store.head(source)[1].hex()})" in verified.stdout
    logged = [json.loads(line) for line in on_postgresql(prepared, url, "log", "--json").stdout.splitlines()]
    assert [event["position"] for event in logged] == list(range(1, store.count(source) + 1))
    again = telephony("migrate", "--from", f"sqlite:{prepared.data_dir}", "--to", url, cwd=prepared.data_dir.parent)
    assert again.returncode == 2 and "migrate into an empty one" in again.stderr


def test_verify_on_postgresql_names_the_position_of_a_changed_byte(prepared, postgres_cluster):  # noqa: F811
    url = postgres_cluster.schema_url()
    telephony("migrate", "--from", f"sqlite:{prepared.data_dir}", "--to", url, cwd=prepared.data_dir.parent)
    pg_store.connect(url).execute("UPDATE events SET stream = stream || 'x' WHERE position = 2")
    verified = on_postgresql(prepared, url, "verify")
    assert verified.returncode == 1 and "verify FAILED at position 2" in verified.stdout


def test_migrate_refuses_a_source_that_is_not_a_sqlite_data_dir(tmp_path):
    done = telephony("migrate", "--from", str(tmp_path), "--to", "postgresql://nowhere/x", cwd=tmp_path)
    assert done.returncode == 2 and "give sqlite:DIR" in done.stderr


def test_the_server_refuses_a_postgresql_log_until_its_read_models_move_there(prepared):  # noqa: F811
    done = on_postgresql(prepared, "postgresql://127.0.0.1:1/none", "serve", "--data-dir", str(prepared.data_dir))
    assert done.returncode != 0 and "does not run on PostgreSQL yet" in done.stderr
