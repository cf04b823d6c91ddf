"""Inbound calls to a customer's numbers, routed by the PBX configuration: one test per path, each
checking the CDRs' type, context, src_id/dst_id and parent_live_id, and the order of states."""

from __future__ import annotations

import pytest

from tests.accounts.helpers import CONTROL, create_user, error_of
from tests.calls.helpers import advance, call_events, cdrs_of, get, legs, routed, states
from tests.calls.test_voicemail_mail import settled
from tests.media.decoders import decode_mp3

HOME = 100001
NUMBER = "+442071230000"
CALLER = "+447700900555"
ANSWERED = ["INITIAL", "RINGING", "CONNECTED", "HANGUP"]
UNANSWERED = ["INITIAL", "RINGING", "HANGUP"]


async def provision(client, number: str = NUMBER, **target) -> None:
    response = await client.post(f"/_telephony/customers/{HOME}/ddis", json={"e164": number, **target},
                                 headers=CONTROL)  # fmt: skip
    assert response.status == 201, await response.text()


async def ring(client, status: int = 201, **body) -> dict:
    response = await client.post("/_telephony/simulate/inbound-call", json={"from": CALLER, "to": NUMBER, **body},
                                 headers=CONTROL)  # fmt: skip
    answer = await response.json()
    assert response.status == status, answer
    return answer


async def create(client, creds, path: str, **body) -> int:
    response = await client.post(f"/v1.2/voipstudio/{path}", json=body, headers=creds.headers())
    assert response.status == 201, await response.text()
    return (await response.json())["data"]["id"]


async def test_a_number_that_rings_a_user_who_answers(client, root):
    user_id = await create_user(client, HOME, "desk@example.com", ext="220", first_name="Dee")
    contact_id = await create(client, root, "contacts", first_name="Carl", tel=CALLER)
    await provision(client, target_type="U", target_id=user_id)
    call = (await ring(client, answer={str(user_id): 4}, hangup_after=64))["data"]
    assert (call["state"], call["dst_id"], call["destination"]) == ("RINGING", str(user_id), 1)
    await advance(client, 4)
    assert (await get(client, root, f"/calls/{call['id']}"))["data"]["state"] == "CONNECTED"
    await advance(client, 60)
    (cdr,) = await cdrs_of(client, root, call["id"])
    assert routed(cdr) == ("I", "PSTN_CALL", f"contact:{contact_id}", str(user_id), None)
    assert (cdr["destination"], cdr["src"], cdr["dst"], cdr["user_id"]) == ("in", CALLER, NUMBER, user_id)
    assert (cdr["disposition"], cdr["t_cause"], cdr["src_name"]) == ("CONNECTED", "normal clearing", "Carl")
    assert 0 < cdr["billsec"] == cdr["duration"] - 4  # rang 4 s, then talked as the simulator drew
    assert await states(client, call["id"]) == ANSWERED


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
    missed, cdr = await cdrs_of(client, root, call_id)
    assert routed(missed) == ("M", "PSTN_CALL", None, str(user_id), None)  # the busy user logs the call it missed
    assert routed(cdr) == ("I", "FOLLOW_ME", None, None, None)
    assert (cdr["dst"], cdr["user_id"], cdr["billsec"] > 0) == (NUMBER, user_id, True)
    assert [d["dst"]["number"] for t, d in await call_events(client, call_id) if t == "call.routed"] == [
        "250", "+447700900801", "+447700900802"]  # fmt: skip
    assert await states(client, call_id) == ANSWERED


async def test_an_ivr_key_sends_the_caller_to_a_queue_whose_agent_answers_once_logged_in(client, root):
    agent = await create_user(client, HOME, "agent@example.com", ext="290")
    await provision(client)
    queue_id = await create(client, root, "queues", name="Support", users=[{"id": agent, "status": False}],
                            ring_time=10, retry=5, max_wait_time=30, final_dst_type="V",
                            final_dst_id=agent)  # fmt: skip
    ivr_id = await create(client, root, "ivrs", name="Menu", two=f"Q:{queue_id}", timeout=5, ddis=[NUMBER])
    first = (await ring(client, digits=[{"key": "2", "after": 2}], answer={str(agent): 1}, hangup_after=50))["data"]
    assert (first["context"], first["dst_id"]) == ("IVR", f"ivr:{ivr_id}")
    await advance(client, 2)  # key 2: on to the queue, whose only agent is logged out: the caller waits
    ivr_leg, queue_leg = await legs(client, first["id"])
    live = (await get(client, root, f"/calls/{queue_leg}"))["data"]
    assert (live["context"], live["queue_state"], live["state"], live["parent_id"]) == (
        "QUEUE", "waiting", "CONNECTED", ivr_leg)  # the queue answered the caller as it joined  # fmt: skip
    waiting = (await get(client, root, f"/queues/{queue_id}/calls"))["data"]
    assert [c["id"] for c in waiting] == [queue_leg]
    await advance(client, 30)  # max_wait_time: the queue's final destination, the agent's voicemail
    live = (await get(client, root, f"/calls/{queue_leg}"))["data"]
    assert (live["context"], live["dst_id"]) == ("VOICEMAIL", f"voicemail:{agent}")
    await advance(client, 20)
    (ivr_cdr,) = await cdrs_of(client, root, ivr_leg)
    assert routed(ivr_cdr) == ("I", "IVR", None, f"ivr:{ivr_id}", None)
    assert (ivr_cdr["disposition"], ivr_cdr["t_cause"], ivr_cdr["billsec"]) == ("CONNECTED", "transferred", 2)
    (vm_cdr,) = await cdrs_of(client, root, queue_leg)
    assert routed(vm_cdr) == ("I", "VOICEMAIL", None, f"voicemail:{agent}", ivr_leg)
    assert await states(client, ivr_leg) == await states(client, queue_leg) == ANSWERED

    response = await client.patch(f"/v1.2/voipstudio/queues/{queue_id}", json={"users": [{"id": agent,
                                  "status": True}]}, headers=root.headers())  # the agent logs in  # fmt: skip
    assert response.status == 200, await response.text()
    second = (await ring(client, digits=[{"key": "2", "after": 1}], answer={str(agent): 3}, hangup_after=40))["data"]
    await advance(client, 1)
    ivr_leg, queue_leg = await legs(client, second["id"])
    live = (await get(client, root, f"/calls/{queue_leg}"))["data"]
    assert (live["queue_state"], live["dst_id"]) == ("ringing", str(agent))
    await advance(client, 3)
    assert (await get(client, root, f"/calls/{queue_leg}"))["data"]["queue_state"] == "connected"
    await advance(client, 40)
    (agent_cdr,) = await cdrs_of(client, root, queue_leg)
    assert routed(agent_cdr) == ("I", "QUEUE", None, str(agent), ivr_leg)
    assert agent_cdr["user_id"] == agent and agent_cdr["billsec"] > 0
    assert await states(client, queue_leg) == ANSWERED


async def test_a_ring_group_rings_all_and_the_first_to_answer_takes_the_call(client, root):
    first = await create_user(client, HOME, "rg1@example.com", ext="231")
    second = await create_user(client, HOME, "rg2@example.com", ext="232")
    await provision(client)
    await create(client, root, "ringgroups", name="Sales", users=[first, second], strategy=1, ring_time=20,
                 ddis=[NUMBER.lstrip("+")])  # fmt: skip
    call = (await ring(client, answer={str(first): 9, str(second): 3}, hangup_after=30))["data"]
    assert (call["context"], call["dst_id"]) == ("RINGGROUP", str(second))
    await advance(client, 3)
    assert (await get(client, root, f"/calls/{call['id']}"))["data"]["state"] == "CONNECTED"
    await advance(client, 30)
    (cdr,) = await cdrs_of(client, root, call["id"])
    assert routed(cdr) == ("I", "RINGGROUP", None, str(second), None) and cdr["user_id"] == second
    assert await states(client, call["id"]) == ANSWERED


async def test_a_hunting_ring_group_rings_its_members_in_turn_then_its_final_destination(client, root):
    first = await create_user(client, HOME, "h1@example.com", ext="241")
    second = await create_user(client, HOME, "h2@example.com", ext="242")
    await provision(client)
    await create(client, root, "ringgroups", name="Hunt", users=[first, second], strategy=2, ring_time=10,
                 final_dst_type=2, final_dst_id=first, ddis=[NUMBER])  # fmt: skip
    call_id = (await ring(client, answer={str(first): "never", str(second): "never"}, hangup_after=35))["data"]["id"]
    assert (await get(client, root, f"/calls/{call_id}"))["data"]["dst_id"] == str(first)
    await advance(client, 10)
    assert (await get(client, root, f"/calls/{call_id}"))["data"]["dst_id"] == str(second)
    await advance(client, 10)
    assert (await get(client, root, f"/calls/{call_id}"))["data"]["context"] == "VOICEMAIL"
    await advance(client, 20)
    *missed, cdr = await cdrs_of(client, root, call_id)
    assert [routed(m) for m in missed] == [("M", "RINGGROUP", None, str(first), None),
                                           ("M", "RINGGROUP", None, str(second), None)]  # fmt: skip
    assert routed(cdr) == ("I", "VOICEMAIL", None, f"voicemail:{first}", None) and cdr["disposition"] == "VM"
    assert await states(client, call_id) == ANSWERED


async def test_a_user_on_do_not_disturb_sends_the_caller_to_voicemail_which_is_mailed(client, root):
    user_id = await create_user(client, HOME, "dnd@example.com", ext="221", dnd=True, vm_to_email=True,
                                vm_emails=["dee@example.com"])  # fmt: skip
    await provision(client, target_type="U", target_id=user_id)
    call = (await ring(client, hangup_after=25))["data"]
    assert (call["context"], call["dst_id"]) == ("VOICEMAIL", f"voicemail:{user_id}")
    await advance(client, 25)  # the caller speaks for the drawn talk time, or hangs up 25 s after calling
    (cdr,) = await cdrs_of(client, root, call["id"])
    assert routed(cdr) == ("I", "VOICEMAIL", None, f"voicemail:{user_id}", None)
    assert (cdr["disposition"], cdr["dst"], cdr["user_id"]) == ("VM", NUMBER, user_id)
    (message,) = (await get(client, root, "/voicemessages"))["data"]
    assert (message["live_id"], message["is_new"], message["folder"]) == (call["id"], True, 0)
    assert 0 < message["duration"] == cdr["billsec"] <= 25
    assert message["extension_id"] == user_id and message["dialled"] == NUMBER
    response = await client.get(f"/v1.2/voipstudio/voicemessages/{message['id']}.mp3", headers=root.headers())
    mp3 = await response.read()
    rate, frames, _ = decode_mp3(mp3)
    assert abs(frames / rate - message["duration"]) < 0.1
    assert (await get(client, root, f"/users/{user_id}"))["data"]["vm_new"] == 1
    await settled(client)
    mails = (await (await client.get("/_telephony/outbox?to=dee@example.com", headers=CONTROL)).json())["data"]
    (attached,) = mails[0]["attachments"]
    assert (attached["media_type"], attached["size"]) == ("audio/mpeg", len(mp3))
    assert await states(client, call["id"]) == ANSWERED


async def test_callers_of_a_conference_number_meet_in_its_room_after_its_pin(client, root):
    await provision(client)
    room = await create(client, root, "conferences", name="Board", pin="4321", ddis=[NUMBER])
    first = (await ring(client, digits=["4321"], hangup_after=30))["data"]
    second = (await ring(client, **{"from": "447700900556"}, digits=["4321"], hangup_after=20))["data"]
    wrong = (await ring(client, **{"from": "447700900557"}, digits=["1111"]))["data"]
    assert wrong["state"] == "HANGUP"
    await advance(client, 1)
    live = (await get(client, root, "/calls"))["data"]
    assert {(c["id"], c["state"], c["context"], c["dst_id"]) for c in live} == {
        (first["id"], "CONNECTED", "CONFERENCE", f"conference:{room}"),
        (second["id"], "CONNECTED", "CONFERENCE", f"conference:{room}")}  # fmt: skip
    await advance(client, 30)
    for caller in (first, second):
        (cdr,) = await cdrs_of(client, root, caller["id"])
        assert routed(cdr) == ("I", "CONFERENCE", None, f"conference:{room}", None)
        assert await states(client, caller["id"]) == ANSWERED
    (cdr,) = await cdrs_of(client, root, wrong["id"])
    assert (cdr["t_cause"], cdr["type"]) == ("call rejected", "M")
    assert await states(client, wrong["id"]) == ["INITIAL", "HANGUP"]


async def test_a_user_who_lets_the_call_ring_out_gets_a_missed_call_record(client, root):
    user_id = await create_user(client, HOME, "missed@example.com", ext="223", ring_time="15", final_dst_type="H")
    await provision(client, target_type="U", target_id=user_id)
    call_id = (await ring(client, answer={str(user_id): "never"}))["data"]["id"]
    await advance(client, 15)  # the user's ring time: its final destination hangs up
    (missed,) = await cdrs_of(client, root, call_id)  # the call ends there: its own record is the missed one
    assert routed(missed) == ("M", "PSTN_CALL", None, str(user_id), None)
    assert (missed["duration"], missed["user_id"], missed["disposition"]) == (15, user_id, "NO_ANSWER")
    assert await states(client, call_id) == UNANSWERED
    user_id = await create_user(client, HOME, "missed2@example.com", ext="225", ring_time="10", final_dst_type="V")
    response = await client.patch(f"/_telephony/ddis/{NUMBER}", json={"target_type": "U", "target_id": user_id},
                                  headers=CONTROL)  # fmt: skip
    assert response.status == 200
    call_id = (await ring(client, answer={str(user_id): "never"}, hangup_after=30))["data"]["id"]
    await advance(client, 30)  # rings out, then voicemail: a missed record of its own beside the call's
    missed, cdr = await cdrs_of(client, root, call_id)
    assert routed(missed) == ("M", "PSTN_CALL", None, str(user_id), None) and missed["duration"] == 10
    assert routed(cdr) == ("I", "VOICEMAIL", None, f"voicemail:{user_id}", None)


async def test_a_caller_who_gives_up_while_the_user_rings_is_a_missed_call(client, root):
    user_id = await create_user(client, HOME, "slow@example.com", log_missed_calls=False)
    await provision(client, target_type="user", target_id=user_id)
    call_id = (await ring(client, answer={str(user_id): 30}, hangup_after=8))["data"]["id"]
    await advance(client, 10)
    (cdr,) = await cdrs_of(client, root, call_id)
    assert (cdr["type"], cdr["t_cause"], cdr["duration"]) == ("M", "originator cancel", 8)


async def test_calls_to_a_call_tracking_number_are_listed_as_tracked(client, root):
    user_id = await create_user(client, HOME, "tracked@example.com", ext="224")
    campaign = await create(client, root, "calltracking/campaigns", name="Spring")
    await provision(client, target_type="U", target_id=user_id)
    response = await client.patch("/v1.2/voipstudio/calltracking/ddis", json=[{"e164": NUMBER,
                                  "campaign_id": campaign}], headers=root.headers())  # fmt: skip
    assert response.status == 200, await response.text()
    call_id = (await ring(client, answer={str(user_id): 2}, hangup_after=10))["data"]["id"]
    await advance(client, 10)
    for path in ("/cdrs/calltracking", "/calltracking/cdrs"):
        (cdr,) = (await get(client, root, path))["data"]
        assert routed(cdr) == ("I", "PSTN_CALL", None, str(user_id), None)
        assert (cdr["live_id"], cdr["dst"]) == (call_id, NUMBER)


async def test_a_number_without_target_and_one_that_hangs_up_end_with_their_causes(client, root):
    await provision(client)
    ended = (await ring(client))["data"]
    assert ended["state"] == "HANGUP"
    (cdr,) = await cdrs_of(client, root, ended["id"])
    assert (cdr["type"], cdr["t_cause"]) == ("M", "no route destination")
    response = await client.patch(f"/_telephony/ddis/{NUMBER.lstrip('+')}", json={"target_type": "H"},
                                  headers=CONTROL)  # fmt: skip
    assert response.status == 200 and (await response.json())["data"]["target_type"] == 7
    hung_up = (await ring(client))["data"]
    (cdr,) = await cdrs_of(client, root, hung_up["id"])
    assert (cdr["type"], cdr["t_cause"]) == ("M", "normal clearing")


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


async def test_an_ivr_without_a_key_sends_the_caller_to_its_final_destination(client, root):
    agent = await create_user(client, HOME, "ivr@example.com", ext="260")
    await provision(client)
    ivr_id = await create(client, root, "ivrs", name="Menu", two=f"U:{agent}", timeout=4, repeats=2, ddis=[NUMBER],
                          final_dst_type="U", final_dst_id=agent)  # fmt: skip
    call_id = (await ring(client, answer={str(agent): 2}, hangup_after=40))["data"]["id"]
    await advance(client, 8)  # no key: timeout 4 s twice, then the IVR's final destination, the agent
    ivr_leg, user_leg = await legs(client, call_id)
    assert (await get(client, root, f"/calls/{user_leg}"))["data"]["dst_id"] == str(agent)
    await advance(client, 40)
    (cdr,) = await cdrs_of(client, root, user_leg)
    assert routed(cdr) == ("I", "PSTN_CALL", None, str(agent), ivr_leg)
    (cdr,) = await cdrs_of(client, root, ivr_leg)
    assert routed(cdr) == ("I", "IVR", None, f"ivr:{ivr_id}", None) and cdr["billsec"] == 8


async def test_keys_pressed_through_the_dtmf_endpoint_route_a_call_in_an_ivr(client, root):
    agent = await create_user(client, HOME, "keys@example.com", ext="280")
    await provision(client)
    await create(client, root, "ivrs", name="Desk", five=f"U:{agent}", timeout=30, repeats=2, ext_dialing=True,
                 ddis=[NUMBER])  # fmt: skip
    call_id = (await ring(client, answer={str(agent): 2}, hangup_after=60))["data"]["id"]
    await advance(client, 1)
    response = await client.post(f"/_telephony/calls/{call_id}/dtmf", json={"digits": "7"}, headers=CONTROL)
    assert response.status == 200 and (await response.json())["data"]["id"] == call_id  # 7 replays the menu
    response = await client.post(f"/_telephony/calls/{call_id}/dtmf", json={}, headers=CONTROL)
    assert (await error_of(response, 400))["errors"][0]["field"] == "digits"
    response = await client.post(f"/_telephony/calls/{call_id}/dtmf", json={"digits": "280"}, headers=CONTROL)
    assert response.status == 200, await response.text()
    moved = (await response.json())["data"]  # the caller goes on to the extension dialled, in a new call
    assert (moved["dst_id"], moved["parent_id"]) == (str(agent), call_id)
    response = await client.post(f"/_telephony/calls/{moved['id']}/dtmf", json={"digits": "5"}, headers=CONTROL)
    assert (await error_of(response, 400))["message"].endswith("is not in an IVR.")
    await error_of(await client.post("/_telephony/calls/999/dtmf", json={"digits": "5"}, headers=CONTROL), 404)


async def test_a_key_that_does_nothing_plays_the_menu_again_and_counts_toward_its_repeats(client, root):
    agent = await create_user(client, HOME, "menu@example.com", ext="285")
    await provision(client)
    ivr_id = await create(client, root, "ivrs", name="Menu", two=f"U:{agent}", timeout=4, repeats=3, ddis=[NUMBER],
                          final_dst_type="H")  # fmt: skip
    for digits, reached_at, reached in (
        (["7", "2"], 2, str(agent)),  # invalid, the menu again, then 2: the agent
        (["7", "7"], 6, None),  # invalid twice, the third play times out: the final destination hangs up
        (["7", "7", "7", "2"], 3, None),  # three plays cut short: the 2 is never heard
    ):
        call_id = (await ring(client, digits=digits, answer={str(agent): 60}, hangup_after=30))["data"]["id"]
        await advance(client, reached_at - 1)
        assert (await get(client, root, f"/calls/{call_id}"))["data"]["dst_id"] == f"ivr:{ivr_id}", digits
        await advance(client, 1)
        await get(client, root, f"/calls/{call_id}", status=404)
        moved = await legs(client, call_id)
        if reached is None:
            assert moved == [call_id], digits
            assert (await cdrs_of(client, root, call_id))[0]["billsec"] == reached_at
        else:
            assert (await get(client, root, f"/calls/{moved[1]}"))["data"]["dst_id"] == reached
        await advance(client, 60)


async def test_keys_pressed_now_that_do_nothing_replay_the_menu_until_its_last_play(client, root):
    agent = await create_user(client, HOME, "replay@example.com", ext="286")
    await provision(client)
    await create(client, root, "ivrs", name="Menu", timeout=10, repeats=3, ddis=[NUMBER], final_dst_type="U",
                 final_dst_id=agent)  # fmt: skip
    call_id = (await ring(client, answer={str(agent): 60}, hangup_after=90))["data"]["id"]

    async def press(key: str) -> dict:
        response = await client.post(f"/_telephony/calls/{call_id}/dtmf", json={"digits": key}, headers=CONTROL)
        assert response.status == 200, await response.text()
        return (await response.json())["data"]

    await advance(client, 13)  # the first play timed out at 10 s; 3 s into the second
    assert (await press("9"))["id"] == call_id  # the second play cut short: one more, 10 s from now
    replayed = [d for t, d in await call_events(client, call_id) if t == "call.menu_replayed"]
    assert [(d["key"], d["played"], d["wait"]) for d in replayed] == [("9", 2, 10.0)]
    await advance(client, 9)
    assert (await get(client, root, f"/calls/{call_id}"))["data"]["context"] == "IVR"
    assert (await press("#"))["parent_id"] == call_id  # the last play cut short: the final destination, at once
    _, user_leg = await legs(client, call_id)
    assert (await get(client, root, f"/calls/{user_leg}"))["data"]["dst_id"] == str(agent)
    (cdr,) = await cdrs_of(client, root, call_id)
    assert (cdr["context"], cdr["billsec"], cdr["t_cause"]) == ("IVR", 22, "transferred")


async def test_a_user_without_call_waiting_on_a_call_is_skipped(client, root):
    user_id = await create_user(client, HOME, "cw@example.com", ext="270", cw=False, final_dst_type="H")
    await provision(client, target_type="U", target_id=user_id)
    first = (await ring(client, answer={str(user_id): 1}, hangup_after=30))["data"]["id"]
    await advance(client, 1)
    second = (await ring(client, **{"from": "447700900556"}))["data"]
    assert second["state"] == "HANGUP"  # busy, and its final destination hangs up
    assert (await get(client, root, f"/calls/{first}"))["data"]["state"] == "CONNECTED"


async def test_a_user_with_no_client_rings_its_network_unavailable_number(client, root):
    user_id = await create_user(client, HOME, "nun@example.com", nb_sip_locations=0, nun="447700900999",
                                nun_ring_time=8, final_dst_type="H")  # fmt: skip
    await provision(client, target_type="U", target_id=user_id)
    call = (await ring(client, answer={"447700900999": "never"}))["data"]
    assert (call["dst"], call["state"]) == ("+447700900999", "RINGING")
    await advance(client, 8)  # unanswered: the user's final destination hangs up
    await get(client, root, f"/calls/{call['id']}", status=404)


async def test_a_user_who_records_inbound_calls_gets_a_monitor_of_an_answered_one(client, root):
    user_id = await create_user(client, HOME, "recin@example.com", monitor="I")
    await provision(client, target_type="U", target_id=user_id)
    call_id = (await ring(client, answer={str(user_id): 2}, hangup_after=12))["data"]["id"]
    await advance(client, 12)
    (monitor,) = (await get(client, root, f"/calls/{call_id}/monitors"))["data"]
    (cdr,) = await cdrs_of(client, root, call_id)
    assert monitor["duration"] == cdr["billsec"] > 0 and monitor["type"] == "I"


@pytest.mark.parametrize("kind", ["ivrs", "queues", "conferences", "voicemail"])
async def test_the_platforms_own_destinations_answer_the_caller_as_it_reaches_them(client, root, kind):
    if kind == "voicemail":
        user_id = await create_user(client, HOME, "vm@example.com", ext="226")
        await provision(client, target_type="V", target_id=user_id)
    else:
        await provision(client)
        await create(client, root, kind, name="Front", ddis=[NUMBER])
    call = (await ring(client, hangup_after=3))["data"]
    assert (call["state"], call["connected_at"]) == ("CONNECTED", call["start_time"])
    placed, *_, answered = await call_events(client, call["id"])
    assert (answered[0], answered[1]["leg"], answered[1]["at"]) == ("call.answered", "dst", placed[1]["at"])
    await advance(client, 3)
    (cdr,) = await cdrs_of(client, root, call["id"])
    assert (cdr["type"], cdr["billsec"], cdr["duration"]) == ("I", 3, 3)
