"""The event stream: a call's webhook events with the bodies a webhook gets, SMS and delivery events,
one customer's only for its admin, resumed after Last-Event-ID, with heartbeats, ended at shutdown."""

from __future__ import annotations

import asyncio
import json
import time

import msgspec
import pytest

from telephony.config import Stream
from telephony.keys import EVENT_LOG
from tests.accounts.helpers import CONTROL, PASSWORD, create_customer, create_user, login
from tests.calls.conftest import ANSWERS, NO_ANSWER
from tests.calls.helpers import advance, place
from tests.stream.streams import PATH, opened
from tests.webhooks.conftest import delivered
from tests.webhooks.test_configuration import hook

HOME = 100001


@pytest.fixture
def settings(settings):
    """Heartbeats every 50 ms: the streams of these tests carry them between their messages."""
    return msgspec.structs.replace(settings, stream=Stream(heartbeat_seconds=0.05))


async def test_a_call_streams_as_the_webhook_events_it_makes_with_the_bodies_a_webhook_gets(client, root, receiver):
    await hook(client, root, url=receiver.url)
    stream = await opened(client, events="call.*,webhook.delivery_queued")
    call_id = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    await advance(client, 70)
    await delivered(client)
    taken = await stream.take(8)
    calls = [m for m in taken if m.name.startswith("call.")]
    assert [m.name for m in calls] == ["call.initial", "call.ringing", "call.connected", "call.hangup"]
    queued = {json.loads(m.data)["event_id"]: json.loads(m.data)["body"] for m in taken if m not in calls}
    assert [queued[json.loads(m.data)["id"]] for m in calls] == [m.data for m in calls]  # byte for byte
    assert [h["webhook-id"] for h, _ in receiver.got] == [json.loads(m.data)["id"] for m in calls]
    recorded = {e.position: e.type for e in await client.app[EVENT_LOG].read_stream(f"call-{call_id}")}
    assert [recorded[m.position] for m in calls] == ["call.placed", "call.ringing", "call.answered", "call.ended"]
    assert all(json.loads(m.data)["id"] == f"evt_{m.position}_0" for m in calls)


async def test_a_missed_calls_end_is_two_messages_under_one_id(client, root):
    stream = await opened(client, events="call.missed,call.hangup")
    await place(client, root, to=NO_ANSWER + "1")
    await advance(client, 40)
    missed, hangup = await stream.take(2)
    assert (missed.name, hangup.name, missed.position) == ("call.missed", "call.hangup", hangup.position)
    assert (missed.index, hangup.index) == (0, 1)


async def test_sms_and_delivery_events_come_under_their_names(client, root, receiver):
    await hook(client, root, url=receiver.url, events=["sms.received"])
    response = await client.post(f"/_telephony/customers/{HOME}/ddis", json={"e164": "+442071230000",
                                 "sms_enabled": True}, headers=CONTROL)  # fmt: skip
    assert response.status == 201
    stream = await opened(client, events="sms.*,webhook.*")
    response = await client.post("/_telephony/simulate/inbound-sms", json={"from": "+447700900123",
                                 "to": "+442071230000", "text": "Call me back"}, headers=CONTROL)  # fmt: skip
    assert response.status == 201
    await delivered(client)
    received, queued, attempted = await stream.take(3)
    body = json.loads(received.data)
    assert received.name == "sms.received"
    assert (body["from_no"], body["to_no"], body["text"]) == ("+447700900123", "+442071230000", "Call me back")
    assert (queued.name, json.loads(queued.data)["body"]) == ("webhook.delivery_queued", received.data)
    assert (attempted.name, json.loads(attempted.data)["outcome"]) == ("webhook.delivery_attempted", "delivered")


async def test_a_customers_root_or_admin_sees_its_own_customers_events_only(client, root):
    other_id, _ = await create_customer(client, "Other Ltd", "root@other.test")
    other = await login(client, "v1.2", "root@other.test", PASSWORD)
    mine = await opened(client, headers=other.headers())
    operator = await opened(client, customer_id=str(other_id))
    await place(client, root, to=ANSWERS + "1")  # the bootstrap customer's call: neither sees it
    theirs = (await place(client, other, to=ANSWERS + "2"))["data"]["id"]
    (seen,) = await mine.take(1)
    assert (seen.name, json.loads(seen.data)["call_id"]) == ("call.initial", theirs)
    assert [json.loads(m.data)["call_id"] for m in await operator.take(1)] == [theirs]
    agent_id = await create_user(client, other_id, "agent@other.test")
    agent = await login(client, "v1.2", "agent@other.test", PASSWORD)
    assert agent.user_id == agent_id
    await opened(client, headers=agent.headers(), status=403)
    await opened(client, headers=other.headers(), status=403, customer_id=str(HOME))
    await opened(client, headers={}, status=401)
    await opened(client, headers={"X-Control-Key": "wrong"}, status=401)


async def test_last_event_id_resumes_after_that_position(client, root):
    await place(client, root, to=ANSWERS + "1")
    await advance(client, 70)
    everything = await (await opened(client, headers={**CONTROL, "Last-Event-ID": "0"})).take(4)
    assert [m.name for m in everything] == ["call.initial", "call.ringing", "call.connected", "call.hangup"]
    resumed = await opened(client, headers={**CONTROL, "Last-Event-ID": str(everything[1].position)})
    assert await resumed.take(2) == everything[2:]
    head = client.app[EVENT_LOG].position
    for bad, said in ((str(head + 1), "past the end of this log"), ("seven", "a whole number")):
        response = await client.get(PATH, headers={**CONTROL, "Last-Event-ID": bad})
        (error,) = (await response.json())["errors"]
        assert response.status == 400 and error["field"] == "Last-Event-ID" and said in error["message"]


async def test_without_last_event_id_the_stream_starts_when_its_answer_starts(client, root):
    await place(client, root, to=ANSWERS + "1")  # before the stream: not in it
    stream = await opened(client)
    second = (await place(client, root, to=ANSWERS + "2"))["data"]["id"]
    (first,) = await stream.take(1)
    assert json.loads(first.data)["call_id"] == second


@pytest.mark.parametrize("query", [{"events": "call.*;drop"}, {"events": ""}, {"customer_id": "me"}])
async def test_a_bad_filter_is_a_400_naming_it(client, query):
    response = await client.get(PATH, headers=CONTROL, params=query)
    assert response.status == 400 and (await response.json())["errors"][0]["field"] == next(iter(query))


async def test_a_quiet_stream_sends_heartbeats(client):
    response = await client.get(PATH, headers=CONTROL)
    assert response.headers["Content-Type"] == "text/event-stream" and response.headers["Cache-Control"] == "no-cache"
    lines = [await asyncio.wait_for(response.content.readline(), 5) for _ in range(4)]
    assert lines == [b": stream open\n", b"\n", b": heartbeat\n", b"\n"]


async def test_the_stream_ends_cleanly_when_the_server_stops(client, root):
    stream = await opened(client)
    await place(client, root, to=ANSWERS + "1")
    await stream.take(1)
    started = time.perf_counter()
    await client.server.close()
    await asyncio.wait_for(stream.response.content.read(), 5)  # the body's end, not a broken connection
    assert stream.response.content.at_eof() and time.perf_counter() - started < 5


async def test_the_openapi_document_says_who_may_follow_the_stream(client):
    document = await (await client.get("/_telephony/openapi.json")).json()
    operation = document["paths"][PATH]["get"]
    assert operation["security"] == [{"ControlKey": []}, {"XAuthToken": []}, {"BasicAuth": []}]
    assert "text/event-stream" in operation["responses"]["200"]["content"]
