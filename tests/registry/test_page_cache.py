"""Cached list pages never outlive a change of their collection."""

from __future__ import annotations

import json

import pytest

from telephony.collections import cache as cache_module
from telephony.collections.cache import PageCache
from telephony.documents import reader as reader_module
from telephony.domain.events import RESOURCES
from telephony.domain.events.calls import CallEnded
from telephony.eventlog import Metadata, RecordedEvent
from telephony.keys import EVENT_LOG, MEMORY, PAGE_CACHE, READER
from tests.conftest import CONTROL_KEY

ADMIN = {"email": "admin@example.com", "password": "change-me-now"}
CONTACTS = "/v1.2/voipstudio/contacts"


@pytest.fixture
async def headers(client):
    answer = await (await client.post("/v1.2/voipstudio/login", json=ADMIN)).json()
    return {"X-Auth-Token": answer["user_token"]}


async def names(client, headers) -> list[str]:
    body = await (await client.get(CONTACTS + "?sort=id", headers=headers)).json()
    return [item["first_name"] for item in body["data"]]


async def test_a_list_read_again_after_each_kind_of_change_shows_the_change(client, headers):
    created = await (await client.post(CONTACTS, json={"first_name": "Ann"}, headers=headers)).json()
    assert await names(client, headers) == ["Ann"]
    contact = f"{CONTACTS}/{created['data']['id']}"
    await client.patch(contact, json={"first_name": "Anna"}, headers=headers)
    assert await names(client, headers) == ["Anna"]
    line = {"resource": "contacts", "customer_id": 100001, "data": {"first_name": "Bob"}}
    imported = await client.post("/_telephony/import", data=json.dumps(line), headers={"X-Control-Key": CONTROL_KEY})
    assert imported.status == 200
    assert await names(client, headers) == ["Anna", "Bob"]
    await client.delete(contact, headers=headers)
    assert await names(client, headers) == ["Bob"]


async def test_only_pages_within_a_lists_first_rows_are_kept(client, headers, monkeypatch):
    monkeypatch.setattr(cache_module, "KEPT_ROWS", 2)
    for name in ("A", "B", "C"):
        await client.post(CONTACTS, json={"first_name": name}, headers=headers)
    cache = client.server.app[PAGE_CACHE]
    for page in (1, 2, 3):
        assert (await client.get(f"{CONTACTS}?limit=1&page={page}", headers=headers)).status == 200
    kept = [key[2] for key in cache._pages]
    assert kept == ["limit=1&page=1", "limit=1&page=2"]


def test_the_cache_keeps_within_its_byte_budget_dropping_the_least_recently_used():
    cache = PageCache(max_bytes=800)
    for n in range(10):
        cache.put(("contact", 1, f"page={n}"), cache.generation("contact"), b"x" * 100)
    assert cache.get(("contact", 1, "page=0")) is None
    assert cache.get(("contact", 1, "page=9")) == b"x" * 100


def test_a_page_read_before_a_change_is_not_served_after_it():
    cache = PageCache(max_bytes=10_000)
    started = cache.generation("contact")
    cache.reset()  # a bulk load committed while the page was being read (the cache starts empty again)
    cache.put(("contact", 1, ""), started, b"stale")
    assert cache.get(("contact", 1, "")) is None
    started = cache.generation("contact")
    cache.put(("contact", 1, ""), started, b"fresh")
    changed = RESOURCES["contact"].updated(id=1, changes={})
    cache.apply(RecordedEvent(position=9, stream="contact-1", version=2, type="contact.updated", schema=1,
                              event=changed, meta=Metadata(), recorded_at="", hash=""))  # fmt: skip
    cache.put(("contact", 1, ""), started, b"stale")
    assert cache.get(("contact", 1, "")) is None


def test_an_event_that_feeds_a_kind_retires_that_kinds_pages():
    cache = PageCache(max_bytes=10_000, fed={"call.ended": ["cdr"]})
    cache.put(("cdr", 1, ""), cache.generation("cdr"), b"before the call ended")
    ended = CallEnded(id=7, at=0.0, cause="normal clearing", disposition="CONNECTED", by="src", leg=None)
    cache.apply(RecordedEvent(position=1, stream="call-7", version=3, type="call.ended", schema=1, event=ended,
                              meta=Metadata(), recorded_at="", hash=""))  # fmt: skip
    assert cache.get(("cdr", 1, "")) is None


async def test_a_list_read_while_a_bulk_load_is_followed_is_read_from_the_load(client, headers, monkeypatch):
    """The in-memory projections follow a bulk load by reading the log, and the loop answers other
    requests meanwhile. The loop's read snapshot is let go before they follow, so a list read then (and
    kept by the page cache) is the load's, even when a snapshot from before the load's commit was held
    (no write counts as recent, and one is taken as the load is handed to the writer)."""
    monkeypatch.setattr(reader_module, "WRITING_SECONDS", 0.0)
    assert (await client.post(CONTACTS, json={"first_name": "Ann"}, headers=headers)).status == 201
    app = client.server.app
    app[EVENT_LOG].on_write(lambda: app[READER].at_snapshot(lambda snapshot: snapshot.position))
    memory, seen = app[MEMORY], []
    fold = memory.fold

    async def fold_after_a_list_read(*args, **kwargs):
        seen.append(await names(client, headers))
        return await fold(*args, **kwargs)

    monkeypatch.setattr(memory, "fold", fold_after_a_list_read)
    line = {"resource": "contacts", "customer_id": 100001, "data": {"first_name": "Bob"}}
    imported = await client.post("/_telephony/import", data=json.dumps(line), headers={"X-Control-Key": CONTROL_KEY})
    assert imported.status == 200
    assert seen == [["Ann", "Bob"]]
    assert await names(client, headers) == ["Ann", "Bob"]
