"""Deliveries to a real HTTPS receiver: bodies as the spec's tables, signed, in order per call, retried
on the clock's schedule, inspected per webhook and per call, redelivered, and a failing webhook disabled."""

from __future__ import annotations

import json
import time

import pytest

from telephony.clock import wire_time
from telephony.keys import EVENT_LOG
from telephony.reactors import tracking
from telephony.webhooks.dispatcher import Dispatcher
from telephony.webhooks.dispatcher import _call as dispatcher_call
from tests.accounts.helpers import CONTROL, create_user, login
from tests.calls.conftest import ANSWERS
from tests.calls.helpers import advance, by_live_id, get, patch, place
from tests.webhooks.conftest import delivered
from tests.webhooks.receiver import verified
from tests.webhooks.test_configuration import hook

HOME = 100001
NUMBER = "+442071230000"


async def answered_call(client, root) -> int:
    """A click-to-call that rings, connects and hangs up (the destination answers after 5 s, talks 60 s)."""
    call_id = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    await advance(client, 70)
    return call_id


async def test_an_answered_call_makes_every_state_event_signed_in_order(client, root, receiver):
    secret = (await hook(client, root, url=receiver.url))["data"]["secret"]
    call_id = await answered_call(client, root)
    await delivered(client)
    assert receiver.names(call_id) == ["call.initial", "call.ringing", "call.connected", "call.hangup"]
    now = int(time.time())  # a receiver checks the signature's time against its own clock
    bodies = [verified(secret, headers, body, now) for headers, body in receiver.got]
    assert len({b["id"] for b in bodies}) == 4 and all(h["webhook-id"] == b["id"] for (h, _), b in
                                                         zip(receiver.got, bodies, strict=True))  # fmt: skip
    hangup = bodies[-1]
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(call_id)))["data"]
    assert (hangup["call_id"], hangup["state"], hangup["t_cause"], hangup["destination"]) == (
        cdr["live_id"], "HANGUP", "normal clearing", "out")  # fmt: skip
    assert (hangup["start_time"], hangup["dst"], hangup["duration"]) == (cdr["calldate"], ANSWERS + "1",
                                                                         cdr["duration"])  # fmt: skip
    assert set(hangup) == {"id", "event_time", "event_name", "call_id", "state", "connected_at", "start_time",
                           "context", "destination", "duration", "t_cause", "src", "dst", "src_id", "dst_id",
                           "src_name", "dst_name"}  # fmt: skip
    assert bodies[0]["connected_at"] is None and bodies[2]["connected_at"] == hangup["connected_at"]
    headers, body = receiver.got[0]
    try:
        verified("whsec_" + "A" * 44, headers, body, now)
        raise AssertionError("a wrong secret verified")
    except ValueError:
        pass


async def test_a_click_to_call_rings_once_when_the_destination_rings_not_when_the_callers_own_phone_does(
    client, root, receiver
):
    await hook(client, root, url=receiver.url, events=["call.ringing"])
    placed = (await place(client, root, to=ANSWERS + "1"))["data"]
    await advance(client, 70)
    await delivered(client)
    (ringing,) = receiver.bodies()  # the caller's own client rang first (1 s), then the destination
    events = await client.server.app[EVENT_LOG].read_stream(f"call-{placed['id']}")
    (destination_rang,) = [e for e in events if e.type == "call.ringing" and e.event.leg == "dst"]
    assert ringing["event_time"] == wire_time(destination_rang.event.at)
    assert (ringing["state"], ringing["dst"], ringing["src"]) == ("RINGING", ANSWERS + "1", placed["src"])


async def test_a_missed_inbound_call_and_the_types_a_webhook_chooses(client, root, receiver):
    await hook(client, root, url=receiver.url, events=["call.missed", "call.hangup"])
    user_id = await create_user(client, HOME, "missed@example.com", ring_time="10", final_dst_type="H")
    response = await client.post(f"/_telephony/customers/{HOME}/ddis", json={"e164": NUMBER, "target_type": "U",
                                 "target_id": user_id}, headers=CONTROL)  # fmt: skip
    assert response.status == 201
    response = await client.post("/_telephony/simulate/inbound-call", json={"from": "+447700900555", "to": NUMBER,
                                 "answer": {str(user_id): "never"}}, headers=CONTROL)  # fmt: skip
    call_id = (await response.json())["data"]["id"]
    await advance(client, 10)
    await delivered(client)
    missed, hangup = receiver.bodies()
    assert (missed["event_name"], hangup["event_name"]) == ("call.missed", "call.hangup")
    assert (missed["call_id"], missed["destination"], missed["state"], missed["dst"]) == (call_id, "in", "HANGUP",
                                                                                          NUMBER)  # fmt: skip


async def test_held_resumed_and_transferred_calls(client, root, receiver):
    await hook(client, root, url=receiver.url)
    call_id = (await place(client, root, to=ANSWERS + "2"))["data"]["id"]
    await advance(client, 7)
    await patch(client, root, call_id, state="hold")
    await patch(client, root, call_id, state="unhold")
    child = (await patch(client, root, call_id, dst=ANSWERS + "3"))["data"]["id"]
    await advance(client, 120)
    await delivered(client)
    assert receiver.names(call_id) == ["call.initial", "call.ringing", "call.connected", "call.hold", "call.unhold",
                                       "call.hangup"]  # fmt: skip
    transferred = [b for b in receiver.bodies() if b["call_id"] == call_id][-1]
    assert transferred["t_cause"] == "transferred"
    assert receiver.names(child)[0] == "call.initial" and receiver.names(child)[-1] == "call.hangup"


async def missed_call(client) -> int:
    """An inbound call to a number that hangs up: its events (initial, missed, hangup) all at once."""
    response = await client.post(f"/_telephony/customers/{HOME}/ddis", json={"e164": NUMBER, "target_type": "H"},
                                 headers=CONTROL)  # fmt: skip
    assert response.status == 201
    response = await client.post("/_telephony/simulate/inbound-call", json={"from": "+447700900555", "to": NUMBER},
                                 headers=CONTROL)  # fmt: skip
    return (await response.json())["data"]["id"]


async def test_a_receiver_that_fails_gets_every_event_as_recorded_once_it_recovers(client, root, receiver):
    await hook(client, root, url=receiver.url)
    receiver.failures = 3
    call_id = await missed_call(client)
    await delivered(client)
    assert len(receiver.got) == 1  # the first event failed; the call's others wait behind it
    for wait in (5, 30, 300):  # the schedule: 5 s, 30 s, 5 min (each +-10%)
        await advance(client, wait * 1.1)
        await delivered(client)
    assert receiver.names(call_id) == ["call.initial"] * 4 + ["call.missed", "call.hangup"]
    ids = [headers["webhook-id"] for headers, _ in receiver.got]
    assert ids[:4] == [ids[0]] * 4 and len(set(ids[3:])) == 3  # the same webhook-id on every retry
    assert receiver.got[3][1] == receiver.got[0][1]  # the body as recorded, byte for byte
    deliveries = await (await client.get("/_telephony/webhooks/crm/deliveries?sort=id",
                                         headers=root.headers())).json()  # fmt: skip
    first = deliveries["data"][0]
    assert deliveries["total"] == 3 and first["attempts"] == 4 and first["status"] == "delivered"
    assert [a["status"] for a in first["history"]] == [500, 500, 500, 204]
    assert first["history"][0]["excerpt"] == "not now" and first["history"][0]["latency_ms"] >= 0


@pytest.mark.parametrize("disable_after", [200_000.0])
async def test_a_delivery_is_given_up_after_the_last_retry(client, root, receiver):
    await hook(client, root, url=receiver.url, events=["call.hangup"])
    receiver.failures = 100
    await missed_call(client)
    await delivered(client)
    for wait in (5, 30, 300, 1800, 7200, 18000, 36000, 36000):
        await advance(client, wait * 1.1)
        await delivered(client)
    assert len(receiver.got) == 9  # the first attempt and eight retries
    root = await login(client, "v1.2", "admin@example.com", "change-me-now")  # a day went by
    (delivery,) = (await (await client.get("/_telephony/webhooks/crm/deliveries", headers=root.headers())).json())[
        "data"]  # fmt: skip
    assert (delivery["status"], delivery["attempts"], delivery["next_at"]) == ("failed", 9, None)
    webhook = (await (await client.get("/_telephony/webhooks/crm", headers=root.headers())).json())["data"]
    assert webhook["enabled"] is True and webhook["failing_since"] is not None


async def test_a_webhook_failing_longer_than_disable_after_is_disabled_and_its_root_mailed(client, root, receiver):
    await hook(client, root, url=receiver.url, events=["call.hangup"])
    receiver.failures = 100
    await missed_call(client)
    await delivered(client)
    for wait in (5, 30, 300, 1800, 7200):  # 2.6 hours of failures: over the hour `disable_after` allows
        await advance(client, wait * 1.1)
        await delivered(client)
    assert len(receiver.got) == 6
    root = await login(client, "v1.2", "admin@example.com", "change-me-now")
    webhook = (await (await client.get("/_telephony/webhooks/crm", headers=root.headers())).json())["data"]
    assert webhook["enabled"] is False and webhook["disabled_reason"].startswith("Every delivery failed since")
    outbox = (await (await client.get("/_telephony/outbox?to=admin@example.com", headers=CONTROL)).json())["data"]
    assert any(m["subject"] == "Webhook crm disabled" for m in outbox)
    await missed_call_again(client)
    await advance(client, 40000)
    await delivered(client)
    assert len(receiver.got) == 6  # a disabled webhook gets nothing, and its pending delivery waits
    root = await login(client, "v1.2", "admin@example.com", "change-me-now")
    receiver.failures = 0
    response = await client.patch("/_telephony/webhooks/crm", json={"enabled": True}, headers=root.headers())
    assert (await response.json())["data"]["failing_since"] is None
    await delivered(client)
    assert len(receiver.got) == 7 and receiver.names()[-1] == "call.hangup"


async def missed_call_again(client, n: int = 6) -> int:
    response = await client.post("/_telephony/simulate/inbound-call", json={"from": f"+44770090055{n}", "to": NUMBER},
                                 headers=CONTROL)  # fmt: skip
    assert response.status == 201
    return (await response.json())["data"]["id"]


async def test_failed_deliveries_are_listed_by_status_and_redelivered_with_the_same_id(client, root, receiver):
    await hook(client, root, url=receiver.url, events=["call.connected"])
    receiver.status = 410
    call_id = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    await advance(client, 6)  # the destination answers at 6 s
    await delivered(client)
    failing = json.dumps([{"property": "status", "operator": "=", "value": "pending"}])
    listed = await (await client.get(f"/_telephony/webhooks/crm/deliveries?filter={failing}",
                                     headers=root.headers())).json()  # fmt: skip
    (pending,) = listed["data"]
    assert (pending["call_id"], pending["event_name"], pending["history"][0]["status"]) == (call_id, "call.connected",
                                                                                           410)  # fmt: skip
    receiver.status = 200
    response = await client.post(f"/_telephony/deliveries/{pending['id']}/redeliver", headers=root.headers())
    again = (await response.json())["data"]
    assert response.status == 201 and again["event_id"] == pending["event_id"] and again["id"] != pending["id"]
    await advance(client, 6)  # the retry is delivered, then the delivery queued behind it
    await delivered(client)
    assert [h["webhook-id"] for h, _ in receiver.got] == [pending["event_id"]] * 3
    await advance(client, 70)
    flow = (await (await client.get(f"/_telephony/calls/{call_id}/deliveries", headers=root.headers())).json())["data"]
    assert [s["state"] for s in flow["states"]] == ["INITIAL", "ACCEPTED", "RINGING", "CONNECTED", "HANGUP"]
    connected = next(e for e in flow["events"] if e["event_name"] == "call.connected")
    assert sorted(d["status"] for d in connected["deliveries"]) == ["delivered", "delivered"]
    assert len(flow["events"]) == 4 and all(not e["deliveries"] for e in flow["events"] if e is not connected)
    response = await client.get("/_telephony/calls/999/deliveries", headers=root.headers())
    assert response.status == 404


async def test_a_dead_receiver_is_probed_once_per_retry_and_holds_back_only_its_own(client, root, aiohttp_server,
                                                                                    ca):  # fmt: skip
    from tests.webhooks.receiver import Receiver, start

    live, dead = await start(aiohttp_server, ca, Receiver()), await start(aiohttp_server, ca, Receiver())
    await hook(client, root, url=live.url)
    await hook(client, root, name="down", url=dead.url)
    dead.failures = 1000
    response = await client.post(f"/_telephony/customers/{HOME}/ddis", json={"e164": NUMBER, "target_type": "H"},
                                 headers=CONTROL)  # fmt: skip
    assert response.status == 201
    calls = [await missed_call_again(client, n) for n in range(3)]
    await delivered(client)
    burst = len(dead.got)  # the calls' first events went out together; their failure tells the receiver is down
    assert len(live.got) == 9 and 1 <= burst <= 3
    await advance(client, 5.5)
    await delivered(client)
    assert len(dead.got) == burst + 1  # at the retry, one attempt (the probe) while the others wait
    dead.failures = 0
    await advance(client, 33)
    await delivered(client)
    assert len(live.got) == 9 and len(dead.got) == burst + 1 + 9  # back: every event, each call in order
    for call_id in calls:
        names = dead.names(call_id)  # failed attempts come again first: in order, with repeats
        assert [n for i, n in enumerate(names) if not i or names[i - 1] != n] == ["call.initial", "call.missed",
                                                                                  "call.hangup"]  # fmt: skip


async def test_a_received_sms_is_delivered_as_the_specs_event(client, root, receiver):
    await hook(client, root, url=receiver.url, events=["sms.received"])
    user_id = await create_user(client, HOME, "texts@example.com")
    response = await client.post(f"/_telephony/customers/{HOME}/ddis", json={"e164": NUMBER, "sms_enabled": True,
                                 "target_type": "U", "target_id": user_id}, headers=CONTROL)  # fmt: skip
    assert response.status == 201
    response = await client.post("/_telephony/simulate/inbound-sms", json={"from": "+447700900555", "to": NUMBER,
                                 "text": "Call me back"}, headers=CONTROL)  # fmt: skip
    received = (await response.json())["data"]
    await missed_call_again(client)  # a call: not chosen, not delivered
    await delivered(client)
    (body,) = receiver.bodies()
    assert body == {"id": body["id"], "event_time": received["created_at"], "event_name": "sms.received",
                    "customer_id": HOME, "user_id": user_id, "from_no": "+447700900555", "to_no": NUMBER,
                    "text": "Call me back"}  # fmt: skip


async def test_while_no_webhook_exists_a_call_costs_the_dispatcher_no_transaction(client, root, receiver):
    """Until some customer has a webhook, the dispatcher passes call events over without recording its
    position for each; once one exists, the next call is delivered whole and recorded to its end; once
    it is deleted, calls cost no transaction again."""
    event_log = client.server.app[EVENT_LOG]

    async def recorded() -> int:
        return await event_log.query(lambda conn: tracking.position(conn, Dispatcher.name, default=0))

    unseen = await answered_call(client, root)
    await delivered(client)
    (placed,) = await event_log.read(types=["call.placed"])
    assert await recorded() < placed.position
    await hook(client, root, url=receiver.url)
    seen = await answered_call(client, root)
    await delivered(client)
    assert receiver.names(unseen) == []
    assert receiver.names(seen) == ["call.initial", "call.ringing", "call.connected", "call.hangup"]
    last_call_event = max(e.position for e in await event_log.read(types=["call.ended"]))
    assert await recorded() >= last_call_event
    assert (await client.delete("/_telephony/webhooks/crm", headers=root.headers())).status == 204
    after = await answered_call(client, root)
    await delivered(client)
    assert receiver.names(after) == []
    placed_after = max(e.position for e in await event_log.read(types=["call.placed"]))
    assert await recorded() < placed_after


async def test_a_webhook_gets_only_what_happened_after_it_was_created(client, root, receiver):
    """However late the dispatcher reacts to an event (behind the log, or resuming after a crash from
    its last recorded position), a webhook created after that event is not sent it."""
    event_log = client.server.app[EVENT_LOG]
    await answered_call(client, root)
    await delivered(client)
    before = await event_log.read(types=["call.ended"])
    await hook(client, root, url=receiver.url)
    await answered_call(client, root)
    await delivered(client)
    (_, after) = await event_log.read(types=["call.ended"])
    late = await event_log.query(lambda conn: dispatcher_call(conn, before[0], before[0].event))
    assert late == []
    again = await event_log.query(lambda conn: dispatcher_call(conn, after, after.event))
    assert [e.event.event_name for e in again] == ["call.hangup"]


async def test_a_queue_caller_is_connected_once_as_it_joins_whether_an_agent_takes_it_or_not(client, root, receiver):
    await hook(client, root, url=receiver.url)
    agent = await create_user(client, HOME, "agent@example.com", ext="401")
    response = await client.post(f"/_telephony/customers/{HOME}/ddis", json={"e164": NUMBER}, headers=CONTROL)
    assert response.status == 201
    response = await client.post("/v1.2/voipstudio/queues", json={"name": "Support", "ddis": [NUMBER],
                                 "users": [{"id": agent, "status": True}]}, headers=root.headers())  # fmt: skip
    queue_id = (await response.json())["data"]["id"]
    response = await client.post("/_telephony/simulate/inbound-call", json={"from": "+447700900555", "to": NUMBER,
                                 "answer": {str(agent): 4}, "hangup_after": 20}, headers=CONTROL)  # fmt: skip
    call_id = (await response.json())["data"]["id"]
    await advance(client, 20)
    await delivered(client)
    assert receiver.names(call_id) == ["call.initial", "call.ringing", "call.connected", "call.ringing", "call.hangup"]
    _, _, connected, agent_rings, hangup = receiver.bodies()
    assert (connected["dst_id"], connected["connected_at"]) == (f"queue:{queue_id}", connected["start_time"])
    assert (agent_rings["dst_id"], agent_rings["state"]) == (str(agent), "CONNECTED")
    assert (hangup["dst_id"], hangup["connected_at"]) == (str(agent), connected["start_time"])
    response = await client.patch(f"/v1.2/voipstudio/queues/{queue_id}", json={"users": []}, headers=root.headers())
    assert response.status == 200
    response = await client.post("/_telephony/simulate/inbound-call", json={"from": "+447700900556", "to": NUMBER,
                                 "hangup_after": 5}, headers=CONTROL)  # fmt: skip
    abandoned = (await response.json())["data"]["id"]  # no agent: the caller waits, then hangs up
    await advance(client, 5)
    await delivered(client)
    assert receiver.names(abandoned) == ["call.initial", "call.ringing", "call.connected", "call.hangup"]
    assert receiver.bodies()[-1]["dst_id"] == f"queue:{queue_id}"
