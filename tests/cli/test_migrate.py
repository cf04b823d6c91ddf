"""`telephony migrate` copies a data dir's log into PostgreSQL, and `log` and `verify` read it there."""

from __future__ import annotations

import json

import pytest

from telephony.eventlog import pg_store, store

from ..serving import telephony
from .prepared import Prepared

pytestmark = pytest.mark.sqlite_only  # each copies a SQLite data dir's log into PostgreSQL


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


def test_replay_makes_a_migrated_logs_read_models_and_verify_compares_them(prepared, postgres_cluster):  # noqa: F811
    url = postgres_cluster.schema_url()
    telephony("migrate", "--from", f"sqlite:{prepared.data_dir}", "--to", url, cwd=prepared.data_dir.parent)
    assert "no read models yet" in on_postgresql(prepared, url, "verify").stdout
    replayed = on_postgresql(prepared, url, "replay")
    assert replayed.returncode == 0 and "on PostgreSQL" in replayed.stdout, replayed.stderr
    verified = on_postgresql(prepared, url, "verify")
    assert verified.returncode == 0 and "read models match a fresh replay" in verified.stdout, verified.stdout
    on_sqlite = telephony("--data-dir", prepared.data_dir, "export", cwd=prepared.data_dir.parent)
    assert on_postgresql(prepared, url, "export").stdout == on_sqlite.stdout != ""
    pg_store.connect(url).execute("UPDATE doc_user SET body = '{}' WHERE id = (SELECT min(id) FROM doc_user)")
    verified = on_postgresql(prepared, url, "verify")
    assert verified.returncode == 1 and "verify FAILED: documents:user: 1 rows of doc_user" in verified.stdout


def test_an_export_imported_into_postgresql_is_exported_again_the_same(prepared, postgres_cluster, tmp_path):  # noqa: F811
    exported = tmp_path / "export.jsonl"
    telephony("--data-dir", prepared.data_dir, "export", "--out", exported, cwd=prepared.data_dir.parent)
    url, target = postgres_cluster.schema_url(), tmp_path / "target"
    imported = on_postgresql(prepared, url, "--data-dir", target, "import", exported, "--seal-key", prepared.data_dir)
    assert imported.returncode == 0, imported.stderr
    again = [json.loads(line) for line in on_postgresql(prepared, url, "export").stdout.splitlines()]
    before = [json.loads(line) for line in exported.read_text().splitlines()]
    assert [(r["resource"], r["customer_id"], r["data"].get("id")) for r in again] == [
        (r["resource"], r["customer_id"], r["data"].get("id")) for r in before
    ]
