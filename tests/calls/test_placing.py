"""Placing calls: click-to-call parties and caller ids, extensions, web calls, lead calls."""

from __future__ import annotations

from tests.accounts.helpers import CONTROL, create_user, error_of, login, url
from tests.calls.conftest import ANSWERS
from tests.calls.helpers import advance, by_live_id, call_events, get, place

HOME = 100001


async def test_numbers_with_or_without_plus_are_the_same_number(client, root):
    with_plus = (await place(client, root, to=ANSWERS + "1"))["data"]
    without = (await place(client, root, to=ANSWERS.lstrip("+") + "1"))["data"]
    assert with_plus["dst"] == without["dst"] == ANSWERS + "1"


async def test_caller_id_must_be_a_number_of_the_customer_or_anonymous(client, root):
    response = await client.post(url("v1.2", "/calls"), json={"to": ANSWERS + "1", "caller_id": "+441234567890"},
                                 headers=root.headers())  # fmt: skip
    assert (await error_of(response, 400))["errors"][0]["field"] == "caller_id"
    response = await client.post(f"/_telephony/customers/{HOME}/ddis", json={"e164": "441234567890"}, headers=CONTROL)
    assert response.status == 201, await response.text()
    owned = (await place(client, root, to=ANSWERS + "1", caller_id="441234567890"))["data"]
    assert owned["clid"].endswith("<+441234567890>") or owned["clid"] == "+441234567890"
    anonymous = (await place(client, root, to=ANSWERS + "1", caller_id="anonymous"))["data"]
    assert anonymous["clid"] == "anonymous"


async def test_from_names_the_originating_user_of_the_same_customer(client, root):
    agent_id = await create_user(client, HOME, "agent@example.com", ext="205", first_name="Ada", last_name="Agent")
    placed = (await place(client, root, to=ANSWERS + "1", **{"from": str(agent_id)}))["data"]
    assert (placed["src"], placed["src_id"], placed["src_name"]) == ("205", str(agent_id), "Ada Agent")
    (live,) = (await get(client, root, f"/users/{agent_id}/calls"))["data"]
    assert live["id"] == placed["id"]
    assert (await get(client, root, f"/users/{root.user_id}/calls"))["data"] == []
    response = await client.post(url("v1.2", "/calls"), json={"to": ANSWERS, "from": "999"}, headers=root.headers())
    assert (await error_of(response, 400))["errors"][0]["field"] == "from"


async def test_an_extension_reaches_a_user_of_the_same_customer(client, root):
    callee = await create_user(client, HOME, "callee@example.com", ext="301", first_name="Cal")
    placed = (await place(client, root, to="301"))["data"]
    assert (placed["dst_id"], placed["dst_name"], placed["context"]) == (str(callee), "Cal", "USER_LOCAL")
    nobody = (await place(client, root, to="399"))["data"]["id"]
    await advance(client, 2)
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(nobody)))["data"]
    assert (cdr["disposition"], cdr["t_cause"]) == ("FAILED", "unallocated number")


async def test_a_web_call_bridges_two_numbers_and_leaves_its_webcall_record(client, root):
    answer = await place(client, root, path="/webcalls", **{"from": "447700900001", "to": ANSWERS + "1"})
    webcall = answer["data"]
    assert webcall["from"] == "+447700900001" and webcall["to"] == ANSWERS + "1"
    call_id = webcall["live_id"]
    (live,) = (await get(client, root, "/calls"))["data"]
    assert live["id"] == call_id and live["src"] == "+447700900001"
    await advance(client, 70)
    (record,) = (await get(client, root, "/webcalls"))["data"]
    assert (record["from_duration"], record["to_duration"]) == (65, 60)
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(call_id)))["data"]
    assert cdr["destination"] == "webcall"


async def test_web_calls_are_limited_per_minute(client, root, settings):
    body = {"from": "447700900001", "to": ANSWERS + "1"}
    for _ in range(settings.simulator.webcalls_per_minute):
        await place(client, root, path="/webcalls", **body)
    response = await client.post(url("v1.2", "/webcalls"), json=body, headers=root.headers())
    assert (await error_of(response, 400))["message"] == "Maximum per minute call rate exceeded"
    await advance(client, 60)
    await place(client, root, path="/webcalls", **body)


async def test_a_lead_call_rings_the_destination_first_then_the_user(client, root):
    placed = (await place(client, root, path="/leadcalls", to=ANSWERS + "1", tts="Hello from Acme"))["data"]
    assert placed["state"] == "RINGING"
    events = await call_events(client, placed["id"])
    assert [(t, d.get("leg")) for t, d in events][-1] == ("call.ringing", "dst")
    assert events[0][1]["tts"] == "Hello from Acme"
    await advance(client, 5)  # the destination answers; the user's client rings
    await advance(client, 1)
    assert (await get(client, root, f"/calls/{placed['id']}"))["data"]["state"] == "CONNECTED"
    legs = [d["leg"] for t, d in await call_events(client, placed["id"]) if t == "call.answered"]
    assert legs == ["dst", "src"]


async def test_bad_bodies_are_400_naming_the_field(client, root):
    for path, body, field in (("/calls", {}, "to"), ("/calls", {"to": "1"}, "to"), ("/webcalls", {"to": "+44"}, None),
                              ("/leadcalls", {"to": "x"}, "to")):  # fmt: skip
        response = await client.post(url("v1.2", path), json=body, headers=root.headers())
        problem = (await error_of(response, 400))["errors"][0]
        assert field is None or problem["field"] == field
    login_again = await login(client, "v1.1", "admin@example.com", "change-me-now")
    assert (await get(client, login_again, "/calls"))["total"] == 0


async def test_an_outbound_routing_rule_blocks_numbers_before_anyone_rings(client, root):
    response = await client.post(url("v1.2", "/routingrules"), json={"action": "block", "direction": 2,
                                 "destination": [ANSWERS.lstrip("+") + "9"]}, headers=root.headers())  # fmt: skip
    assert response.status == 201, await response.text()
    blocked = (await place(client, root, to=ANSWERS + "9"))["data"]
    assert blocked["state"] == "HANGUP"
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(blocked["id"])))["data"]
    assert (cdr["t_cause"], cdr["disposition"], cdr["billsec"]) == ("call rejected", "BUSY", 0)
    assert (await place(client, root, to=ANSWERS + "8"))["data"]["state"] == "RINGING"


async def test_emergency_numbers_are_refused_before_anything_rings_even_where_an_extension_has_them(
    client, root, settings
):
    await create_user(client, HOME, "ext112@example.com", ext="112", first_name="Not the police")
    connected = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    await advance(client, 6)
    position = (await (await client.get("/_telephony/health")).json())["position"]
    for method, path, body, field in (
        ("post", "/calls", {"to": "112"}, "to"),
        ("post", "/leadcalls", {"to": "999"}, "to"),
        ("post", "/webcalls", {"from": "447700900001", "to": "000"}, "to"),
        ("patch", f"/calls/{connected}", {"dst": "119"}, "dst"),
    ):
        response = await getattr(client, method)(url("v1.2", path), json=body, headers=root.headers())
        error = await error_of(response, 400)
        assert error["errors"] == [{"field": field, "message": "Emergency numbers cannot be called through the API"}]
    assert (await (await client.get("/_telephony/health")).json())["position"] == position  # nothing recorded
    assert [c["id"] for c in (await get(client, root, "/calls"))["data"]] == [connected]
    for _ in range(settings.simulator.webcalls_per_minute):  # the refused web call took no place in the limit
        await place(client, root, path="/webcalls", **{"from": "447700900001", "to": ANSWERS + "2"})
