"""Pages read by rank are kept across changes after them, and never served once a change reaches them.

The list page cache forgets a collection's pages at each of its changes; pages read by rank are kept
while every key changed since lies after their last one (`documents.kept`). A collection that keeps
growing at its end, as CDRs do at each hangup, with some records changed or removed anywhere, is
listed again and again in a few orders; every answer must equal the Python reference and the plain
SQL path, and most pages must come from what was kept: as it was, or for a list read newest first,
a few ranks on with only the rows it gained read.
"""

from __future__ import annotations

import gc
import json
import random
import weakref
from typing import Any

import pytest

from telephony.documents import blocks
from telephony.documents.kept import OVERHEAD, KeptPages, Page, followed, joined_bodies
from telephony.documents.ordering import HIGHEST, LOWEST
from telephony.domain.events import events_of
from telephony.eventlog import NewEvent
from telephony.keys import RANKS
from tests.registry.conftest import LOOP, Api, append_event, seed_many
from tests.registry.test_ranked_lists import CDRS, DAYS, a_cdr, check, tiny_blocks  # noqa: F401 - a fixture


@pytest.mark.parametrize("seed", range(3))
def test_moves_tell_whether_every_key_changed_since_a_number_lies_after_a_bound(monkeypatch, seed: int):
    monkeypatch.setattr(blocks, "MOVES", 4)  # the oldest changes are forgotten after a few
    rng = random.Random(seed)
    moves, changed = blocks.Moves(), []
    for _ in range(400):
        key = (rng.randint(0, 50),) if rng.random() < 0.4 else (len(changed) + 100,)  # mostly appends
        moves.note(key)
        changed.append(key)
        for number in range(max(0, len(changed) - 12), len(changed) + 1):
            for bound in (None, (rng.randint(0, 60),), (LOWEST,), (HIGHEST,), key):
                since = changed[number:]
                truth = not since if bound is None else all(k > bound for k in since)
                told = moves.all_after(number, bound)
                assert told == truth or (not told and number < len(changed) - blocks.MOVES), (number, bound)
    assert moves.number == len(changed)


def params(query: dict[str, Any], page: int) -> dict[str, Any]:
    """The request of a page of 4 of the query (rows and total are checked by `check`)."""
    conditions = [{"property": p, "operator": o, "value": v} for p, o, v in query["conditions"]]
    return {"page": page, "limit": 4, "filter": json.dumps(conditions), "sort": query["sort"] or "id",
            "dir": "DESC" if query["descending"] else "ASC"}  # fmt: skip


def test_a_kept_page_keeps_neither_its_blocks_alive_nor_more_than_its_budget():
    kept, read_in = KeptPages(max_bytes=10 * (100 + OVERHEAD)), blocks.Blocks([blocks.START], [30])
    read_in.add((7,))
    assert read_in.moves is None  # blocks no page was kept by note nothing
    for n in range(11):
        kept.put(("cdr", "id", 1, None, n, 1, False), Page(read_in, (n,), n, b"x" * 100, None), n)
    assert kept.get(("cdr", "id", 1, None, 0, 1, False), read_in, 0) is None  # the least recently used went
    assert kept.get(("cdr", "id", 1, None, 10, 1, False), read_in, 10).joined == b"x" * 100
    gone = weakref.ref(read_in)
    del read_in
    gc.collect()
    assert gone() is None  # the ranks dropped them (a cleared collection): the pages do not hold them
    assert kept.get(("cdr", "id", 1, None, 10, 1, False), blocks.Blocks([blocks.START], [30]), 10) is None


@pytest.mark.parametrize("seed", range(20))
def test_a_page_read_newest_first_shifted_is_the_page_read_afresh(seed: int):
    rng = random.Random(seed)
    text = ["a", "é", ",", "}", "{", "☎", '\\"']  # bodies of any size in bytes, with what JSON holds
    notes = ["".join(rng.choices(text, k=rng.randint(0, 9))) for _ in range(30)]
    bodies = [json.dumps({"id": n, "note": note}, ensure_ascii=False).encode() for n, note in enumerate(notes)]
    count = rng.randint(2, 8)
    shift, start = rng.randint(1, count - 1), rng.randint(0, 10)
    newest_first = list(reversed(bodies))
    page = Page(blocks.Blocks([blocks.START], [30]), None, start, *joined_bodies(newest_first[shift : shift + count]))
    shifted = followed(joined_bodies(newest_first[:shift]), page.but_oldest(shift))
    assert shifted == joined_bodies(newest_first[:count])  # the bodies and where each ends
    assert json.loads(b"[" + shifted[0] + b"]") == [json.loads(body) for body in newest_first[:count]]


@LOOP
@pytest.mark.parametrize("seed", range(4))
async def test_kept_pages_follow_appends_changes_and_removals(api: Api, seed: int):
    rng = random.Random(1000 + seed)
    caller = await api.new_customer(f"kept-pages-{seed}")

    def named() -> dict[str, Any]:  # names of any size in bytes: a page is cut between its bodies' bytes
        return {**a_cdr(rng), "src_name": rng.choice(["Zoë Ärger", "☎ Front desk", "plain", ""])}

    records = {d["id"]: d for d in await seed_many(api, CDRS, caller.customer_id, [named() for _ in range(40)])}
    later = iter(f"2026-04-{day:02d} 10:00:00" for day in range(1, 29))
    queries = [
        {"conditions": [], "sort": None, "descending": False},
        {"conditions": [], "sort": None, "descending": True},
        {"conditions": [("calldate", "gte", DAYS[0])], "sort": "calldate", "descending": False},
        {"conditions": [("calldate", "gte", DAYS[0])], "sort": "calldate", "descending": True},
        {"conditions": [("type", "eq", "incoming"), ("calldate", "lt", "2026-05-01")], "sort": "calldate",
         "descending": False},
    ]  # fmt: skip
    kept = api.app[RANKS].kept
    hits_before, shifts_before = kept.hits, kept.shifts
    for _ in range(60):
        step = rng.random()
        if step < 0.6:  # appended after every other, in id and in calldate order
            added = await seed_many(api, CDRS, caller.customer_id, [{**named(), "calldate": next(later, None)}])
            records.update((d["id"], d) for d in added)
        elif step < 0.7:
            added = await seed_many(api, CDRS, caller.customer_id, [named()])
            records.update((d["id"], d) for d in added)
        elif step < 0.85 and records:  # moved in some orderings, or only changed where it is
            changed, fields = rng.choice(list(records)), a_cdr(rng)
            del fields["live_id"]
            if rng.random() < 0.5:
                fields = {"disposition": rng.choice(["ANSWERED", "NO ANSWER", "BUSY"])}
            await append_event(
                api, NewEvent(stream=f"cdr-{changed}", event=events_of("cdr").updated(id=changed, changes=fields))
            )
            records[changed].update(fields)
        elif step < 0.98 and records:
            gone = rng.choice(list(records))
            await append_event(api, NewEvent(stream=f"cdr-{gone}", event=events_of("cdr").deleted(id=gone)))
            del records[gone]
        elif step >= 0.98:  # the collection cleared: built ranks and what was kept by them go
            assert (await api.call("DELETE", "/cdrs", caller)).status == 204
            records.clear()
        for query in queries:
            for page in (1, 2, 3):
                listed = await api.ok("GET", "/cdrs", caller, params=params(query, page))
                assert listed["data"] == [records[r["id"]] for r in listed["data"]]  # bodies as changed
                assert await check(api, caller, "/cdrs", records, {**query, "page": page, "limit": 4})
    assert kept.hits - hits_before > 50, kept.hits - hits_before
    assert kept.shifts - shifts_before > 20, kept.shifts - shifts_before  # lists read newest first, after appends
