"""Cached list pages and filtered totals never outlive a change of their collection."""

from __future__ import annotations

import json

import pytest

from telephony.collections import cache as cache_module
from telephony.collections.cache import PageCache
from telephony.eventlog import Metadata, RecordedEvent
from telephony.keys import MEMORY, PAGE_CACHE
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
    cache.apply(RecordedEvent(position=9, stream="contact-1", version=2, type="contact.updated", schema=1,
                              data={}, meta=Metadata(), recorded_at="", hash=""))  # fmt: skip
    cache.put(("contact", 1, ""), started, b"stale")
    assert cache.get(("contact", 1, "")) is None


def test_an_event_that_feeds_a_kind_retires_that_kinds_pages():
    cache = PageCache(max_bytes=10_000, fed={"call.ended": ["cdr"]})
    cache.put(("cdr", 1, ""), cache.generation("cdr"), b"before the call ended")
    cache.apply(RecordedEvent(position=1, stream="call-7", version=3, type="call.ended", schema=1, data={},
                              meta=Metadata(), recorded_at="", hash=""))  # fmt: skip
    assert cache.get(("cdr", 1, "")) is None


async def test_a_list_read_while_a_bulk_load_is_followed_is_read_from_the_load(client, headers, monkeypatch):
    """The in-memory projections follow a bulk load by reading the log, and the loop answers other
    requests meanwhile: a list read then (and kept by the page cache) is the load's."""
    assert (await client.post(CONTACTS, json={"first_name": "Ann"}, headers=headers)).status == 201
    assert await names(client, headers) == ["Ann"]
    memory, seen = client.server.app[MEMORY], []
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


def test_a_total_counted_before_a_change_is_not_served_after_it():
    cache, key = PageCache(max_bytes=10_000), ("contact", 1, ("user_id = ?", (7,), None))
    started = cache.generation("contact")
    cache.put_total(key, started, 3)
    assert cache.total(key) == 3
    cache.apply(RecordedEvent(position=9, stream="contact-1", version=2, type="contact.updated", schema=1,
                              data={}, meta=Metadata(), recorded_at="", hash=""))  # fmt: skip
    assert cache.total(key) is None
    cache.put_total(key, started, 3)  # counted before the change, kept after it
    assert cache.total(key) is None
    assert PageCache(max_bytes=0).total(key) is None  # the cache off keeps no total either


def test_totals_are_bounded_dropping_the_least_recently_used(monkeypatch):
    monkeypatch.setattr(cache_module, "TOTALS", 3)
    cache = PageCache(max_bytes=10_000)
    for n in range(3):
        cache.put_total(("contact", 1, n), cache.generation("contact"), n)
    assert cache.total(("contact", 1, 0)) == 0  # used: the least recently used is now 1
    cache.put_total(("contact", 1, 3), cache.generation("contact"), 3)
    assert [cache.total(("contact", 1, n)) for n in range(4)] == [0, None, 2, 3]


async def test_a_filtered_total_follows_every_change_of_its_collection(client, headers):
    """A filtered list's total is kept between its pages and counted again after a change: created,
    changed into and out of the filter, deleted."""

    async def total_of(name: str) -> int:
        flt = json.dumps([{"property": "first_name", "operator": "eq", "value": name}])
        answer = await client.get(CONTACTS, params={"filter": flt, "limit": 1, "page": 1}, headers=headers)
        return (await answer.json())["total"]

    made = []
    for _ in range(3):
        created = await client.post(CONTACTS, json={"first_name": "Tess"}, headers=headers)
        made.append((await created.json())["data"]["id"])
        assert await total_of("Tess") == len(made)
        assert await total_of("Tess") == len(made)  # kept
    await client.patch(f"{CONTACTS}/{made[0]}", json={"first_name": "Tom"}, headers=headers)
    assert (await total_of("Tess"), await total_of("Tom")) == (2, 1)
    await client.patch(f"{CONTACTS}/{made[0]}", json={"first_name": "Tess"}, headers=headers)
    await client.delete(f"{CONTACTS}/{made[1]}", headers=headers)
    assert (await total_of("Tess"), await total_of("Tom")) == (2, 0)
