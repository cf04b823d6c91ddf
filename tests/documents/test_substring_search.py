"""`like` read from the substring index answers exactly what the scan answers, as records change.

Seeded collections of CDRs whose `src` and `dst` mix digits, letters of both cases, quotes, spaces
and characters of other alphabets (some of which fold to ASCII letters in Unicode), changed between
requests (created, amended, deleted, cleared, with another customer's records beside them), are
listed with generated `like` filters, sorts and pages; each answer (ids in order and `total`) must
equal the same request read by a scan (the SQL path without the index). The index a rebuild makes
must hold exactly what the live one holds.
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from telephony.collections import parse
from telephony.documents import DocumentTable, listing
from telephony.documents.conditions import equals
from telephony.documents.listing import SQL, Listed
from telephony.documents.names import documents_of
from telephony.documents.sqlite.sql import SQL as SQLITE
from telephony.domain.events import events_of
from telephony.eventlog import NewEvent
from telephony.eventlog.connection import SqliteConnection
from telephony.keys import READER, SETTINGS
from telephony.projections import Projections
from telephony.registry.catalogue import BY_PATH
from tests.registry.conftest import LOOP, Api, append_event, seed_many

pytestmark = LOOP
CDRS = BY_PATH["cdrs"]
PIECES = ["44", "20", "7", "0", "ab", "AB", "Ab", "é", "É", "\u212a", "k", "K", "\u017f", "s", '"', " ", "x"]
"""What values are made of: the Kelvin sign folds to `k` and the long s to `s` in Unicode, not in LIKE."""


def a_number(rng: random.Random) -> str | None:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 7))) if rng.random() < 0.9 else None


def a_cdr(rng: random.Random) -> dict[str, Any]:
    return {"src": a_number(rng), "dst": a_number(rng), "type": rng.choice(["incoming", "outgoing"])}


def a_pattern(rng: random.Random, records: dict[int, dict]) -> str:
    """Mostly a piece of a value there is (in any case), sometimes one with wildcards or of no record."""
    values = [v for r in records.values() for v in (r["src"], r["dst"]) if v]
    if not values or rng.random() < 0.15:
        return a_number(rng) or "abc"
    value = rng.choice(values)
    start = rng.randrange(len(value))
    piece = value[start : start + rng.choice([2, 3, 4, 6])]
    piece = "".join(c.swapcase() if rng.random() < 0.3 else c for c in piece)
    if rng.random() < 0.1:
        piece = piece[:1] + rng.choice(["%", "_"]) + piece[1:]
    return piece


def request(rng: random.Random, records: dict[int, dict]) -> dict[str, Any]:
    conditions = [{"property": rng.choice(["src", "dst"]), "operator": "like", "value": a_pattern(rng, records)}]
    if rng.random() < 0.2:
        conditions.append({"property": "type", "operator": "eq", "value": "incoming"})
    params: dict[str, Any] = {"filter": json.dumps(conditions), "limit": rng.choice([1, 3, 50])}
    params["page"] = rng.choice([1, 1, 2, 5])
    if rng.random() < 0.3:
        params["sort"] = rng.choice(["dst", "-calldate", "-id"])
    return params


async def scanned(api: Api, customer_id: int, params: dict[str, Any]) -> tuple[list[int], int]:
    """The page and total by the SQL path without the index (LIKE over every row of the customer), and
    the same from every matching id in order, cut in Python: the list engine's page and total equal it."""
    q = parse({k: str(v) for k, v in params.items()}, CDRS.props, default_limit=50, max_limit=5000)
    found = await listing.page(api.app[READER], "cdr", equals(customer_id=customer_id), q)  # none searched
    direction, table, reader = "DESC" if q.descending else "ASC", documents_of("cdr"), api.app[READER]
    sql = SQL[reader.dialect]
    order = (
        f"{sql.expression(q.sort, table)} {direction} NULLS {'LAST' if q.descending else 'FIRST'}, "
        if q.sort not in (None, "id")
        else ""
    )
    where, bound = sql.where(q.where, table)
    statement = f"SELECT id FROM doc_cdr WHERE customer_id = ? AND {where} ORDER BY {order}id {direction}"
    every = [row[0] for row in await reader.execute_fetchall(statement, (customer_id, *bound))]
    paged = ([document["id"] for document in found.documents()], found.total)
    assert paged == (every[q.offset : q.offset + q.limit], len(every))
    return paged


@pytest.mark.parametrize(("seed", "beside"), [(0, True), (1, True), (2, False), (3, False)])
async def test_like_from_the_index_equals_the_scan_while_records_change(api: Api, seed: int, beside: bool):
    """With another customer's records beside the caller's, and without (the caller then owns every
    CDR, and a total is counted from the index alone), until the other one clears its own."""
    rng = random.Random(seed)
    caller = await api.new_customer(f"search-{seed}")
    neighbour = await api.new_customer(f"search-beside-{seed}")
    if beside:
        await seed_many(api, CDRS, neighbour.customer_id, [a_cdr(rng) for _ in range(30)])
    records = {d["id"]: d for d in await seed_many(api, CDRS, caller.customer_id, [a_cdr(rng) for _ in range(60)])}
    from_index = 0
    for _ in range(100):
        step = rng.random()
        if step < 0.15:
            added = await seed_many(api, CDRS, caller.customer_id, [a_cdr(rng) for _ in range(rng.randint(1, 8))])
            records.update((d["id"], d) for d in added)
        elif step < 0.22 and records:
            gone = rng.choice(list(records))
            await append_event(api, NewEvent(stream=f"cdr-{gone}", event=events_of("cdr").deleted(id=gone)))
            del records[gone]
        elif step < 0.32 and records:
            amended = rng.choice(list(records))
            changes: dict[str, Any] = {prop: a_number(rng) for prop in rng.sample(["src", "dst"], rng.randint(1, 2))}
            if rng.random() < 0.3:
                changes["type"] = "outgoing"
            data = {"id": amended, "changes": changes}
            await append_event(api, NewEvent(stream=f"cdr-{amended}", event=events_of("cdr").updated(**data)))
            records[amended].update(changes)
        elif step < 0.34:
            assert (await api.call("DELETE", "/cdrs", caller)).status == 204
            records.clear()
        elif step < 0.35 and beside:
            assert (await api.call("DELETE", "/cdrs", neighbour)).status == 204
            beside = False
        else:
            params = request(rng, records)
            body = await api.ok("GET", "/cdrs", caller, params=params)
            want = await scanned(api, caller.customer_id, params)
            assert ([r["id"] for r in body["data"]], body["total"]) == want, params
            assert all(r["id"] in records for r in body["data"])
            q = parse({k: str(v) for k, v in params.items()}, CDRS.props, default_limit=50, max_limit=5000)
            listed = Listed(documents_of("cdr"), equals(customer_id=caller.customer_id), q, searched=CDRS.searched)
            from_index += SQLITE.searched(listed)[0] is not None
    assert from_index > 12
    if not api.app[SETTINGS].eventlog.url:  # SQLite's full-text tables (PostgreSQL keeps a trigram index)
        assert await rebuilt_index_holds_what_the_live_one_holds(api, rng)


async def rebuilt_index_holds_what_the_live_one_holds(api: Api, rng: random.Random) -> bool:
    """Rebuild the CDR table in a copy of the data and compare both indexes on every trigram there is."""
    source = sqlite3.connect(Path(api.app[SETTINGS].storage.data_dir) / "events.db")
    copy = sqlite3.connect(":memory:", isolation_level=None, factory=SqliteConnection)
    source.backup(copy)
    source.close()
    table = DocumentTable("cdr", indexed=CDRS.indexed, searched=CDRS.searched)
    Projections([table]).rebuild(copy, [table], progress=False)
    live = sqlite3.connect(Path(api.app[SETTINGS].storage.data_dir) / "events.db")
    try:
        grams = {
            v[i : i + 3]
            for (v,) in copy.execute(
                "SELECT json_extract(body, '$.src') FROM doc_cdr UNION SELECT json_extract(body, '$.dst') FROM doc_cdr"
            )  # fmt: skip
            if v and v.isascii()
            for i in range(len(v) - 2)
        }
        assert len(grams) > 20
        for gram in grams:
            phrase = '"' + gram.replace('"', '""') + '"'
            for prop in ("src", "dst"):
                sql = f"SELECT rowid FROM doc_cdr_{prop}_search WHERE doc_cdr_{prop}_search MATCH ? ORDER BY rowid"
                expect = live.execute(sql, (phrase,)).fetchall()
                assert copy.execute(sql, (phrase,)).fetchall() == expect, gram
    finally:
        live.close()
        copy.close()
    return True
