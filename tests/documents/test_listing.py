"""Lists answer exactly what a Python reference says, as their collection changes.

Generated collections (seeded randomness) of CDRs and contacts, changed between requests (records
added, patched and deleted between the pages of a walk), are listed with generated filters, sorts
and pages, over the properties kept as columns and others; every answer (rows in order, and `total`)
must equal the reference computed in Python from the records the test made, whether the page and
its total come from the page cache, the kept totals or SQL, and the same request read straight
through `documents.listing`. Lists on the columns are read from their indexes.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from telephony.collections import parse
from telephony.documents import listing
from telephony.documents.conditions import equals
from telephony.documents.names import documents_of
from telephony.documents.sqlite.sql import SQL
from telephony.domain.events import events_of
from telephony.eventlog import NewEvent
from telephony.keys import READER
from telephony.registry.catalogue import BY_PATH
from tests.registry.conftest import LOOP, Api, Caller, append_event, seed_many

pytestmark = LOOP
CDRS, CONTACTS = BY_PATH["cdrs"], BY_PATH["contacts"]
TYPES = ["incoming", "outgoing", "internal", None]
DAYS = ["2026-03-01", "2026-03-02", "2026-03-03"]
TIMES = ["08:00:00", "12:30:00", "12:30:00", "23:59:59"]


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
    """Conditions, sort, direction and page: mostly equalities, then a range on the sorted property (as
    an index of the kind orders them), some other sorts."""
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


async def check(api: Api, caller: Caller, path: str, records: dict[int, dict], query: dict[str, Any]) -> None:
    """The list answers as the reference does, through the API and straight from `documents.listing`."""
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
    found = await listing.page(api.app[READER], resource.kind, equals(customer_id=caller.customer_id), q)
    assert ([document["id"] for document in found.documents()], found.total) == want


@pytest.mark.parametrize("seed", range(6))
async def test_cdr_lists_equal_the_reference_while_records_come_and_go(api: Api, seed: int):
    rng = random.Random(seed)
    caller = await api.new_customer(f"listed-cdrs-{seed}")
    records = {d["id"]: d for d in await seed_many(api, CDRS, caller.customer_id, [a_cdr(rng) for _ in range(60)])}
    values = {"type": TYPES, "user_id": [1, 2, 3], "live_id": [10, 11, 12, 13],
              "calldate": [f"{d} {t}" for d in DAYS for t in TIMES] + DAYS}  # fmt: skip
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
            await check(api, caller, "/cdrs", records, query)


@pytest.mark.parametrize("seed", range(3))
async def test_contact_lists_follow_creates_patches_and_deletes(api: Api, seed: int):
    rng = random.Random(100 + seed)
    caller = await api.new_customer(f"listed-contacts-{seed}")
    users = [caller.user_id]
    for n in range(2):
        users.append((await api.new_user(caller.customer_id, f"u{n}@listed-contacts-{seed}.example.com"))["id"])
    records: dict[int, dict] = {}
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
            await check(api, caller, "/contacts", records, query)


@pytest.mark.parametrize("seed", range(2))
async def test_a_walk_of_pages_in_order_sees_every_record_once_while_records_are_appended(api: Api, seed: int):
    """As clients walk a list, page 1, 2, ... by id: records appended meanwhile come after the walk's
    place, so every record there was at the start is seen once, and each page equals the reference."""
    rng = random.Random(300 + seed)
    caller = await api.new_customer(f"walked-{seed}")
    records = {d["id"]: d for d in await seed_many(api, CDRS, caller.customer_id, [a_cdr(rng) for _ in range(50)])}
    at_start, seen = set(records), []
    for page in range(1, 30):
        query = {"conditions": [], "sort": None, "descending": False, "page": page, "limit": 4}
        await check(api, caller, "/cdrs", records, query)
        listed = await api.ok("GET", "/cdrs", caller, params={"page": page, "limit": 4})
        seen += [row["id"] for row in listed["data"]]
        added = await seed_many(api, CDRS, caller.customer_id, [a_cdr(rng) for _ in range(rng.randint(0, 2))])
        records.update((d["id"], d) for d in added)
    assert len(seen) == len(set(seen)) and at_start <= set(seen)


@pytest.mark.parametrize(("sort", "descending"), [(None, False), (None, True), ("calldate", False),
                                                  ("calldate", True), ("type", False)])  # fmt: skip
async def test_pages_read_again_start_where_the_page_before_ended(api: Api, sort: str | None, descending: bool):
    """A walk read twice, the second time each page starting after the last row of the page before it
    (as kept by the first: ties and unset values of the sorted property included), equals the
    reference; so do the pages of a walk started afresh after a change. `dir` is spelled another way
    each time, so no rendered page is served from the page cache."""
    rng = random.Random(7)
    caller = await api.new_customer(f"continued-{sort}-{descending}")
    records = {d["id"]: d for d in await seed_many(api, CDRS, caller.customer_id, [a_cdr(rng) for _ in range(23)])}
    conditions = [("live_id", "gte", 11)]
    flt = json.dumps([{"property": p, "operator": o, "value": v} for p, o, v in conditions])
    for walk, spelled in enumerate(("DESC", "desc", "Desc") if descending else ("ASC", "asc", "Asc")):
        for page in range(1, 10):
            params = {"page": page, "limit": 3, "filter": flt, "dir": spelled, **({"sort": sort} if sort else {})}
            body = await api.ok("GET", "/cdrs", caller, params=params)
            want = expected(records, conditions, sort, descending, page, 3)
            assert ([row["id"] for row in body["data"]], body["total"]) == want, (walk, params)
        if walk == 1:
            added = await seed_many(api, CDRS, caller.customer_id, [a_cdr(rng) for _ in range(4)])
            records.update((d["id"], d) for d in added)


LISTS = [
    {},
    {"dir": "DESC"},
    {"filter": [("live_id", "eq", 11)]},
    {"filter": [("user_id", "eq", 2)]},
    {"filter": [("calldate", "gte", DAYS[1]), ("calldate", "lt", DAYS[2])], "sort": "calldate"},
    {"filter": [("type", "eq", "incoming"), ("calldate", "gte", DAYS[1])], "sort": "calldate", "dir": "DESC"},
]


@pytest.mark.sqlite_only  # SQLite's query plans (PostgreSQL plans a table this small as a scan)
@pytest.mark.parametrize("request_", LISTS, ids=lambda r: json.dumps(r))
async def test_lists_on_the_columns_are_read_from_an_index(api: Api, home: Caller, request_: dict[str, Any]):
    """A list filtered and sorted on properties kept as columns chooses its page from an index of the
    kind (covering: no body is read but the page's) and counts its total from it: no scan of the table,
    and no sort but of the page's own rows."""
    await seed_many(api, CDRS, home.customer_id, [a_cdr(random.Random(n)) for n in range(30)])
    params = {k: v for k, v in request_.items() if k != "filter"}
    if "filter" in request_:
        params["filter"] = json.dumps([{"property": p, "operator": o, "value": v} for p, o, v in request_["filter"]])
    q = parse({**params, "limit": "2"}, CDRS.props, default_limit=50, max_limit=5000)
    reader = api.app[READER]
    listed = listing.Listed(documents_of(CDRS.kind), equals(customer_id=home.customer_id), q, home.customer_id)
    for sql, bound in [SQL.page(listed)]:
        plan = [row[3] for row in await reader.execute_fetchall(f"EXPLAIN QUERY PLAN {sql}", bound)]
        assert not [step for step in plan if step.startswith("SCAN doc_")], plan
        assert [step for step in plan if step.startswith("SEARCH doc_cdr USING COVERING INDEX")], plan
        assert len([step for step in plan if "TEMP B-TREE" in step]) <= 1, plan  # the page's own rows at most
