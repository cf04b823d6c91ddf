"""Lists read by rank answer exactly what the plain SQL path answers, and what a Python reference says.

Generated collections (seeded randomness) of CDRs and contacts, changed between requests (records
added, patched and deleted between the pages of a walk), are listed with generated filters, sorts
and pages; every answer (rows in order, and `total`) must equal the reference computed in Python
from the records the test made, and the same request through the SQL path (`documents.listing`).
Blocks are made tiny, so even a few hundred records span many blocks, splits and chunks, and spans
are read by rank from 4 documents on.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from telephony.collections import parse
from telephony.documents import blocks, listing, ordering, ranked, ranks
from telephony.domain.events import events_of
from telephony.eventlog import NewEvent
from telephony.keys import RANKS, READER
from telephony.registry.catalogue import BY_PATH
from tests.registry.conftest import LOOP, Api, Caller, append_event, seed_many

pytestmark = LOOP
CDRS, CONTACTS = BY_PATH["cdrs"], BY_PATH["contacts"]
TYPES = ["incoming", "outgoing", "internal", None]
DAYS = ["2026-03-01", "2026-03-02", "2026-03-03"]
TIMES = ["08:00:00", "12:30:00", "12:30:00", "23:59:59"]


@pytest.fixture(autouse=True)
def tiny_blocks(monkeypatch):
    monkeypatch.setattr(ranks, "BLOCK", 2)
    monkeypatch.setattr(ranks, "BUILD", 5)
    monkeypatch.setattr(blocks, "CHUNK", 3)
    monkeypatch.setattr(ranked, "SMALL", 3)  # spans of more than 3 are read by rank, smaller ones walked


def a_cdr(rng: random.Random) -> dict[str, Any]:
    when = f"{rng.choice(DAYS)} {rng.choice(TIMES)}" if rng.random() < 0.9 else None
    return {"type": rng.choice(TYPES), "calldate": when, "user_id": rng.choice([1, 2, 3, None]),
            "live_id": rng.choice([10, 11, 12, 13])}  # fmt: skip


def matches(record: dict, prop: str, operator: str, value: Any) -> bool:
    """A condition as the API means it; a bare date against a time is its day (real-platform.md)."""
    have = record.get(prop)
    if have is None:
        return False
    if isinstance(value, str) and len(value) == 10 and prop == "calldate":
        first, last = f"{value} 00:00:00", f"{value} 23:59:59"
        return {"eq": first <= have <= last, "gt": have > first, "gte": have >= first, "lt": have < first,
                "lte": have <= last}[operator]  # fmt: skip
    return {"eq": have == value, "gt": have > value, "gte": have >= value, "lt": have < value,
            "lte": have <= value}[operator]  # fmt: skip


def expected(records: dict[int, dict], conditions: list[tuple[str, str, Any]], sort: str | None, descending: bool,
             page: int, limit: int) -> tuple[list[int], int]:  # fmt: skip
    """The ids of the page and the total, by the meaning of the API, in plain Python."""
    found = [r for r in records.values() if all(matches(r, *c) for c in conditions)]
    if sort:
        found.sort(key=lambda r: (r[sort] is not None, r[sort] if r[sort] is not None else 0, r["id"]),
                   reverse=descending)  # fmt: skip
    else:
        found.sort(key=lambda r: r["id"], reverse=descending)
    start = (page - 1) * limit
    return [r["id"] for r in found[start : start + limit]], len(found)


def a_query(rng: random.Random, props: dict[str, list[Any]], ranged: list[str], size: int) -> dict[str, Any]:
    """Conditions, sort, direction and page: mostly ones an ordering answers, some it does not."""
    conditions: list[tuple[str, str, Any]] = []
    sort = None
    shape = rng.choice(["all", "equal", "range", "equal+range", "other"])
    if shape in ("equal", "equal+range"):
        prop = rng.choice(list(props))
        conditions.append((prop, "eq", rng.choice([v for v in props[prop] if v is not None])))
    if shape in ("range", "equal+range") and ranged:
        sort = rng.choice(ranged)
        for operator in rng.sample(["gt", "gte", "lt", "lte"], rng.randint(1, 2)):
            conditions.append((sort, operator, rng.choice([v for v in props[sort] if v is not None])))
    if shape == "other":
        sort = rng.choice([None, *props])
    limit = rng.choice([1, 2, 3, 7, 50])
    pages = max(1, -(-size // limit))
    page = rng.choice([1, 2, pages, pages + 1, rng.randint(1, pages + 1)])
    return {"conditions": conditions, "sort": sort, "descending": rng.random() < 0.5, "page": page, "limit": limit}


async def check(api: Api, caller: Caller, path: str, records: dict[int, dict], query: dict[str, Any]) -> bool:
    """The list answers as the reference does; True when it was answered by rank."""
    params: dict[str, Any] = {"page": query["page"], "limit": query["limit"]}
    if query["conditions"]:
        params["filter"] = json.dumps([{"property": p, "operator": o, "value": v} for p, o, v in query["conditions"]])
    if query["sort"]:
        params["sort"] = query["sort"]
    if query["descending"]:
        params["dir"] = "DESC"
    body = await api.ok("GET", path, caller, params=params)
    want = expected(records, query["conditions"], query["sort"], query["descending"], query["page"], query["limit"])
    assert ([r["id"] for r in body["data"]], body["total"]) == want, (params, body["total"])
    resource = BY_PATH[path.strip("/")]
    q = parse({k: str(v) for k, v in params.items()}, resource.props, default_limit=50, max_limit=5000)
    plain, total = await listing.page(api.app[READER], resource.kind, listing.owned_having(caller.customer_id), q)
    assert ([json.loads(b)["id"] for b in plain], total) == want
    return ranked.plan(api.app[RANKS].orderings(resource.kind), q.compared or (), q.sort) is not None \
        and q.compared is not None  # fmt: skip


@pytest.mark.parametrize("seed", range(6))
async def test_cdr_lists_by_rank_equal_the_reference_while_records_come_and_go(api: Api, seed: int):
    rng = random.Random(seed)
    caller = await api.new_customer(f"ranked-cdrs-{seed}")
    records = {d["id"]: d for d in await seed_many(api, CDRS, caller.customer_id, [a_cdr(rng) for _ in range(60)])}
    values = {"type": TYPES, "user_id": [1, 2, 3], "live_id": [10, 11, 12, 13],
              "calldate": [f"{d} {t}" for d in DAYS for t in TIMES] + DAYS}  # fmt: skip
    answered_by_rank = 0
    for _ in range(60):
        step = rng.random()
        if step < 0.15:
            added = await seed_many(api, CDRS, caller.customer_id, [a_cdr(rng) for _ in range(rng.randint(1, 12))])
            records.update((d["id"], d) for d in added)
        elif step < 0.25 and records:
            gone = rng.choice(list(records))
            await append_event(api, NewEvent(stream=f"cdr-{gone}", event=events_of("cdr").deleted(id=gone)))
            del records[gone]
        elif step < 0.33 and records:
            changed, fields = rng.choice(list(records)), a_cdr(rng)
            del fields["live_id"]
            await append_event(
                api, NewEvent(stream=f"cdr-{changed}", event=events_of("cdr").updated(id=changed, changes=fields))
            )
            records[changed].update(fields)
        elif step < 0.34:
            assert (await api.call("DELETE", "/cdrs", caller)).status == 204
            records.clear()
        else:
            query = a_query(rng, values, ["calldate"], len(records))
            answered_by_rank += await check(api, caller, "/cdrs", records, query)
    assert answered_by_rank > 10
    assert api.app[RANKS].built(api.app[RANKS].orderings("cdr")[0], caller.customer_id)


@pytest.mark.parametrize("seed", range(3))
async def test_contact_lists_by_rank_follow_creates_patches_and_deletes(api: Api, seed: int):
    rng = random.Random(100 + seed)
    caller = await api.new_customer(f"ranked-contacts-{seed}")
    users = [caller.user_id]
    for n in range(2):
        users.append((await api.new_user(caller.customer_id, f"u{n}@ranked-contacts-{seed}.example.com"))["id"])
    records: dict[int, dict] = {}
    answered_by_rank = 0
    for _ in range(120):
        step = rng.random()
        if step < 0.3 or not records:
            body = {"first_name": "C", "user_id": rng.choice([*users, None])}
            made = (await api.ok("POST", "/contacts", caller, status=201, json=body))["data"]
            records[made["id"]] = made
        elif step < 0.45:
            changed, user_id = rng.choice(list(records)), rng.choice([*users, None])
            await api.ok("PATCH", f"/contacts/{changed}", caller, json={"user_id": user_id})
            records[changed]["user_id"] = user_id
        elif step < 0.5:
            gone = rng.choice(list(records))
            await api.ok("DELETE", f"/contacts/{gone}", caller, status=202)
            del records[gone]
        else:
            query = a_query(rng, {"user_id": users}, ["user_id"], len(records))
            answered_by_rank += await check(api, caller, "/contacts", records, query)
    assert answered_by_rank > 10


@pytest.mark.parametrize("props", [(), ("calldate",), ("type", "calldate"), ("user_id", "type", "calldate")])
async def test_a_walk_onward_from_a_documents_key_is_the_walk_its_boxes_make(props: tuple[str, ...]):
    """The SQL made once for walks onward from a document's key (a fence), and for `eq` lists, with its
    parameters worked out per key, equals what the key's boxes make, for keys of numbers and text of
    any kind."""
    rng = random.Random(len(props))
    made = ordering.Ordering("cdr", props)
    for _ in range(500):
        key: list[Any] = []
        for _prop in props:
            if rng.random() < 0.5:
                key += [ordering.NUMBER, rng.choice([0, 5, -3, 2.5, 10**12, True])]
            else:
                key += [ordering.TEXT, rng.choice(["", "a", "2026-03-01 12:30:00", "zz"])]
        key.append(rng.randint(-5, 10**9))
        selected = rng.choice(["body", "NULL", "id"])
        assert made.walk_sql(7, tuple(key), None, selected) == made._walk_sql(7, tuple(key), None, selected)
        lo, hi = (*key[:-1], ordering.LOWEST), (*key[:-1], ordering.HIGHEST)  # an `eq` list of the values
        assert made.walk_sql(7, lo, hi, selected) == made._walk_sql(7, lo, hi, selected)
        if props:  # a bound left open on the last property: not an `eq` list of every property
            lo, hi = (
                (*key[:-3], ordering.BELOW, None, ordering.LOWEST),
                (*key[:-3], ordering.ABOVE, None, ordering.HIGHEST),
            )
            assert made.walk_sql(7, lo, hi, selected) == made._walk_sql(7, lo, hi, selected)
