"""The log's WAL file starts over while lists are read between writes, as a busy server reads them."""

from __future__ import annotations

from pathlib import Path

from telephony.eventlog import wal

ADMIN = {"email": "admin@example.com", "password": "change-me-now"}
CONTACTS = "/v1.2/voipstudio/contacts"


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
