"""Fault rules on webhook deliveries: a dropped POST reaches the receiver as its redelivery, with the
same `webhook-id`; a duplicated one arrives twice; a delayed one waits. The receiver is real (HTTPS)."""

from __future__ import annotations

import time

from tests.calls.conftest import ANSWERS
from tests.calls.helpers import advance, place
from tests.faults.helpers import add_fault, listed_faults
from tests.webhooks.conftest import delivered
from tests.webhooks.test_configuration import hook


async def connected_under(client, root, receiver, **rule) -> None:
    """A webhook of `call.connected` to the receiver, a fault rule, and a call the destination answers
    (its `call.connected` queued, not yet sent)."""
    await hook(client, root, url=receiver.url, events=["call.connected"])
    await add_fault(client, **rule)
    await place(client, root, to=ANSWERS + "1")
    await advance(client, 6)


async def deliveries(client, root) -> list[dict]:
    response = await client.get("/_telephony/webhooks/crm/deliveries?sort=id", headers=root.headers())
    return (await response.json())["data"]


async def test_a_webhook_drop_rule_makes_the_receiver_see_the_redelivery_with_the_same_webhook_id(
    client, root, receiver
):
    await hook(client, root, url=receiver.url)
    fault_id = (await add_fault(client, webhook="crm", drop=True, count=1))["data"]["id"]
    call_id = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    await delivered(client)
    assert receiver.got == []  # dropped on the way: nothing arrived, the call's next events wait behind it
    (first, *_) = await deliveries(client, root)
    assert (first["status"], first["attempts"]) == ("pending", 1)
    assert (first["history"][0]["status"], first["history"][0]["error"]) == (None, f"fault {fault_id}: dropped")
    await advance(client, 5.5)  # the first retry (5 s +-10%)
    await delivered(client)
    await advance(client, 70)
    await delivered(client)
    assert receiver.names(call_id) == ["call.initial", "call.ringing", "call.connected", "call.hangup"]
    assert receiver.got[0][0]["webhook-id"] == first["event_id"]
    (first, *_) = await deliveries(client, root)
    assert (first["status"], [a["status"] for a in first["history"]]) == ("delivered", [None, 204])
    (rule,) = await listed_faults(client)
    assert (rule["matched"], rule["fired"], rule["active"]) == (1, 1, False)


async def test_a_duplicate_rule_sends_a_delivery_twice_with_the_same_webhook_id(client, root, receiver):
    await connected_under(client, root, receiver, webhook="cr*", duplicate=True)
    await delivered(client)
    (one, two) = receiver.got
    assert one[0]["webhook-id"] == two[0]["webhook-id"] and one[1] == two[1]
    assert [d["attempts"] for d in await deliveries(client, root)] == [1]  # one attempt, recorded once


async def test_a_delay_rule_holds_the_post_back_for_its_milliseconds(client, root, receiver):
    await connected_under(client, root, receiver, webhook="crm", delay_ms=300, count=1)
    started = time.perf_counter()  # real time, by design: it is the receiver's wait
    await delivered(client)
    assert len(receiver.got) == 1 and time.perf_counter() - started >= 0.3


async def test_a_rule_for_another_webhook_leaves_this_one_alone(client, root, receiver):
    await connected_under(client, root, receiver, webhook="erp", drop=True)
    await delivered(client)
    assert receiver.names() == ["call.connected"]
    (rule,) = await listed_faults(client)
    assert rule["matched"] == 0
