"""A queue's caller on the simulator's draws: each agent the queue rings answers as its own draw says
(one draw never decides every agent's answer), each ring that rings records `call.ringing`, and the
caller leaves one call record, whatever its agents did."""

from __future__ import annotations

import msgspec
import pytest

from telephony.config import Simulator
from tests.calls.helpers import advance, call_events, cdrs_of, routed
from tests.calls.test_inbound import ring
from tests.calls.test_queues import agents, queue

RINGS = ("answer", "no_answer")


@pytest.fixture
def settings(settings):
    """Agents mostly busy, none named in the requests: the seed's draws decide (seed 7: the call's own
    draw, which answers the first agent rung, is busy); an answered call talks for ten minutes."""
    simulator = Simulator(seed=7, answer_rate=0.3, busy_rate=0.7, ring_min_seconds=2, ring_max_seconds=4,
                          talk_min_seconds=600, talk_mean_seconds=600)  # fmt: skip
    return msgspec.structs.replace(settings, simulator=simulator)


async def test_each_agent_a_queue_rings_answers_as_its_own_draw_says(client, root):
    members = await agents(client, 3)
    await queue(client, root, members, ring_strategy="linear", ring_time=10, retry=1, max_wait_time=120,
                final_dst_type="V", final_dst_id=members[0])  # fmt: skip
    call_id = (await ring(client, hangup_after=400))["data"]["id"]
    await advance(client, 130)
    events = await call_events(client, call_id)
    rings = [(n, d["plan"]["outcome"]) for n, (t, d) in enumerate(events)
             if t == "call.routed" and d["context"] == "QUEUE" and d["dst"].get("user_id") in members]  # fmt: skip
    assert rings[0][1] == "busy"  # the call's own draw: on its own it would send every agent's ring to voicemail
    assert {outcome for _, outcome in rings} == {"busy", "answer"}
    for n, outcome in rings:  # an agent whose phone rings records it; a busy one refuses at once
        assert (events[n + 1][0] == "call.ringing") is (outcome in RINGS)
    assert [t for t, _ in events[rings[-1][0] :]] == [
        "call.routed",
        "call.ringing",
        "call.answered",
    ]  # an agent took it
    await advance(client, 400)
    (cdr,) = await cdrs_of(client, root, call_id)  # one record: no missed-call record per agent's ring
    assert routed(cdr) == ("I", "QUEUE", None, cdr["dst_id"], None) and int(cdr["dst_id"]) in members
    assert (cdr["disposition"], cdr["user_id"]) == ("CONNECTED", int(cdr["dst_id"]))


async def test_an_agent_who_lets_a_queues_caller_ring_out_keeps_no_missed_call_record(client, root):
    (agent,) = await agents(client, 1)
    await queue(client, root, [agent], ring_time=5, retry=1, max_wait_time=20, final_dst_type="V", final_dst_id=agent)
    call_id = (await ring(client, answer={str(agent): "never"}, hangup_after=60))["data"]["id"]
    await advance(client, 100)
    rang = [t for t, d in await call_events(client, call_id) if t == "call.routed" and d["dst"].get("user_id") == agent]
    assert len(rang) >= 3  # rung again and again until the caller waited out the queue
    (cdr,) = await cdrs_of(client, root, call_id)
    assert routed(cdr) == ("I", "VOICEMAIL", None, f"voicemail:{agent}", None)
