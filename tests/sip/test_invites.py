"""The INVITE path: a call that rings a user with a browser softphone registered sends an INVITE with an
SDP offer to its socket; what the softphone answers (200, 486, 603), its BYE and the server's CANCEL and
BYE drive the call as the simulator's steps do, and the CDR shows the softphone's user agent."""

from __future__ import annotations

import asyncio

from sipmessage import Request

from tests.accounts.helpers import CONTROL, url
from tests.calls.helpers import advance, cdrs_of, get, states
from tests.calls.test_inbound import provision, ring
from tests.sip.agent import Agent, connected
from tests.sip.test_registrations import UA, register

HOME = 100001


async def softphone(client, root) -> Agent:
    """The root user's softphone, registered, and its number ringing the user."""
    agent = await connected(client, root)
    assert (await register(agent)).code == 200
    await provision(client, target_type="U", target_id=root.user_id)
    return agent


async def answered(client, root) -> tuple[Agent, int, Request]:
    """An inbound call to the root user that its softphone answered: the softphone, the call id, the INVITE."""
    agent = await softphone(client, root)
    call_id = (await ring(client, hangup_after=600))["data"]["id"]
    invite = await agent.request_of("INVITE")
    await agent.answer(invite)
    await agent.request_of("ACK")
    return agent, call_id, invite


async def test_an_inbound_call_invites_the_softphone_which_answers_and_hangs_up_as_the_callee(client, root):
    agent = await softphone(client, root)
    call_id = (await ring(client, hangup_after=600))["data"]["id"]
    invite = await agent.request_of("INVITE")
    assert invite.call_id.startswith(f"{call_id}-") and invite.headers["Content-Type"] == "application/sdp"
    offer = invite.body.decode()
    assert "c=IN IP4 192.0.2.1" in offer and "PCMU/8000" in offer and "opus/48000/2" in offer
    assert str(invite.uri) == f"sip:{agent.user}@{agent.host};transport=ws"
    assert invite.to_address.uri.user == agent.user and invite.from_address.uri.user == "+447700900555"
    await agent.answer(invite)
    ack = await agent.request_of("ACK")
    assert ack.call_id == invite.call_id and ack.to_address.parameters["tag"] == agent.tag
    live = (await get(client, root, f"/calls/{call_id}"))["data"]
    assert (live["state"], live["dst_ua"], live["dst_id"]) == ("CONNECTED", UA, agent.user)
    await advance(client, 30)
    await agent.bye(invite)
    assert (await agent.response()).code == 200
    (cdr,) = await cdrs_of(client, root, call_id)
    assert (cdr["disposition"], cdr["t_cause"], cdr["dst_ua"], cdr["billsec"]) == ("CONNECTED", "normal clearing",
                                                                                 UA, 30)  # fmt: skip
    assert await states(client, call_id) == ["INITIAL", "RINGING", "CONNECTED", "HANGUP"]


async def test_a_rest_hang_up_of_the_answered_call_sends_the_softphone_a_bye(client, root):
    agent, call_id, invite = await answered(client, root)
    assert (await client.delete(url("v1.2", f"/calls/{call_id}"), headers=root.headers())).status == 204
    bye = await agent.request_of("BYE")
    assert bye.call_id == invite.call_id and str(bye.uri) == f"sip:{agent.user}@{agent.host};transport=ws"
    await agent.reply(bye, 200)


async def test_the_caller_hanging_up_while_it_rings_cancels_the_invite(client, root):
    agent = await softphone(client, root)
    call_id = (await ring(client, hangup_after=5))["data"]["id"]
    invite = await agent.request_of("INVITE")
    await agent.reply(invite, 180, "Ringing")
    await advance(client, 5)
    cancel = await agent.request_of("CANCEL")
    assert cancel.call_id == invite.call_id and cancel.headers["Via"] == invite.headers["Via"]
    await agent.reply(cancel, 200)
    await agent.reply(invite, 487, "Request Terminated")
    assert (await agent.request_of("ACK")).cseq.sequence == invite.cseq.sequence
    (cdr,) = await cdrs_of(client, root, call_id)
    assert (cdr["disposition"], cdr["t_cause"]) == ("NO_ANSWER", "originator cancel")


async def test_a_softphone_that_does_not_answer_in_the_ring_time_is_cancelled(client, root):
    agent = await softphone(client, root)
    call_id = (await ring(client, hangup_after=600))["data"]["id"]
    invite = await agent.request_of("INVITE")
    await advance(client, 20)  # the user's ring time
    assert (await agent.request_of("CANCEL")).call_id == invite.call_id
    live = (await get(client, root, f"/calls/{call_id}"))["data"]
    assert (live["context"], live["dst_id"]) == ("VOICEMAIL", f"voicemail:{root.user_id}")


async def test_a_busy_softphone_sends_the_call_on_to_the_users_voicemail_as_a_busy_client_does(client, root):
    agent = await softphone(client, root)
    call_id = (await ring(client, hangup_after=600))["data"]["id"]
    invite = await agent.request_of("INVITE")
    await agent.reply(invite, 486, "Busy Here")
    assert (await agent.request_of("ACK")).call_id == invite.call_id
    live = (await get(client, root, f"/calls/{call_id}"))["data"]
    assert (live["context"], live["dst_id"]) == ("VOICEMAIL", f"voicemail:{root.user_id}")


async def test_a_declining_softphone_ends_the_call_at_the_users_final_destination_with_its_missed_record(client, root):
    agent = await softphone(client, root)
    changed = await client.patch(f"/_telephony/users/{root.user_id}", json={"final_dst_type": "H"}, headers=CONTROL)
    assert changed.status == 200, await changed.text()
    call_id = (await ring(client, hangup_after=600))["data"]["id"]
    invite = await agent.request_of("INVITE")
    await agent.reply(invite, 603, "Decline")
    assert (await agent.request_of("ACK")).call_id == invite.call_id
    cdrs = await cdrs_of(client, root, call_id)
    assert [(c["type"], c["dst_id"], c["dst_ua"], c["disposition"]) for c in cdrs] == [
        ("M", str(root.user_id), UA, "NO_ANSWER")]  # fmt: skip
    assert (await client.get(url("v1.2", f"/calls/{call_id}"), headers=root.headers())).status == 404


async def test_a_user_without_a_softphone_is_still_played_by_the_simulator(client, root):
    await provision(client, target_type="U", target_id=root.user_id)
    call_id = (await ring(client, answer={str(root.user_id): 2}, hangup_after=30))["data"]["id"]
    await advance(client, 2)
    assert (await get(client, root, f"/calls/{call_id}"))["data"]["state"] == "CONNECTED"


async def test_the_softphones_socket_closing_hangs_up_its_answered_call(client, root):
    agent, call_id, invite = await answered(client, root)
    await agent.ws.close()
    for _ in range(100):  # the server learns of the close when the frame arrives
        if (await client.get(url("v1.2", f"/calls/{call_id}"), headers=root.headers())).status == 404:
            break
        await asyncio.sleep(0.02)
    (cdr,) = await cdrs_of(client, root, call_id)
    assert (cdr["disposition"], cdr["t_cause"]) == ("CONNECTED", "normal clearing")


async def test_a_softphone_rings_whatever_the_simulator_would_have_drawn_for_its_user(client, root):
    agent = await softphone(client, root)
    call_id = (await ring(client, answer={str(root.user_id): "busy"}, hangup_after=600))["data"]["id"]
    invite = await agent.request_of("INVITE")
    await agent.answer(invite)
    await agent.request_of("ACK")
    assert (await get(client, root, f"/calls/{call_id}"))["data"]["state"] == "CONNECTED"
