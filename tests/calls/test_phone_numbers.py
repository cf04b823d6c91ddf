"""Phone numbers as people write them (`+44 7700 900123`, `+1 (415) 555-0123`): every endpoint that
takes a number takes them, and stores, matches and dials the same number; garbage is still a 400
naming the field."""

from __future__ import annotations

import pytest

from tests.accounts.helpers import CONTROL, error_of, url
from tests.calls.conftest import ANSWERS
from tests.calls.helpers import advance, by_live_id, get, patch, place
from tests.calls.test_inbound import HOME, create

WRITTEN = "+44 (0)7000 100-1"
"""`ANSWERS + "1"` as a person writes it (the trunk prefix `(0)` after the country code is not dialled)."""
NUMBER, NUMBER_WRITTEN = "+442071230000", "+44 20 7123 0000"
CALLER, CALLER_WRITTEN = "+447700900555", "+44 7700 900555"


async def provision(client, e164: str, **fields) -> dict:
    response = await client.post(f"/_telephony/customers/{HOME}/ddis", json={"e164": e164, **fields}, headers=CONTROL)
    answer = await response.json()
    assert response.status == 201, answer
    return answer["data"]


async def test_calls_take_numbers_with_separators_wherever_they_take_a_number(client, root):
    await provision(client, NUMBER_WRITTEN)
    placed = (await place(client, root, to=WRITTEN, caller_id=NUMBER_WRITTEN))["data"]
    assert (placed["dst"], placed["clid"]) == (ANSWERS + "1", NUMBER)
    webcall = await place(client, root, path="/webcalls", **{"from": CALLER_WRITTEN, "to": "+44.7000.100.2"})
    assert (webcall["data"]["from"], webcall["data"]["to"]) == (CALLER, ANSWERS + "2")
    lead = (await place(client, root, path="/leadcalls", to="+44 7000 100 3"))["data"]
    assert lead["dst"] == ANSWERS + "3"
    await advance(client, 6)
    moved = (await patch(client, root, placed["id"], dst="+44 7000-1004"))["data"]
    assert moved["dst"] == ANSWERS + "4"
    await advance(client, 70)
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(placed["id"])))["data"]
    assert cdr["dst"] == ANSWERS + "1"


async def test_numbers_are_provisioned_listed_and_matched_without_their_separators(client, root):
    assert (await provision(client, NUMBER_WRITTEN, sms_enabled=True))["id"] == NUMBER
    await get(client, root, f"/ddis/{NUMBER}")
    contact = await create(client, root, "contacts", first_name="Carl", tel=CALLER_WRITTEN, mobile="+44 7700 900556")
    assert (await get(client, root, f"/contacts/{contact}"))["data"]["tel"] == CALLER
    queue = await create(client, root, "queues", name="Sales", ddis=[NUMBER_WRITTEN])
    assert (await get(client, root, f"/queues/{queue}"))["data"]["ddis"] == [NUMBER]
    response = await client.post("/_telephony/simulate/inbound-call", json={"from": CALLER_WRITTEN,
                                 "to": NUMBER_WRITTEN, "hangup_after": 5}, headers=CONTROL)  # fmt: skip
    call = (await response.json())["data"]
    assert response.status == 201 and (call["src"], call["src_id"]) == (CALLER, f"contact:{contact}")
    response = await client.post(url("v1.2", "/sms"), json={"to": "+44 7700-900.123", "message": "Hi",
                                 "from": NUMBER_WRITTEN}, headers=root.headers())  # fmt: skip
    sms = (await response.json())["data"]
    assert response.status == 201 and (sms["to"], sms["from"]) == ("+447700900123", NUMBER)
    response = await client.post("/_telephony/simulate/inbound-sms", json={"from": CALLER_WRITTEN,
                                 "to": NUMBER_WRITTEN, "text": "Hello"}, headers=CONTROL)  # fmt: skip
    assert response.status == 201 and (await response.json())["data"]["from_id"] == f"contact:{contact}"


@pytest.mark.parametrize("garbage", ["+44 7700 9001ab", "+44 -- 7700 900123", "12-34", "+44 7700", "call me"])
@pytest.mark.parametrize(
    ("path", "field", "others"),
    [
        ("/calls", "to", {}),
        ("/leadcalls", "to", {}),
        ("/webcalls", "from", {"to": ANSWERS + "1"}),
        ("/sms", "to", {"message": "Hi"}),
        ("/contacts", "tel", {}),
    ],
)
async def test_garbage_is_still_refused_naming_the_field(client, root, path, field, others, garbage):
    body = {**others, field: garbage}
    response = await client.post(url("v1.2", path), json=body, headers=root.headers())
    problem = (await error_of(response, 400))["errors"]
    assert [p["field"] for p in problem] == [field] and "E.164" in problem[0]["message"]
