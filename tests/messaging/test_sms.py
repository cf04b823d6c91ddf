"""SMS both ways: sending with its from-number rules, parts and charge, delivery on the clock,
threads and deletes; receiving on an SMS-enabled number, stored, mailed."""

from __future__ import annotations

import pytest

from tests.accounts.helpers import CONTROL, create_user, error_of, login
from tests.calls.helpers import advance, get
from tests.calls.test_voicemail_mail import settled

HOME = 100001
LINE = "+442071230001"
OTHER_LINE = "+442071230002"
TO = "+447700900123"


async def number(client, e164: str = LINE, **fields) -> None:
    response = await client.post(f"/_telephony/customers/{HOME}/ddis", json={"e164": e164, "sms_enabled": True,
                                 **fields}, headers=CONTROL)  # fmt: skip
    assert response.status == 201, await response.text()


async def send(client, creds, status: int = 201, **body) -> dict:
    response = await client.post("/v1.2/voipstudio/sms", json={"to": TO, "message": "Hello", **body},
                                 headers=creds.headers())  # fmt: skip
    answer = await response.json()
    assert response.status == status, answer
    return answer


async def test_an_sms_is_sent_from_an_sms_number_counted_charged_and_delivered_on_the_clock(client, root):
    assert "No SMS-enabled number" in (await send(client, root, 412))["message"]
    await number(client)
    sent = (await send(client, root, message="Your code is {1234} € " + "x" * 150))["data"]
    assert (sent["from"], sent["to"], sent["type"], sent["result"], sent["user_id"]) == (LINE, TO, "out", "QUEUED",
                                                                                          root.user_id)  # fmt: skip
    assert (sent["encoding"], sent["length"], sent["parts"], sent["charge"]) == ("GSM-7", 175, 2, 0.08)
    await advance(client, 1)
    assert (await get(client, root, f"/sms/{sent['id']}"))["data"]["result"] == "SENT"
    await advance(client, 3)
    delivered = (await get(client, root, f"/sms/{sent['id']}"))["data"]
    assert delivered["result"] == "DELIVERED" and delivered["delivered_at"] is not None
    assert (await get(client, root, "/me"))["data"]["balance"] == -0.08
    (invoice,) = (await get(client, root, "/transactions"))["data"]
    assert invoice["amount"] == -0.08
    unicode = (await send(client, root, message="Zażółć gęślą jaźń"))["data"]
    assert (unicode["encoding"], unicode["parts"]) == ("UCS-2", 1)


async def test_from_must_be_an_sms_number_or_the_users_activated_mobile(client, root):
    await number(client)
    assert (await send(client, root, 400, **{"from": "+442079999999"}))["errors"][0]["field"] == "from"
    user_id = await create_user(client, HOME, "texter@example.com", mobile="+447700900777", mobile_activated=True)
    texter = await login(client, "v1.2", "texter@example.com", "correct-horse-battery-staple")
    assert (await send(client, texter, **{"from": "447700900777"}))["data"]["from"] == "+447700900777"
    await number(client, OTHER_LINE, target_type="U", target_id=user_id)
    assert (await send(client, texter))["data"]["from"] == OTHER_LINE  # the number that rings the user
    assert (await send(client, root))["data"]["from"] == LINE  # else the customer's first


@pytest.mark.parametrize("failure_rate", [1.0])
async def test_an_sms_that_cannot_be_delivered_fails_with_a_reason(client, root):
    await number(client)
    sent = (await send(client, root))["data"]
    await advance(client, 5)
    failed = (await get(client, root, f"/sms/{sent['id']}"))["data"]
    assert failed["result"] == "FAILED" and failed["failure_reason"] in (
        "unknown subscriber", "absent subscriber", "network failure")  # fmt: skip


async def test_threads_list_a_conversation_both_ways_and_delete_empties_the_list(client, root):
    user_id = await create_user(client, HOME, "owner@example.com")
    owner = await login(client, "v1.2", "owner@example.com", "correct-horse-battery-staple")
    await number(client, target_type="U", target_id=user_id)
    await send(client, owner, message="First")
    await advance(client, 10)
    response = await client.post("/_telephony/simulate/inbound-sms", json={"from": TO, "to": LINE, "text": "Reply"},
                                 headers=CONTROL)  # fmt: skip
    assert response.status == 201
    await send(client, owner, message="Third")
    for path in (f"/users/{user_id}/smsthreads/{LINE}/{TO}", f"/users/{user_id}/sms/threads/{TO}/{LINE}"):
        thread = (await get(client, root, path + "?sort=created_at"))["data"]
        assert [s["message"] for s in thread] == ["First", "Reply", "Third"]
    assert (await get(client, root, "/sms"))["total"] == 3
    response = await client.delete("/v1.2/voipstudio/sms", headers=root.headers())
    assert response.status == 202
    assert (await get(client, root, "/sms"))["total"] == 0


async def test_an_inbound_sms_is_stored_for_the_numbers_user_and_mailed(client, root):
    user_id = await create_user(client, HOME, "inbox@example.com", first_name="Ina")
    await number(client, target_type="U", target_id=user_id, sms_email="sms@example.com")
    contact = await client.post("/v1.2/voipstudio/contacts", json={"first_name": "Carl", "mobile": TO},
                                headers=root.headers())  # fmt: skip
    contact_id = (await contact.json())["data"]["id"]
    response = await client.post("/_telephony/simulate/inbound-sms", json={"from": TO, "to": LINE,
                                 "text": "Are you open?"}, headers=CONTROL)  # fmt: skip
    received = (await response.json())["data"]
    assert (received["type"], received["result"], received["user_id"]) == ("in", "RECEIVED", user_id)
    assert received["to_name"] == "Ina"
    assert (received["from_id"], received["from_name"]) == (f"contact:{contact_id}", "Carl")
    await settled(client)
    (mail,) = (await (await client.get("/_telephony/outbox?to=sms@example.com", headers=CONTROL)).json())["data"]
    assert mail["subject"] == f"SMS from {TO}"
    await error_of(await client.post("/_telephony/simulate/inbound-sms", json={"from": TO, "to": "+442070000000",
                                     "text": "x"}, headers=CONTROL), 404)  # fmt: skip
    await client.post(f"/_telephony/customers/{HOME}/ddis", json={"e164": OTHER_LINE}, headers=CONTROL)
    refused = await client.post("/_telephony/simulate/inbound-sms", json={"from": TO, "to": OTHER_LINE, "text": "x"},
                                headers=CONTROL)  # fmt: skip
    assert (await error_of(refused, 400))["errors"][0]["field"] == "to"
