"""The tariff a live call shows: the one that will price it (its rate per minute and minimum charge),
from the moment its destination is known, the same its CDR is priced by."""

from __future__ import annotations

from tests.accounts.helpers import CONTROL, create_user, url
from tests.billing.test_billed_time import CONNECTS
from tests.billing.test_billing import FRANCE, HOME, LANDLINE, MOBILE
from tests.calls.helpers import advance, by_live_id, get, patch, place
from tests.calls.test_inbound import provision, ring


async def test_a_live_call_shows_the_rate_and_minimum_charge_its_cdr_is_priced_by(client, root):
    call = (await place(client, root, to=FRANCE))["data"]  # 0.01 a minute, at least 0.50
    assert (call["dst_rate"], call["min_charge"], call["src_rate"]) == (0.01, 0.5, 0.0)
    listed = (await get(client, root, "/calls"))["data"]
    assert [(c["id"], c["dst_rate"], c["min_charge"]) for c in listed] == [(call["id"], 0.01, 0.5)]
    response = await client.put(f"/_telephony/customers/{HOME}/tariffs", json=[
        {"prefix": "33", "name": "Dear France", "per_minute": 0.9}], headers=CONTROL)  # fmt: skip
    assert response.status == 200
    assert (await get(client, root, f"/calls/{call['id']}"))["data"]["dst_rate"] == 0.01  # the call keeps its own
    await advance(client, CONNECTS + 10)
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(call["id"])))["data"]
    assert (cdr["rate"], cdr["charge"]) == (0.01, 0.5)
    later = (await place(client, root, to=FRANCE))["data"]
    assert (later["dst_rate"], later["min_charge"]) == (0.9, 0.0)


async def test_a_transfer_shows_the_rate_of_its_new_destination_and_internal_calls_none(client, root):
    call = (await place(client, root, to=FRANCE))["data"]
    await advance(client, CONNECTS)
    child = (await patch(client, root, call["id"], dst=MOBILE))["data"]
    assert (child["dst_rate"], child["min_charge"]) == (0.06, 0.0)
    await create_user(client, HOME, "colleague@example.com", ext="301")
    internal = (await place(client, root, to="301"))["data"]
    assert (internal["dst_rate"], internal["min_charge"]) == (0.0, 0.0)


async def test_a_web_call_shows_the_rate_of_each_number(client, root):
    response = await client.post("/v1.2/voipstudio/webcalls", json={"from": LANDLINE, "to": MOBILE},
                                 headers=root.headers())  # fmt: skip
    webcall = (await response.json())["data"]
    live = (await get(client, root, f"/calls/{webcall['live_id']}"))["data"]
    assert (live["src_rate"], live["dst_rate"]) == (0.02, 0.06)


async def test_an_inbound_call_routed_on_to_an_outside_number_shows_that_numbers_rate(client, root):
    user_id = await create_user(client, HOME, "away@example.com", nb_sip_locations=0, nun="447000005678",
                                nun_ring_time=8, final_dst_type="H")  # fmt: skip
    await provision(client, target_type="U", target_id=user_id)
    call = (await ring(client))["data"]  # the user has no client: its network-unavailable number rings
    assert (call["dst"], call["dst_rate"], call["min_charge"]) == ("+447000005678", 0.06, 0.0)
    await advance(client, 5 + 30)  # it answers after 5 s; the caller hangs up 30 s later
    assert (await client.delete(url("v1.2", f"/calls/{call['id']}"), headers=root.headers())).status == 204
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(call["id"])))["data"]
    assert (cdr["rate"], cdr["billsec"], cdr["charge"]) == (0.06, 30, 0.04)  # 30 s at 0.06, 0.01 to connect
