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
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(call_id)))["data"]
    assert (cdr["disposition"], cdr["context"], cdr["type"]) == ("VM", "VOICEMAIL", "I")
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
