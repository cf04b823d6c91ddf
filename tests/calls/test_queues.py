"""Queues: callers served in the order they joined, ring strategies, wrap-up, limits, the waiting list."""

from __future__ import annotations

import pytest

from tests.accounts.helpers import CONTROL, create_user, error_of
from tests.calls.helpers import advance, call_events, cdrs_of, get, routed, states
from tests.calls.test_inbound import HOME, NUMBER, create, provision, ring


async def agents(client, count: int) -> list[int]:
    return [await create_user(client, HOME, f"agent{n}@example.com", ext=str(400 + n)) for n in range(count)]


async def queue(client, root, members: list[int], **settings) -> int:
    await provision(client)
    body = {"name": "Support", "users": [{"id": m, "status": True} for m in members], "ddis": [NUMBER], **settings}
    return await create(client, root, "queues", **body)


async def state(client, root, call_id: int) -> tuple[str, str]:
    live = (await get(client, root, f"/calls/{call_id}"))["data"]
    return live["queue_state"], live["dst_id"]


async def test_callers_are_served_in_the_order_they_joined(client, root):
    (agent,) = await agents(client, 1)
    queue_id = await queue(client, root, [agent], ring_strategy="linear", ring_time=10, retry=10, max_wait_time=120)
    answers = {str(agent): 1}
    talking = (await ring(client, answer=answers, hangup_after=12))["data"]["id"]  # the agent takes it at once
    await advance(client, 1)
    first = (await ring(client, **{"from": "447700900601"}, answer=answers, hangup_after=100))["data"]["id"]
    await advance(client, 5)
    second = (await ring(client, **{"from": "447700900602"}, answer=answers, hangup_after=100))["data"]["id"]
    line = (await get(client, root, f"/queues/{queue_id}/calls"))["data"]
    assert [(c["id"], c["queue_state"]) for c in line] == [
        (talking, "connected"), (first, "waiting"), (second, "waiting")]  # fmt: skip
    await advance(client, 11)  # the agent is free since 12 s; the second caller looked at 16 s: not its turn
    assert await state(client, root, second) == ("waiting", f"queue:{queue_id}")
    assert await state(client, root, first) == ("waiting", f"queue:{queue_id}")
    await advance(client, 5)  # the first caller looks at 21 s and rings the agent, who answers at 22 s
    assert await state(client, root, first) == ("connected", str(agent))
    assert await state(client, root, second) == ("waiting", f"queue:{queue_id}")
    assert [c["id"] for c in (await get(client, root, f"/queues/{queue_id}/calls"))["data"]] == [first, second]


@pytest.mark.parametrize(
    ("strategy", "rung"),
    [("ringall", [0, 0]), ("linear", [0, 0]), ("rrmemory", [0, 1]), ("leastrecent", [0, 1]), ("fewestcalls", [0, 1])],
)
async def test_each_strategy_picks_the_agent_it_says(client, root, strategy, rung):
    members = await agents(client, 3)
    await queue(client, root, members, ring_strategy=strategy, ring_time=10)
    answers = {str(m): 1 for m in members}
    taken = []
    for n in range(2):
        call_id = (await ring(client, **{"from": f"44770090070{n}"}, answer=answers, hangup_after=5))["data"]["id"]
        await advance(client, 10)
        (cdr,) = await cdrs_of(client, root, call_id)
        assert routed(cdr) == ("I", "QUEUE", None, cdr["dst_id"], None)
        taken.append(members.index(int(cdr["dst_id"])))
    assert taken == rung


async def test_an_agent_rests_for_the_wrap_up_time_after_a_queue_call(client, root):
    (agent,) = await agents(client, 1)
    await queue(client, root, [agent], ring_time=10, retry=5, wrap_up_time=20)
    await ring(client, answer={str(agent): 1}, hangup_after=5)
    await advance(client, 6)  # that call ended at 5 s: the agent wraps up until 25 s
    waiting = (await ring(client, **{"from": "447700900611"}, answer={str(agent): 1}, hangup_after=60))["data"]["id"]
    await advance(client, 18)  # 24 s
    assert (await state(client, root, waiting))[0] == "waiting"
    await advance(client, 3)  # the caller looks again at 26 s: the agent rings and answers
    assert await state(client, root, waiting) == ("connected", str(agent))


async def test_a_full_queue_and_an_empty_one_without_join_empty_send_callers_to_the_final_destination(client, root):
    (agent,) = await agents(client, 1)
    queue_id = await queue(client, root, [], max_callers=1, final_dst_type="V", final_dst_id=agent)
    first = (await ring(client, hangup_after=60))["data"]  # joins: join_empty is on by default
    assert (first["context"], first["queue_state"]) == ("QUEUE", "waiting")
    second = (await ring(client, **{"from": "447700900621"}, hangup_after=60))["data"]
    assert (second["context"], second["dst_id"]) == ("VOICEMAIL", f"voicemail:{agent}")  # the queue is full
    response = await client.patch(f"/v1.2/voipstudio/queues/{queue_id}", json={"join_empty": False, "max_callers": 0},
                                  headers=root.headers())  # fmt: skip
    assert response.status == 200, await response.text()
    third = (await ring(client, **{"from": "447700900622"}, hangup_after=60))["data"]
    assert third["context"] == "VOICEMAIL"  # nobody logged in, and the queue takes no caller then


@pytest.mark.parametrize(("skip_busy", "rung"), [(None, False), (True, False), (False, True)])
async def test_agents_on_a_call_ring_only_when_the_queue_does_not_skip_busy_ones(client, root, skip_busy, rung):
    (agent,) = await agents(client, 1)
    await queue(client, root, [agent], ring_time=10, retry=5, **({} if skip_busy is None else {"skip_busy": skip_busy}))
    first = (await ring(client, answer={str(agent): 1}, hangup_after=60))["data"]["id"]
    await advance(client, 1)
    second = (await ring(client, **{"from": "447700900631"}, answer={str(agent): 1}, hangup_after=60))["data"]
    assert (second["queue_state"] == "ringing") is rung  # with call waiting on (the default) and skip_busy off
    assert (await get(client, root, f"/calls/{first}"))["data"]["state"] == "CONNECTED"


async def test_the_waiting_list_of_a_queue_is_its_customers_own(client, root):
    queue_id = await queue(client, root, [])
    await ring(client, hangup_after=30)
    assert (await get(client, root, f"/queues/{queue_id}/calls"))["total"] == 1
    response = await client.get("/v1.2/voipstudio/queues/999/calls", headers=root.headers())
    await error_of(response, 404)
    response = await client.post("/_telephony/customers", json={"name": "Other", "admin_email": "o@example.com",
                                 "admin_password": "other-pass-123"}, headers=CONTROL)  # fmt: skip
    assert response.status == 201
    other = await client.post("/v1.2/voipstudio/login", json={"email": "o@example.com", "password": "other-pass-123"})
    token = (await other.json())["user_token"]
    response = await client.get(f"/v1.2/voipstudio/queues/{queue_id}/calls", headers={"X-Auth-Token": token})
    await error_of(response, 404)


async def test_an_agent_who_lets_a_queued_call_ring_out_is_not_rung_again_while_another_is_free(client, root):
    slow, quick = await agents(client, 2)
    await queue(client, root, [slow, quick], ring_strategy="linear", ring_time=5)
    call_id = (await ring(client, answer={str(slow): "never", str(quick): 2}, hangup_after=30))["data"]["id"]
    await advance(client, 7)
    rung = [d["dst"].get("user_id") for t, d in await call_events(client, call_id) if t == "call.routed"]
    assert rung == [None, slow, quick]  # the queue answered the caller, then rang its agents
    assert await state(client, root, call_id) == ("connected", str(quick))


def answers(events: list[tuple[str, dict]]) -> list[tuple[str, float]]:
    """The legs a call's answers were of, and when."""
    return [(d["leg"], d["at"]) for t, d in events if t == "call.answered"]


async def test_a_caller_is_answered_as_it_joins_the_queue_and_billed_from_there_when_an_agent_takes_it(client, root):
    (agent,) = await agents(client, 1)
    await queue(client, root, [agent], ring_time=10)
    joined = (await ring(client, answer={str(agent): 4}, hangup_after=40))["data"]
    assert (joined["state"], joined["connected_at"], joined["queue_state"]) == (
        "CONNECTED", joined["start_time"], "ringing")  # the queue answered, then rang its agent  # fmt: skip
    start = (await call_events(client, joined["id"]))[0][1]["at"]
    assert answers(await call_events(client, joined["id"])) == [("dst", start)]
    await advance(client, 4)
    live = (await get(client, root, f"/calls/{joined['id']}"))["data"]
    assert (live["state"], live["connected_at"], live["queue_state"], live["dst_id"]) == (
        "CONNECTED", joined["start_time"], "connected", str(agent))  # fmt: skip
    await advance(client, 40)
    (cdr,) = await cdrs_of(client, root, joined["id"])
    assert routed(cdr) == ("I", "QUEUE", None, str(agent), None) and cdr["user_id"] == agent
    assert (cdr["disposition"], cdr["t_cause"]) == ("CONNECTED", "normal clearing")
    assert cdr["billsec"] == cdr["duration"] > 4  # from joining the queue, not from the agent's answer
    assert answers(await call_events(client, joined["id"])) == [("dst", start), ("dst", start + 4)]
    assert await states(client, joined["id"]) == ["INITIAL", "RINGING", "CONNECTED", "HANGUP"]


async def test_a_caller_who_waits_out_the_queue_is_billed_for_the_wait_and_the_voicemail_after_it(client, root):
    (agent,) = await agents(client, 1)
    queue_id = await queue(client, root, [], retry=5, max_wait_time=20, final_dst_type="V", final_dst_id=agent)
    joined = (await ring(client, hangup_after=50))["data"]
    assert (joined["state"], joined["queue_state"], joined["dst_id"], joined["dst_name"]) == (
        "CONNECTED", "waiting", f"queue:{queue_id}", "Support")  # fmt: skip
    await advance(client, 10)  # the queue looked twice: the caller stays connected, answered once
    assert (await state(client, root, joined["id"])) == ("waiting", f"queue:{queue_id}")
    assert len(answers(await call_events(client, joined["id"]))) == 1
    await advance(client, 10)  # max_wait_time: on to voicemail, in the same call
    live = (await get(client, root, f"/calls/{joined['id']}"))["data"]
    assert (live["state"], live["context"], live["connected_at"]) == ("CONNECTED", "VOICEMAIL", joined["start_time"])
    await advance(client, 60)
    (cdr,) = await cdrs_of(client, root, joined["id"])
    assert routed(cdr) == ("I", "VOICEMAIL", None, f"voicemail:{agent}", None) and cdr["disposition"] == "VM"
    assert cdr["billsec"] == cdr["duration"] > 20  # the wait and the message
    (message,) = (await get(client, root, "/voicemessages"))["data"]
    assert message["duration"] == cdr["billsec"] - 20  # the message alone


@pytest.mark.parametrize(
    ("settings_", "answer", "hangup_after", "billsec"),
    [({}, {}, 7, 7),  # the caller gives up while it waits
     ({"status": True}, "never", 7, 7),  # the caller gives up while an agent rings
     ({"max_wait_time": 12}, {}, 60, 12)],  # the queue's final destination, hang-up, ends it
)  # fmt: skip
async def test_a_caller_no_agent_took_is_billed_for_its_wait_under_the_queues_name(client, root, settings_, answer,
                                                                                    hangup_after, billsec):  # fmt: skip
    (agent,) = await agents(client, 1)
    members = [{"id": agent, "status": settings_.get("status", False)}]
    await provision(client)
    queue_id = await create(client, root, "queues", name="Support", users=members, ddis=[NUMBER], ring_time=10,
                            **{k: v for k, v in settings_.items() if k != "status"})  # fmt: skip
    answered = {str(agent): answer} if answer else {}
    call_id = (await ring(client, answer=answered, hangup_after=hangup_after))["data"]["id"]
    await advance(client, 60)
    (cdr,) = await cdrs_of(client, root, call_id)
    assert routed(cdr) == ("I", "QUEUE", None, f"queue:{queue_id}", None)
    assert (cdr["dst_name"], cdr["user_id"], cdr["disposition"], cdr["t_cause"]) == (
        "Support", None, "CONNECTED", "normal clearing")  # fmt: skip
    assert cdr["billsec"] == cdr["duration"] == billsec


@pytest.mark.parametrize(
    ("settings_", "disposition", "cause"),
    [({"join_empty": False}, "NO_ANSWER", "no user responding"), ({"max_callers": 1}, "BUSY", "user busy")],
)
async def test_a_caller_the_queue_turns_away_leaves_a_missed_record_naming_the_queue(client, root, settings_,
                                                                                      disposition, cause):  # fmt: skip
    queue_id = await queue(client, root, [], **settings_)
    if "max_callers" in settings_:
        await ring(client, **{"from": "447700900641"}, hangup_after=60)  # fills the queue
    turned = (await ring(client))["data"]
    assert turned["state"] == "HANGUP"
    (cdr,) = await cdrs_of(client, root, turned["id"])
    assert routed(cdr) == ("M", "QUEUE", None, f"queue:{queue_id}", None)
    assert (cdr["dst_name"], cdr["dst"], cdr["disposition"], cdr["t_cause"], cdr["billsec"]) == (
        "Support", NUMBER, disposition, cause, 0)  # fmt: skip
