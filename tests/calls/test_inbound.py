"""Inbound calls to a customer's numbers, routed by the number's target: users, voicemail, hang-up."""

from __future__ import annotations

from tests.accounts.helpers import CONTROL, create_user, error_of, login
from tests.calls.helpers import advance, by_live_id, call_events, get
from tests.media.decoders import decode_mp3

HOME = 100001
NUMBER = "+442071230000"
CALLER = "+447700900555"


async def provision(client, **target) -> None:
    response = await client.post(f"/_telephony/customers/{HOME}/ddis", json={"e164": NUMBER, **target},
                                 headers=CONTROL)  # fmt: skip
    assert response.status == 201, await response.text()


async def ring(client, status: int = 201, **body) -> dict:
    response = await client.post("/_telephony/simulate/inbound-call", json={"from": CALLER, "to": NUMBER, **body},
                                 headers=CONTROL)  # fmt: skip
    answer = await response.json()
    assert response.status == status, answer
    return answer


async def test_a_number_that_rings_a_user_who_answers(client, root):
    user_id = await create_user(client, HOME, "desk@example.com", ext="220", first_name="Dee")
    await provision(client, target_type="U", target_id=user_id)
    call = (await ring(client, answer={str(user_id): 4}, hangup_after=64))["data"]
    assert (call["state"], call["dst_id"], call["destination"]) == ("RINGING", str(user_id), 1)
    await advance(client, 4)
    assert (await get(client, root, f"/calls/{call['id']}"))["data"]["state"] == "CONNECTED"
    await advance(client, 60)
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(call["id"])))["data"]
    assert (cdr["type"], cdr["destination"], cdr["src"], cdr["dst_id"], cdr["user_id"]) == (
        "I", "in", CALLER, str(user_id), user_id)  # fmt: skip
    assert (cdr["disposition"], cdr["t_cause"]) == ("CONNECTED", "normal clearing")
    assert 0 < cdr["billsec"] == cdr["duration"] - 4  # rang 4 s, then talked as the simulator drew


async def test_an_unanswered_user_sends_the_caller_to_voicemail(client, root):
    user_id = await create_user(client, HOME, "vm@example.com", ext="221", ring_time="15")
    await provision(client, target_type="U", target_id=user_id)
    call_id = (await ring(client, answer={str(user_id): "never"}, hangup_after=40))["data"]["id"]
    await advance(client, 15)  # the user's ring time: on to its final destination, voicemail
    live = (await get(client, root, f"/calls/{call_id}"))["data"]
    assert (live["state"], live["context"], live["dst_id"]) == ("CONNECTED", "VOICEMAIL", f"voicemail:{user_id}")
    await advance(client, 25)  # the caller speaks for the drawn talk time, or hangs up 40 s after calling
    missed, cdr = (await get(client, root, "/cdrs" + by_live_id(call_id)))["data"]
    assert (missed["type"], missed["dst_id"], missed["user_id"], missed["duration"]) == ("M", str(user_id), user_id, 15)
    assert (cdr["disposition"], cdr["context"], cdr["type"], cdr["dst"]) == ("VM", "VOICEMAIL", "I", NUMBER)
    (message,) = (await get(client, root, "/voicemessages"))["data"]
    assert (message["live_id"], message["is_new"], message["folder"]) == (call_id, True, 0)
    assert 0 < message["duration"] == cdr["billsec"] <= 25
    assert message["extension_id"] == user_id and message["dialled"] == NUMBER
    response = await client.get(f"/v1.2/voipstudio/voicemessages/{message['id']}.mp3", headers=root.headers())
    rate, frames, _ = decode_mp3(await response.read())
    assert abs(frames / rate - message["duration"]) < 0.1
    assert (await get(client, root, f"/users/{user_id}"))["data"]["vm_new"] == 1
    types = [t for t, _ in await call_events(client, call_id)]
    assert types.count("call.routed") == 2


async def test_a_user_on_do_not_disturb_is_skipped_straight_to_voicemail(client, root):
    user_id = await create_user(client, HOME, "dnd@example.com", dnd=True)
    await provision(client, target_type="U", target_id=user_id)
    call = (await ring(client, hangup_after=10))["data"]
    assert call["context"] == "VOICEMAIL" and call["dst_id"] == f"voicemail:{user_id}"
    await advance(client, 0)  # voicemail answers at once
    assert (await get(client, root, f"/calls/{call['id']}"))["data"]["state"] == "CONNECTED"


async def test_a_number_without_target_and_one_that_hangs_up_end_with_their_causes(client, root):
    await provision(client)
    ended = (await ring(client))["data"]
    assert ended["state"] == "HANGUP"
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(ended["id"])))["data"]
    assert (cdr["type"], cdr["t_cause"]) == ("M", "no route destination")
    response = await client.patch(f"/_telephony/ddis/{NUMBER.lstrip('+')}", json={"target_type": "H"},
                                  headers=CONTROL)  # fmt: skip
    assert response.status == 200 and (await response.json())["data"]["target_type"] == 7
    hung_up = (await ring(client))["data"]
    assert hung_up["state"] == "HANGUP"


async def test_a_caller_who_gives_up_while_the_user_rings_is_a_missed_call(client, root):
    user_id = await create_user(client, HOME, "slow@example.com")
    await provision(client, target_type="user", target_id=user_id)
    call_id = (await ring(client, answer={str(user_id): 30}, hangup_after=8))["data"]["id"]
    await advance(client, 10)
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(call_id)))["data"]
    assert (cdr["type"], cdr["t_cause"], cdr["duration"]) == ("M", "originator cancel", 8)


async def test_unknown_numbers_and_bad_targets_are_refused(client, root):
    await error_of(await client.post("/_telephony/simulate/inbound-call", json={"from": CALLER, "to": NUMBER},
                                     headers=CONTROL), 404)  # fmt: skip
    await provision(client)
    response = await client.patch(f"/_telephony/ddis/{NUMBER}", json={"target_type": "Z"}, headers=CONTROL)
    assert (await error_of(response, 400))["errors"][0]["field"] == "target_type"
    await error_of(await client.patch("/_telephony/ddis/441111111111", json={}, headers=CONTROL), 404)
    response = await client.post("/_telephony/simulate/inbound-call", json={"from": CALLER, "to": NUMBER,
                                 "answer": {"1": "maybe"}}, headers=CONTROL)  # fmt: skip
    await error_of(response, 400)
    assert login


async def group(client, creds, **body) -> int:
    response = await client.post("/v1.2/voipstudio/ringgroups", json=body, headers=creds.headers())
    assert response.status == 201, await response.text()
    return (await response.json())["data"]["id"]


async def test_a_ring_group_rings_all_and_the_first_to_answer_takes_the_call(client, root):
    first = await create_user(client, HOME, "rg1@example.com", ext="231")
    second = await create_user(client, HOME, "rg2@example.com", ext="232")
    await provision_listed(client)
    group_id = await group(client, root, name="Sales", users=[first, second], strategy=1, ring_time=20,
                           ddis=[NUMBER.lstrip("+")])  # fmt: skip
    call = (await ring(client, answer={str(first): 9, str(second): 3}, hangup_after=30))["data"]
    assert (call["context"], call["dst_id"]) == ("RINGGROUP", str(second))
    await advance(client, 3)
    assert (await get(client, root, f"/calls/{call['id']}"))["data"]["state"] == "CONNECTED"
    await advance(client, 30)
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(call["id"])))["data"]
    assert (cdr["context"], cdr["type"], cdr["dst_id"], cdr["user_id"]) == ("RINGGROUP", "I", str(second), second)
    assert group_id


async def provision_listed(client) -> None:
    """The number with no target of its own: the ring group or IVR that lists it takes its calls."""
    response = await client.post(f"/_telephony/customers/{HOME}/ddis", json={"e164": NUMBER}, headers=CONTROL)
    assert response.status == 201, await response.text()


async def test_a_hunting_ring_group_rings_its_members_in_turn_then_its_final_destination(client, root):
    first = await create_user(client, HOME, "h1@example.com", ext="241")
    second = await create_user(client, HOME, "h2@example.com", ext="242")
    await provision_listed(client)
    await group(client, root, name="Hunt", users=[first, second], strategy=2, ring_time=10,
                final_dst_type=2, final_dst_id=first, ddis=[NUMBER])  # fmt: skip
    call_id = (await ring(client, answer={str(first): "never", str(second): "never"}, hangup_after=35))["data"]["id"]
    assert (await get(client, root, f"/calls/{call_id}"))["data"]["dst_id"] == str(first)
    await advance(client, 10)
    assert (await get(client, root, f"/calls/{call_id}"))["data"]["dst_id"] == str(second)
    await advance(client, 10)
    assert (await get(client, root, f"/calls/{call_id}"))["data"]["context"] == "VOICEMAIL"
    await advance(client, 20)
    *missed, cdr = (await get(client, root, "/cdrs" + by_live_id(call_id)))["data"]
    assert cdr["disposition"] == "VM" and [m["dst_id"] for m in missed] == [str(first), str(second)]
    assert [d["dst"]["id"] for t, d in await call_events(client, call_id) if t == "call.routed"] == [
        str(first), str(second), f"voicemail:{first}"]  # fmt: skip


async def test_a_busy_user_hunts_through_follow_me_to_its_second_target(client, root):
    user_id = await create_user(client, HOME, "fm@example.com", ext="250", fm=True, fm_strategy="H",
                                fm_targets=["447700900801", "447700900802"], fm_ring_time="12")  # fmt: skip
    await provision(client, target_type="U", target_id=user_id)
    call_id = (await ring(client, answer={str(user_id): "busy", "447700900801": "never", "447700900802": 5},
                          hangup_after=60))["data"]["id"]  # fmt: skip
    await advance(client, 1)  # the user's client answers busy: follow-me
    live = (await get(client, root, f"/calls/{call_id}"))["data"]
    assert (live["context"], live["dst"]) == ("FOLLOW_ME", "+447700900801")
    await advance(client, 12)  # the first target rings out: the second rings
    assert (await get(client, root, f"/calls/{call_id}"))["data"]["dst"] == "+447700900802"
    await advance(client, 5)
    assert (await get(client, root, f"/calls/{call_id}"))["data"]["state"] == "CONNECTED"
    await advance(client, 60)
    missed, cdr = (await get(client, root, "/cdrs" + by_live_id(call_id)))["data"]
    assert (missed["type"], missed["dst_id"]) == ("M", str(user_id))  # the busy user logs the call it missed
    assert (cdr["context"], cdr["dst"], cdr["type"]) == ("FOLLOW_ME", NUMBER, "I") and cdr["billsec"] > 0


async def test_an_ivr_sends_the_caller_by_the_key_pressed_or_to_its_final_destination(client, root):
    agent = await create_user(client, HOME, "ivr@example.com", ext="260")
    await provision_listed(client)
    response = await client.post(
        "/v1.2/voipstudio/ivrs",
        json={"name": "Menu", "two": f"U:{agent}", "timeout": 4, "repeats": 2, "ddis": [NUMBER]},
        headers=root.headers(),
    )
    assert response.status == 201, await response.text()
    call_id = (await ring(client, digits=[{"key": "2", "after": 3}], answer={str(agent): 2},
                          hangup_after=40))["data"]["id"]  # fmt: skip
    assert (await get(client, root, f"/calls/{call_id}"))["data"]["context"] == "IVR"
    await advance(client, 3)  # the caller presses 2: the agent rings
    assert (await get(client, root, f"/calls/{call_id}"))["data"]["dst_id"] == str(agent)
    await advance(client, 2)
    assert (await get(client, root, f"/calls/{call_id}"))["data"]["state"] == "CONNECTED"
    silent = (await ring(client, hangup_after=20))["data"]["id"]
    await advance(client, 8)  # no key: timeout 4 s twice, then the IVR's final destination (hang up)
    await get(client, root, f"/calls/{silent}", status=404)
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(silent)))["data"]
    assert (cdr["context"], cdr["type"]) == ("IVR", "M")


async def test_a_user_without_call_waiting_on_a_call_is_skipped(client, root):
    user_id = await create_user(client, HOME, "cw@example.com", ext="270", cw=False, final_dst_type="H")
    await provision(client, target_type="U", target_id=user_id)
    first = (await ring(client, answer={str(user_id): 1}, hangup_after=100))["data"]["id"]
    await advance(client, 1)
    second = (await ring(client, answer={str(user_id): 1}))["data"]
    assert second["state"] == "HANGUP"  # busy: straight to the final destination, hang-up
    assert (await get(client, root, f"/calls/{first}"))["data"]["state"] == "CONNECTED"


async def test_calls_to_a_call_tracking_number_are_listed_as_tracked(client, root):
    user_id = await create_user(client, HOME, "track@example.com")
    await provision(client, target_type="U", target_id=user_id)
    response = await client.post(
        "/v1.2/voipstudio/calltracking/campaigns", json={"name": "Spring"}, headers=root.headers()
    )
    campaign = (await response.json())["data"]["id"]
    response = await client.patch(
        "/v1.2/voipstudio/calltracking/ddis", json=[{"e164": NUMBER, "campaign_id": campaign}], headers=root.headers()
    )
    assert response.status == 200, await response.text()
    call_id = (await ring(client, answer={str(user_id): 2}, hangup_after=10))["data"]["id"]
    await advance(client, 10)
    for path in ("/cdrs/calltracking", "/calltracking/cdrs"):
        tracked = (await get(client, root, path))["data"]
        assert [(c["live_id"], c["dst"]) for c in tracked] == [(call_id, NUMBER)]


async def test_keys_pressed_through_the_dtmf_endpoint_route_a_call_in_an_ivr(client, root):
    agent = await create_user(client, HOME, "keys@example.com", ext="280")
    await provision_listed(client)
    response = await client.post(
        "/v1.2/voipstudio/ivrs",
        json={"name": "Desk", "five": f"U:{agent}", "timeout": 30, "ext_dialing": True, "ddis": [NUMBER]},
        headers=root.headers(),
    )
    assert response.status == 201, await response.text()
    call_id = (await ring(client, answer={str(agent): 2}, hangup_after=60))["data"]["id"]
    response = await client.post(f"/_telephony/calls/{call_id}/dtmf", json={"digits": "7"}, headers=CONTROL)
    assert (await error_of(response, 400))["errors"][0]["field"] == "digits"  # 7 does nothing here
    response = await client.post(f"/_telephony/calls/{call_id}/dtmf", json={}, headers=CONTROL)
    assert (await error_of(response, 400))["errors"][0]["field"] == "digits"
    response = await client.post(f"/_telephony/calls/{call_id}/dtmf", json={"digits": "280"}, headers=CONTROL)
    assert response.status == 200, await response.text()
    assert (await response.json())["data"]["dst_id"] == str(agent)  # the extension dialled
    response = await client.post(f"/_telephony/calls/{call_id}/dtmf", json={"digits": "5"}, headers=CONTROL)
    assert (await error_of(response, 400))["message"].endswith("is not in an IVR.")
    await error_of(await client.post("/_telephony/calls/999/dtmf", json={"digits": "5"}, headers=CONTROL), 404)


async def queue(client, creds, **body) -> int:
    response = await client.post("/v1.2/voipstudio/queues", json=body, headers=creds.headers())
    assert response.status == 201, await response.text()
    return (await response.json())["data"]["id"]


async def test_an_ivr_key_sends_the_caller_to_a_queue_that_waits_for_an_agent_then_gives_up(client, root):
    agent = await create_user(client, HOME, "agent@example.com", ext="290")
    await provision_listed(client)
    queue_id = await queue(client, root, name="Support", users=[{"id": agent, "status": False}], ring_time=10,
                           retry=5, max_wait_time=30, final_dst_type=2, final_dst_id=agent)  # fmt: skip
    response = await client.post("/v1.2/voipstudio/ivrs", json={"name": "Menu", "two": f"Q:{queue_id}", "timeout": 5,
                                 "ddis": [NUMBER]}, headers=root.headers())  # fmt: skip
    assert response.status == 201, await response.text()
    call_id = (await ring(client, digits=[{"key": "2", "after": 2}], answer={str(agent): 1},
                          hangup_after=50))["data"]["id"]  # fmt: skip
    await advance(client, 2)  # key 2: the queue, whose only agent is logged out: the caller waits
    live = (await get(client, root, f"/calls/{call_id}"))["data"]
    assert (live["context"], live["queue_state"], live["state"]) == ("QUEUE", "waiting", "RINGING")
    await advance(client, 30)  # max_wait_time: on to the queue's final destination, the agent's voicemail
    live = (await get(client, root, f"/calls/{call_id}"))["data"]
    assert (live["context"], live["dst_id"]) == ("VOICEMAIL", f"voicemail:{agent}")
    contexts = [d["context"] for t, d in await call_events(client, call_id) if t == "call.routed"]
    assert contexts[0] == "IVR" and contexts[-1] == "VOICEMAIL" and set(contexts[1:-1]) == {"QUEUE"}


async def test_a_logged_in_free_agent_answers_a_queued_call(client, root):
    agent = await create_user(client, HOME, "agent2@example.com", ext="291")
    await provision_listed(client)
    await queue(client, root, name="Sales", users=[{"id": agent, "status": True}], ring_time=10, ddis=[NUMBER])
    call = (await ring(client, answer={str(agent): 3}, hangup_after=20))["data"]
    assert (call["context"], call["queue_state"], call["dst_id"]) == ("QUEUE", "ringing", str(agent))
    await advance(client, 3)
    live = (await get(client, root, f"/calls/{call['id']}"))["data"]
    assert (live["state"], live["queue_state"]) == ("CONNECTED", "connected")
    await advance(client, 20)
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(call["id"])))["data"]
    assert (cdr["context"], cdr["type"], cdr["dst_id"]) == ("QUEUE", "I", str(agent))


async def test_a_user_with_no_client_rings_its_network_unavailable_number(client, root):
    user_id = await create_user(client, HOME, "nun@example.com", nb_sip_locations=0, nun="447700900999",
                                nun_ring_time=8, final_dst_type="H")  # fmt: skip
    await provision(client, target_type="U", target_id=user_id)
    call = (await ring(client, answer={"447700900999": "never"}))["data"]
    assert (call["dst"], call["state"]) == ("+447700900999", "RINGING")
    await advance(client, 8)  # unanswered: the user's final destination hangs up
    await get(client, root, f"/calls/{call['id']}", status=404)


async def test_inbound_routing_rules_block_or_allow_callers_in_pos_order(client, root):
    user_id = await create_user(client, HOME, "rules@example.com")
    await provision(client, target_type="U", target_id=user_id)
    headers = root.headers()
    for body in ({"action": "block", "direction": 1, "pos": 2, "source": []},
                 {"action": "allow", "direction": 1, "pos": 1, "source": ["447700900555"]},
                 {"action": "block", "direction": 2, "pos": 0}):  # fmt: skip
        response = await client.post("/v1.2/voipstudio/routingrules", json=body, headers=headers)
        assert response.status == 201, await response.text()
    allowed = (await ring(client, answer={str(user_id): 1}, hangup_after=5))["data"]
    assert allowed["state"] == "RINGING"  # the allow rule (pos 1) comes before the block for everyone
    blocked = (await ring(client, **{"from": "447700900666"}))["data"]
    assert blocked["state"] == "HANGUP"
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(blocked["id"])))["data"]
    assert (cdr["t_cause"], cdr["type"], cdr["disposition"]) == ("call rejected", "M", "BUSY")


async def test_callers_of_a_conference_number_meet_in_its_room_after_its_pin(client, root):
    await provision_listed(client)
    response = await client.post("/v1.2/voipstudio/conferences", json={"name": "Board", "pin": "4321",
                                 "ddis": [NUMBER]}, headers=root.headers())  # fmt: skip
    assert response.status == 201, await response.text()
    room = (await response.json())["data"]["id"]
    first = (await ring(client, digits=["4321"], hangup_after=30))["data"]
    second = (await ring(client, **{"from": "447700900556"}, digits=["4321"], hangup_after=20))["data"]
    wrong = (await ring(client, **{"from": "447700900557"}, digits=["1111"]))["data"]
    assert wrong["state"] == "HANGUP"
    await advance(client, 1)
    live = (await get(client, root, "/calls"))["data"]
    assert {(c["id"], c["state"], c["context"], c["dst_id"]) for c in live} == {
        (first["id"], "CONNECTED", "CONFERENCE", f"conference:{room}"),
        (second["id"], "CONNECTED", "CONFERENCE", f"conference:{room}")}  # fmt: skip
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(wrong["id"])))["data"]
    assert cdr["t_cause"] == "call rejected"


async def test_a_user_who_records_inbound_calls_gets_a_monitor_of_an_answered_one(client, root):
    user_id = await create_user(client, HOME, "recin@example.com", monitor="I")
    await provision(client, target_type="U", target_id=user_id)
    call_id = (await ring(client, answer={str(user_id): 2}, hangup_after=12))["data"]["id"]
    await advance(client, 12)
    (monitor,) = (await get(client, root, "/monitors" + by_live_id(call_id)))["data"]
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(call_id)))["data"]
    assert monitor["duration"] == cdr["billsec"] > 0 and monitor["type"] == "I"


async def test_a_queue_rings_only_agents_who_are_not_on_a_call(client, root):
    agent = await create_user(client, HOME, "onacall@example.com", ext="295")
    await provision_listed(client)
    await queue(client, root, name="Busy", users=[{"id": agent, "status": True}], ring_time=10, retry=5,
                max_wait_time=60, ddis=[NUMBER])  # fmt: skip
    first = (await ring(client, answer={str(agent): 1}, hangup_after=30))["data"]["id"]
    await advance(client, 1)
    assert (await get(client, root, f"/calls/{first}"))["data"]["state"] == "CONNECTED"
    second = (await ring(client, **{"from": "447700900558"}, answer={str(agent): 1}, hangup_after=50))["data"]
    assert second["queue_state"] == "waiting"  # the only agent is talking to the first caller
    await advance(client, 60)  # once the first call ends, at the queue's next look the agent rings and answers
    events = await call_events(client, second["id"])
    first_ended = (await call_events(client, first))[-1][1]["at"]
    (answered,) = [d for t, d in events if t == "call.answered" and d["leg"] == "dst"]
    assert answered["at"] > first_ended  # the agent took the second caller only after the first
