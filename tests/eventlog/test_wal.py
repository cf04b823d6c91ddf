"""The log's WAL file starts over while lists are read between writes, as a busy server reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from telephony.eventlog import store as sqlite_store
from telephony.eventlog import wal

ADMIN = {"email": "admin@example.com", "password": "change-me-now"}
CONTACTS = "/v1.2/voipstudio/contacts"


@pytest.mark.sqlite_only  # SQLite's WAL file
async def test_the_wal_file_stays_bounded_while_lists_are_read_between_writes(client, settings, monkeypatch):
    monkeypatch.setattr(wal, "LIMIT_BYTES", 64 * 1024)
    token = (await (await client.post("/v1.2/voipstudio/login", json=ADMIN)).json())["user_token"]
    headers = {"X-Auth-Token": token}
    wal_file = Path(settings.storage.data_dir) / "events.db-wal"
    sizes = []
    for n in range(200):
        created = await client.post(CONTACTS, json={"first_name": f"Contact {n}", "company": "Acme"}, headers=headers)
        assert created.status == 201
        listed = await client.get(CONTACTS + "?limit=50&sort=-id", headers=headers)
        assert (await listed.json())["data"][0]["first_name"] == f"Contact {n}"
        sizes.append(wal_file.stat().st_size)
    assert max(sizes) < 4 * 64 * 1024, f"the WAL file grew to {max(sizes):,} bytes"


def test_a_reader_holding_an_old_snapshot_costs_the_writer_one_try_per_growth(tmp_path, monkeypatch):
    monkeypatch.setattr(wal, "LIMIT_BYTES", 32 * 1024)
    writer = sqlite_store.connect(tmp_path / "events.db", synchronous="NORMAL")
    writer.execute("CREATE TABLE notes (text BLOB)")
    reader = sqlite_store.connect(tmp_path / "events.db", readonly=True)
    bound = wal.WalBound(writer)
    tries: list[int] = []
    truncate = bound._truncate
    monkeypatch.setattr(bound, "_truncate", lambda conn: tries.append(1) or truncate(conn))

    def commit_a_note() -> None:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("INSERT INTO notes VALUES (?)", (bytes(10_000),))
        writer.execute("COMMIT")
        bound.committed(writer)

    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM events").fetchone()  # a snapshot held, as a long verify holds one
    for _ in range(30):
        commit_a_note()
    assert bound.truncated == 0
    grown = (tmp_path / "events.db-wal").stat().st_size
    assert 0 < len(tries) <= grown // (32 * 1024)  # once per LIMIT_BYTES of growth, not once per commit
    reader.execute("COMMIT")
    for _ in range(4):
        commit_a_note()
    assert bound.truncated >= 1
    assert (tmp_path / "events.db-wal").stat().st_size < 32 * 1024
