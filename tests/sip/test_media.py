"""WebRTC media of the calls that reach a browser softphone (a Python one here, aiortc over the test
agent; tests/sip/test_media_browser.py has Chromium): the INVITE (of an inbound call, of a
click-to-call's callee) offers audio on the address the phone reached the server at; once the
phone's answer is recorded its tone is heard and the far end's played; the leg's end (either side's
BYE, a CANCEL) closes the media; an answer with no usable codec fails the leg; above
`[sip] max_media_calls` the INVITE carries no media; garbage on the media port stops nothing."""

from __future__ import annotations

import asyncio
import os
import re
import socket

import msgspec
import pytest

from telephony.config import Sip
from tests.accounts.helpers import CONTROL, PASSWORD, login, url
from tests.calls.conftest import ANSWERS
from tests.calls.helpers import advance, cdrs_of, get, states
from tests.calls.test_inbound import ring
from tests.sip.phone import Phone, answer_with, browser_softphone, dominant_hz, media_of, media_tasks, within

CALLER_HZ = 900
"""The tone of the simulated caller +447700900555 (700 Hz + 40 Hz × its last digit)."""
PHONE_HZ = 600


def candidate_port(offer: bytes) -> int:
    (port,) = re.findall(r"a=candidate:\S+ 1 udp \d+ 127\.0\.0\.1 (\d+) typ host", offer.decode())
    return int(port)


async def test_a_browser_softphone_answering_an_inbound_call_hears_the_caller_and_is_heard(client, root):
    agent = await browser_softphone(client, root)
    call_id = (await ring(client, hangup_after=600))["data"]["id"]
    invite = await agent.request_of("INVITE")
    offer = invite.body.decode()
    assert "192.0.2.1" not in offer and candidate_port(invite.body) > 1024
    assert [codec for codec in re.findall(r"a=rtpmap:\d+ ([^/]+)/", offer)] == ["opus", "PCMU", "PCMA"]
    phone = Phone(PHONE_HZ)
    try:
        await answer_with(agent, invite, await phone.answer(invite.body))
        await agent.request_of("ACK")
        (session,) = media_of(client).sessions
        await within(lambda: dominant_hz(session.heard) is not None and dominant_hz(phone.heard) is not None,
                     "a second of audio was not heard both ways")  # fmt: skip
        assert abs(dominant_hz(session.heard) - PHONE_HZ) <= 20 and abs(dominant_hz(phone.heard) - CALLER_HZ) <= 20
        assert session.connected_at is not None and session.heard.frames >= 50
        await advance(client, 30)
        await agent.bye(invite)
        assert (await agent.response()).code == 200
        await within(lambda: media_of(client).busy == 0 and not media_tasks(), "the media did not close")
        assert session.pc.connectionState == "closed"
    finally:
        await phone.close()
    (cdr,) = await cdrs_of(client, root, call_id)
    assert (cdr["disposition"], cdr["t_cause"], cdr["billsec"]) == ("CONNECTED", "normal clearing", 30)
    assert await states(client, call_id) == ["INITIAL", "RINGING", "CONNECTED", "HANGUP"]


async def test_the_callee_of_a_click_to_call_hears_its_caller_until_a_rest_hang_up_closes_the_media(client, root):
    made = await client.post("/_telephony/customers/100001/users", headers=CONTROL,
                             json={"email": "callee@example.com", "password": PASSWORD, "ext": "205"})  # fmt: skip
    assert made.status == 201, await made.text()
    callee = await login(client, "v1.2", "callee@example.com", PASSWORD)
    agent = await browser_softphone(client, callee)
    placed = await client.post(url("v1.2", "/calls"), json={"to": "205"}, headers=root.headers())
    call_id = (await placed.json())["data"]["id"]
    await advance(client, 2)  # the caller's own side answers (the simulator's), then the callee rings
    invite = await agent.request_of("INVITE")
    phone = Phone(PHONE_HZ)
    try:
        await answer_with(agent, invite, await phone.answer(invite.body))
        await agent.request_of("ACK")
        (session,) = media_of(client).sessions
        await within(lambda: dominant_hz(phone.heard) is not None and dominant_hz(session.heard) is not None,
                     "a second of audio was not heard both ways")  # fmt: skip
        assert abs(dominant_hz(phone.heard) - (700 + 40 * (root.user_id % 10))) <= 20  # the caller, a user
        assert abs(dominant_hz(session.heard) - PHONE_HZ) <= 20
        response = await client.delete(url("v1.2", f"/calls/{call_id}"), headers=root.headers())
        assert response.status == 204, await response.text()
        await agent.request_of("BYE")
        await within(lambda: media_of(client).busy == 0 and not media_tasks(), "the BYE did not close the media")
    finally:
        await phone.close()


async def test_the_servers_cancel_closes_the_media(client, root):
    agent = await browser_softphone(client, root)
    call_id = (await ring(client, hangup_after=600))["data"]["id"]
    await agent.request_of("INVITE")
    assert len(media_of(client).sessions) == 1
    response = await client.delete(url("v1.2", f"/calls/{call_id}"), headers=root.headers())
    assert response.status == 204, await response.text()
    await agent.request_of("CANCEL")
    await within(lambda: media_of(client).busy == 0 and not media_tasks(), "the CANCEL did not close the media")


async def test_an_answer_without_a_usable_codec_fails_the_leg_which_is_acked_and_hung_up(client, root):
    agent = await browser_softphone(client, root)
    call_id = (await ring(client, hangup_after=600))["data"]["id"]
    invite = await agent.request_of("INVITE")
    await agent.answer(invite)  # plain RTP/AVP, PCMU at 203.0.113.9: no ICE, no DTLS
    ack, bye = await agent.request_of("ACK"), await agent.request_of("BYE")
    assert ack.call_id == bye.call_id == invite.call_id
    await within(lambda: media_of(client).busy == 0, "the media did not close")
    live = (await get(client, root, f"/calls/{call_id}"))["data"]  # as any failure of the phone: the fallback
    assert (live["context"], live["dst_id"], live["duration"]) == ("VOICEMAIL", f"voicemail:{root.user_id}", 0)


@pytest.fixture
def settings(settings, request):
    """The call tests' settings, with the test's `[sip] max_media_calls` when it names one."""
    limit = getattr(request, "param", None)
    return settings if limit is None else msgspec.structs.replace(settings, sip=Sip(max_media_calls=limit))


@pytest.mark.parametrize("settings", [0], indirect=True)
async def test_above_max_media_calls_the_invite_carries_no_media_and_the_call_goes_on(client, root):
    agent = await browser_softphone(client, root)
    call_id = (await ring(client, hangup_after=600))["data"]["id"]
    invite = await agent.request_of("INVITE")
    assert "c=IN IP4 192.0.2.1" in invite.body.decode() and media_of(client).busy == 0
    await agent.answer(invite)
    await agent.request_of("ACK")
    assert (await get(client, root, f"/calls/{call_id}"))["data"]["state"] == "CONNECTED"


GARBAGE = [b"", b"\x00", os.urandom(1200), b"\x00\x01\x00\x00\x21\x12\xa4\x42" + os.urandom(12),  # a STUN header
           b"\x16\xfe\xfd" + os.urandom(60), b"\x17\xfe\xfd" + os.urandom(200),  # DTLS records
           b"\x80\x00" + os.urandom(170), b"\x80\xc8" + os.urandom(40)]  # fmt: skip
"""Datagrams a flood sends: empty, random, a STUN header, DTLS handshake and data records, RTP and RTCP."""


async def flood(port: int, rounds: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        udp.setblocking(False)
        for n in range(rounds):
            for datagram in GARBAGE:
                udp.sendto(datagram, ("127.0.0.1", port))
            if n % 50 == 0:
                await asyncio.sleep(0)


async def test_garbage_on_the_media_port_never_stops_the_server_and_other_calls_go_on(client, root):
    agent = await browser_softphone(client, root)
    call_id = (await ring(client, hangup_after=600))["data"]["id"]
    invite = await agent.request_of("INVITE")
    port = candidate_port(invite.body)
    await flood(port, 500)
    assert (await client.get("/_telephony/health", headers=CONTROL)).status == 200
    phone = Phone(PHONE_HZ)
    try:
        await answer_with(agent, invite, await phone.answer(invite.body))
        await agent.request_of("ACK")
        (session,) = media_of(client).sessions
        await within(lambda: session.connected_at is not None, "the media did not connect")
        await flood(port, 500)
        assert (await client.get("/_telephony/health", headers=CONTROL)).status == 200
        other = await client.post(url("v1.2", "/calls"), json={"to": ANSWERS + "7"}, headers=root.headers())
        other_id = (await other.json())["data"]["id"]
        await advance(client, 90)
        assert await states(client, other_id) == ["INITIAL", "ACCEPTED", "RINGING", "CONNECTED", "HANGUP"]
        await within(lambda: dominant_hz(phone.heard) is not None, "the phone heard nothing")
        assert abs(dominant_hz(phone.heard) - CALLER_HZ) <= 20
        assert (await get(client, root, f"/calls/{call_id}"))["data"]["state"] == "CONNECTED"
    finally:
        await phone.close()


def test_max_media_calls_may_not_be_negative():
    with pytest.raises(ValueError, match="max_media_calls"):
        Sip(max_media_calls=-1)
