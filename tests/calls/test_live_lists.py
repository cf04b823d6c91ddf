"""Live call lists page, filter and sort as every list of the API does."""

from __future__ import annotations

import json

from tests.accounts.helpers import error_of, url
from tests.calls.conftest import ANSWERS, NO_ANSWER
from tests.calls.helpers import advance, get, place


def where(*conditions) -> str:
    return json.dumps([{"property": p, "operator": o, "value": v} for p, o, v in conditions])


async def test_live_calls_page_filter_and_sort(client, root):
    ids = [(await place(client, root, to=(ANSWERS if n % 2 else NO_ANSWER) + str(n)))["data"]["id"] for n in range(6)]
    await advance(client, 6)  # the calls to ANSWERS connected, the others still ring
    listed = await get(client, root, "/calls?limit=4&page=2")
    assert listed["total"] == 6 and [c["id"] for c in listed["data"]] == ids[4:]
    newest = await get(client, root, "/calls?sort=id&dir=DESC&limit=2")
    assert [c["id"] for c in newest["data"]] == ids[::-1][:2]
    assert [c["id"] for c in (await get(client, root, "/calls?sort=-id&limit=1"))["data"]] == [ids[-1]]
    connected = await get(client, root, "/calls?filter=" + where(("state", "eq", "CONNECTED")))
    assert connected["total"] == 3 and {c["id"] for c in connected["data"]} == set(ids[1::2])
    like = await get(client, root, "/calls?filter=" + where(("dst", "like", NO_ANSWER[-4:]), ("id", ">", ids[0])))
    assert [c["id"] for c in like["data"]] == [ids[2], ids[4]]
    among = await get(client, root, "/calls?filter=" + where(("id", "in", [ids[0], ids[5], 999])))
    assert among["total"] == 2
    by_state = await get(client, root, "/calls?sort=state&dir=ASC")
    assert [c["state"] for c in by_state["data"]] == ["CONNECTED"] * 3 + ["RINGING"] * 3
    response = await client.get(url("v1.2", "/calls?filter=" + where(("nope", "eq", 1))), headers=root.headers())
    assert (await error_of(response, 400))["errors"][0]["field"] == "filter"
    response = await client.get(url("v1.2", "/calls?sort=nope"), headers=root.headers())
    await error_of(response, 400)
