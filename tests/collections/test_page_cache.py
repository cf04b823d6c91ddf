"""Cached list pages, and what list reads learnt (totals, where pages start), never outlive a change of
their collection."""

from __future__ import annotations

import json

import msgspec
import pytest

from telephony.app import create_app
from telephony.clock import Clock
from telephony.collections import Kind, parse
from telephony.collections import cache as cache_module
from telephony.collections.cache import PageCache
from telephony.documents.listing import Page
from telephony.domain.events import RESOURCES
from telephony.domain.events.calls import CallEnded
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
    contact_changed(cache)
    cache.put(("contact", 1, ""), started, b"stale")
    assert cache.get(("contact", 1, "")) is None


def test_an_event_that_feeds_a_kind_retires_that_kinds_pages():
    cache = PageCache(max_bytes=10_000, fed={"call.ended": ["cdr"]})
    cache.put(("cdr", 1, ""), cache.generation("cdr"), b"before the call ended")
    ended = CallEnded(id=7, at=0.0, cause="normal clearing", disposition="CONNECTED", by="src", leg=None)
    cache.apply(RecordedEvent(position=1, stream="call-7", version=3, type="call.ended", schema=1, event=ended,
                              meta=Metadata(), recorded_at="", hash=""))  # fmt: skip
    assert cache.get(("cdr", 1, "")) is None


@pytest.mark.sqlite_only  # SQLite folds a bulk load from the log (`fold`); PostgreSQL hands it over in chunks
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


PROPS = {"id": Kind.INT, "first_name": Kind.TEXT}


def query(**params: str):
    return parse(params, PROPS, default_limit=50, max_limit=5000)


def page(*ids: int, total: int, continued: bool = True) -> Page:
    """A page read in id order, of the documents with these ids (whose last one's key tells where the
    next starts, when `continued`)."""
    last = (ids[-1],) if ids and continued else None
    return Page(b",".join(json.dumps({"id": id_}).encode() for id_ in ids), total, len(ids), last)


def contact_changed(cache: PageCache) -> None:
    changed = RESOURCES["contact"].updated(id=1, changes={})
    cache.apply(RecordedEvent(position=9, stream="contact-1", version=2, type="contact.updated", schema=1,
                              event=changed, meta=Metadata(), recorded_at="", hash=""))  # fmt: skip


def test_a_total_and_where_a_page_starts_are_recalled_until_a_change_of_their_kind():
    cache, named = PageCache(), json.dumps([{"property": "first_name", "operator": "eq", "value": "Ann"}])
    first, second = query(limit="2", filter=named), query(limit="2", page="2", filter=named)
    started = cache.generation("contact")
    cache.learn("contact", 1, first, started, page(3, 7, total=5))
    assert cache.recall("contact", 1, second) == (5, (7,))  # the next page starts after the last row
    assert cache.recall("contact", 1, query(limit="3", page="2", filter=named)) == (5, None)
    assert cache.recall("contact", 2, second) == (None, None)  # another customer's
    contact_changed(cache)
    assert cache.recall("contact", 1, second) == (None, None)
    cache.learn("contact", 1, first, started, page(3, 7, total=5))  # read before the change, kept after it
    assert cache.recall("contact", 1, second) == (None, None)


def test_only_what_a_page_tells_is_learnt():
    cache, generation = PageCache(), PageCache().generation("contact")
    cache.learn("contact", 1, query(limit="2"), generation, page(3, total=1))  # short: no next page, no filter
    cache.learn("contact", 1, query(limit="2", dir="DESC", sort="first_name"), generation,
                page(4, 3, total=9, continued=False))  # fmt: skip
    assert cache.recall("contact", 1, query(limit="2", page="2")) == (None, None)
    assert cache.recall("contact", 1, query(limit="2", page="2", dir="DESC", sort="first_name")) == (None, None)


def test_what_is_learnt_is_bounded_dropping_the_least_recently_used(monkeypatch):
    monkeypatch.setattr(cache_module, "LEARNT", 3)
    cache = PageCache()
    for n in range(1, 4):
        cache.learn("contact", 1, query(limit="1", page=str(n)), cache.generation("contact"), page(n, total=9))
    assert cache.recall("contact", 1, query(limit="1", page="2")) == (None, (1,))  # used: 3 is now the oldest
    cache.learn("contact", 1, query(limit="1", page="4"), cache.generation("contact"), page(4, total=9))
    found = [cache.recall("contact", 1, query(limit="1", page=str(n)))[1] for n in range(2, 6)]
    assert found == [(1,), None, (3,), (4,)]


@pytest.mark.parametrize("cache_bytes", [0, 1 << 20])
async def test_a_walk_and_its_total_follow_every_change_of_the_collection(aiohttp_client, settings, cache_bytes):
    """Pages of a filtered list by id, read in order and again, start where the page before ended and
    show the total kept: both are read afresh after a change (created, changed into and out of the
    filter, deleted), also with the list page cache off."""
    api = msgspec.structs.replace(settings.api, list_cache_bytes=cache_bytes)
    client = await aiohttp_client(create_app(msgspec.structs.replace(settings, api=api), clock=Clock.virtual()))
    answer = await (await client.post("/v1.2/voipstudio/login", json=ADMIN)).json()
    headers = {"X-Auth-Token": answer["user_token"]}

    async def walk(name: str) -> tuple[list[int], set[int]]:
        """The ids of every page of 2 of the list, and the totals they showed."""
        flt = json.dumps([{"property": "first_name", "operator": "eq", "value": name}])
        ids, totals = [], set()
        for page in range(1, 5):
            answer = await client.get(CONTACTS, params={"filter": flt, "limit": 2, "page": page}, headers=headers)
            listed = await answer.json()
            ids += [row["id"] for row in listed["data"]]
            totals.add(listed["total"])
        return ids, totals

    made = []
    for _ in range(5):
        created = await client.post(CONTACTS, json={"first_name": "Tess"}, headers=headers)
        made.append((await created.json())["data"]["id"])
        assert await walk("Tess") == await walk("Tess") == (made, {len(made)})
    await client.patch(f"{CONTACTS}/{made[0]}", json={"first_name": "Tom"}, headers=headers)
    assert (await walk("Tess"), await walk("Tom")) == ((made[1:], {4}), ([made[0]], {1}))
    await client.patch(f"{CONTACTS}/{made[0]}", json={"first_name": "Tess"}, headers=headers)
    await client.delete(f"{CONTACTS}/{made[2]}", headers=headers)
    assert (await walk("Tess"), await walk("Tom")) == (([made[0], made[1], *made[3:]], {4}), ([], {0}))
