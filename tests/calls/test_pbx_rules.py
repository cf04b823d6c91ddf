"""Routing rules (block, redirect), calls between users through the callee's rules, follow-me
options, and numbers that belong to one destination at a time."""

from __future__ import annotations

from tests.accounts.helpers import CONTROL, create_user, error_of
from tests.calls.conftest import ANSWERS
from tests.calls.helpers import advance, cdrs_of, get, legs, patch, place, routed, states
from tests.calls.test_inbound import ANSWERED, HOME, NUMBER, create, provision, ring

ALLOWED = "+447700900555"
BLOCKED = "+447700900666"


async def rule(client, root, status: int = 201, **body) -> dict:
    response = await client.post("/v1.2/voipstudio/routingrules", json=body, headers=root.headers())
    answer = await response.json()
    assert response.status == status, answer
    return answer


async def test_inbound_rules_block_allow_or_redirect_callers_in_pos_order(client, root):
    user_id = await create_user(client, HOME, "rules@example.com", ext="501")
    await provision(client, target_type="U", target_id=user_id)
    ivr_id = await create(client, root, "ivrs", name="Night", timeout=10)
    await rule(client, root, action="block", direction=1, pos=3)
    await rule(client, root, action="allow", direction=1, pos=1, source=[ALLOWED])
    await rule(client, root, action="ivr", direction=1, pos=2, source=["447700900777"], target_id=ivr_id)
    allowed = (await ring(client, answer={str(user_id): 1}, hangup_after=5))["data"]
    assert (allowed["state"], allowed["dst_id"]) == ("RINGING", str(user_id))  # allow (pos 1) comes first
    blocked = (await ring(client, **{"from": BLOCKED}))["data"]
    assert blocked["state"] == "HANGUP"
    (cdr,) = await cdrs_of(client, root, blocked["id"])
    assert (cdr["t_cause"], cdr["type"], cdr["disposition"]) == ("call rejected", "M", "BUSY")
    assert await states(client, blocked["id"]) == ["INITIAL", "HANGUP"]
    redirected = (await ring(client, **{"from": "447700900777"}, hangup_after=20))["data"]
    assert (redirected["context"], redirected["dst_id"]) == ("IVR", f"ivr:{ivr_id}")
    await advance(client, 20)
    (cdr,) = await cdrs_of(client, root, redirected["id"])
    assert routed(cdr) == ("I", "IVR", None, f"ivr:{ivr_id}", None)


async def test_a_redirect_must_name_its_destination(client, root):
    answer = await rule(client, root, 400, action="queue", direction=1)
    assert answer["errors"][0]["field"] == "target_id"
    answer = await rule(client, root, 400, action="redirect", direction=1, target_id=5)
    assert answer["errors"][0]["field"] == "target_type"
    answer = await rule(client, root, 400, action="queue", direction=1, target_id=999)
    assert answer["errors"][0]["field"] == "target_id"  # no such queue
    user_id = await create_user(client, HOME, "vm@example.com")
    made = (await rule(client, root, action="voicemail", direction=1, target_id=user_id))["data"]
    assert (made["target_type"], made["target_id"]) == (2, user_id)
    made = (await rule(client, root, action="redirect", direction=2, target_type="H"))["data"]
    assert made["target_type"] == 7


async def test_outbound_rules_block_or_redirect_a_users_calls(client, root):
    user_id = await create_user(client, HOME, "desk@example.com", ext="502", final_dst_type="V")
    await rule(client, root, action="block", direction=2, destination=["447700900900"])
    await rule(client, root, action="user", direction=2, destination=["447700900901"], target_id=user_id)
    blocked = (await place(client, root, to="447700900900"))["data"]
    assert blocked["state"] == "HANGUP"
    redirected = (await place(client, root, to="447700900901"))["data"]
    assert (redirected["dst_id"], redirected["context"]) == (str(user_id), "USER_LOCAL")


async def test_a_call_to_an_extension_follows_the_callees_rules(client, root):
    dnd = await create_user(client, HOME, "dnd@example.com", ext="510", dnd=True)
    call = (await place(client, root, to="510"))["data"]
    assert (call["context"], call["dst_id"]) == ("VOICEMAIL", f"voicemail:{dnd}")
    await advance(client, 200)
    (cdr,) = await cdrs_of(client, root, call["id"])
    assert (cdr["type"], cdr["context"], cdr["disposition"], cdr["user_id"]) == ("O", "VOICEMAIL", "VM", root.user_id)
    (message,) = (await get(client, root, "/voicemessages"))["data"]
    assert (message["extension_id"], message["live_id"]) == (dnd, call["id"])
    assert (await get(client, root, f"/users/{dnd}"))["data"]["vm_new"] == 1

    away = await create_user(client, HOME, "away@example.com", ext="511", nb_sip_locations=0, fm=True,
                             fm_strategy="H", fm_targets=[ANSWERS + "1"], final_dst_type="H")  # fmt: skip
    call = (await place(client, root, to="511"))["data"]  # no client: straight on to its follow-me number
    assert (call["context"], call["dst"], call["src_id"]) == ("FOLLOW_ME", ANSWERS + "1", str(root.user_id))
    await advance(client, 6)  # the caller's own client answers after 1 s, the follow-me number 5 s later
    assert (await get(client, root, f"/calls/{call['id']}"))["data"]["state"] == "CONNECTED"
    assert away

    hang_up = await create_user(client, HOME, "hangs@example.com", ext="512", dnd=True, final_dst_type="H")
    call = (await place(client, root, to="512"))["data"]
    await advance(client, 5)
    (cdr,) = await cdrs_of(client, root, call["id"])
    assert (cdr["t_cause"], cdr["disposition"]) == ("user busy", "BUSY")  # nothing takes it: the callee is busy
    assert hang_up


async def test_follow_me_rings_after_its_initial_ring_time_and_only_direct_calls_with_only_direct(client, root):
    user_id = await create_user(client, HOME, "fmi@example.com", ext="520", ring_time="30", fm=True, fm_strategy="A",
                                fm_targets=["447700900200"], fm_init_ring_time=8, fm_only_direct=True,
                                final_dst_type="H")  # fmt: skip
    await provision(client, target_type="U", target_id=user_id)
    call_id = (await ring(client, answer={str(user_id): "never", "447700900200": 2}, hangup_after=40))["data"]["id"]
    await advance(client, 8)  # fm_init_ring_time, not the user's 30 s ring time
    assert (await get(client, root, f"/calls/{call_id}"))["data"]["context"] == "FOLLOW_ME"
    await advance(client, 40)

    ivr = await create(client, root, "ivrs", name="Front", ext_dialing=True, timeout=10)
    response = await client.patch(f"/_telephony/ddis/{NUMBER}", json={"target_type": "I", "target_id": ivr},
                                  headers=CONTROL)  # fmt: skip
    assert response.status == 200, await response.text()
    call_id = (await ring(client, digits=[{"key": "520", "after": 1}], answer={str(user_id): "never"},
                          hangup_after=60))["data"]["id"]  # fmt: skip
    await advance(client, 1)
    _, user_leg = await legs(client, call_id)
    await advance(client, 30)  # not a direct call: no follow-me after the user's ring time, its final destination
    await get(client, root, f"/calls/{user_leg}", status=404)
    (cdr,) = await cdrs_of(client, root, user_leg)
    assert (cdr["type"], cdr["context"], cdr["dst_id"], cdr["parent_live_id"]) == ("M", "PSTN_CALL", str(user_id),
                                                                                   call_id)  # fmt: skip
    assert await states(client, call_id) == ANSWERED


async def test_a_number_belongs_to_one_destination_at_a_time(client, root):
    await provision(client)
    first = await create(client, root, "ringgroups", name="One", ddis=[NUMBER])
    number = (await get(client, root, f"/ddis/{NUMBER}"))["data"]
    assert (number["target_type"], number["target_id"]) == (3, first)
    second = await create(client, root, "queues", name="Two", ddis=[NUMBER])
    number = (await get(client, root, f"/ddis/{NUMBER}"))["data"]
    assert (number["target_type"], number["target_id"]) == (5, second)
    assert (await get(client, root, f"/ringgroups/{first}"))["data"]["ddis"] == []  # moved: an event on both sides
    user_id = await create_user(client, HOME, "owner@example.com")
    response = await client.patch(f"/_telephony/ddis/{NUMBER}", json={"target_type": "U", "target_id": user_id},
                                  headers=CONTROL)  # fmt: skip
    assert response.status == 200
    assert (await get(client, root, f"/queues/{second}"))["data"]["ddis"] == []
    response = await client.patch(f"/_telephony/ddis/{NUMBER}", json={"target_type": "R", "target_id": first},
                                  headers=CONTROL)  # fmt: skip
    assert (await response.json())["data"]["target_type"] == 3
    assert (await get(client, root, f"/ringgroups/{first}"))["data"]["ddis"] == [NUMBER]
    response = await client.patch(f"/v1.2/voipstudio/ringgroups/{first}", json={"ddis": []}, headers=root.headers())
    assert response.status == 200
    number = (await get(client, root, f"/ddis/{NUMBER}"))["data"]
    assert (number["target_type"], number["target_id"]) == (None, None)  # dropped: calls to it go nowhere
    response = await client.post("/_telephony/verify", headers=CONTROL)
    assert (await response.json())["data"]["problem"] is None
    await error_of(await client.get("/v1.2/voipstudio/ddis/+449999999999", headers=root.headers()), 404)


async def test_a_users_call_a_rule_sends_to_a_queue_is_held_there_or_turned_away_under_its_name(client, root):
    queue_id = await create(client, root, "queues", name="Help", users=[])
    await rule(client, root, action="queue", direction=2, destination=["447700900902"], target_id=queue_id)
    call = (await place(client, root, to="447700900902"))["data"]
    assert (call["state"], call["dst_id"]) == ("RINGING", f"queue:{queue_id}")  # the user's own client rings first
    await advance(client, 1)  # it answers, and so does the queue
    live = (await get(client, root, f"/calls/{call['id']}"))["data"]
    assert (live["state"], live["queue_state"]) == ("CONNECTED", "waiting")
    assert live["connected_at"] == live["start_time"] + 1
    await patch(client, root, call["id"], state="hangup")
    response = await client.patch(f"/v1.2/voipstudio/queues/{queue_id}", json={"join_empty": False},
                                  headers=root.headers())  # fmt: skip
    assert response.status == 200, await response.text()
    turned = (await place(client, root, to="447700900902"))["data"]
    await advance(client, 1)
    (cdr,) = await cdrs_of(client, root, turned["id"])
    assert (cdr["type"], cdr["context"], cdr["dst_id"], cdr["dst_name"]) == ("O", "QUEUE", f"queue:{queue_id}", "Help")
    assert (cdr["t_cause"], cdr["disposition"], cdr["billsec"]) == ("no user responding", "NO_ANSWER", 0)
