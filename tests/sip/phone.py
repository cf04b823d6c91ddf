"""A WebRTC softphone in Python (aiortc), as a browser is one: its SIP over the test agent on a socket
opened with an `Origin` (so the server offers it media), its audio a tone it sends and what it hears
measured (`dominant_hz`, of either side's `Heard`); and what the server's media room holds."""

from __future__ import annotations

import asyncio
import time

import numpy as np
from aiohttp.test_utils import TestClient
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription

from telephony.keys import MEDIA
from telephony.rtc import addresses
from telephony.rtc.listening import RATE, Heard
from telephony.rtc.tone import Tone
from tests.accounts.helpers import Creds
from tests.calls.test_inbound import provision
from tests.sip.agent import PATH, Agent, me
from tests.sip.test_registrations import register

ORIGIN = {"Origin": "https://softphone.example"}
SOON = 5.0
"""Seconds of real time media may take to connect and be heard."""


async def browser_softphone(client: TestClient, creds: Creds) -> Agent:
    """The user's softphone on a socket a browser opened (it names an Origin), registered, its number
    ringing the user."""
    mine = await me(client, creds)
    ws = await client.ws_connect(PATH, protocols=("sip",), headers=ORIGIN)
    agent = Agent(ws, str(mine["id"]), mine["sip_domain"], mine["sip_password"])
    assert (await register(agent)).code == 200
    await provision(client, target_type="U", target_id=creds.user_id)
    return agent


class Phone:
    """The phone's media: a peer connection that answers the server's offer with a tone of `hz`."""

    def __init__(self, hz: int) -> None:
        self.pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        self.heard = Heard()
        self.pc.on("track", self.heard.listen)
        self.pc.addTrack(Tone(hz))

    async def answer(self, offer: bytes) -> str:
        addresses.install()
        await self.pc.setRemoteDescription(RTCSessionDescription(offer.decode(), "offer"))
        with addresses.only("127.0.0.1"):
            await self.pc.setLocalDescription(await self.pc.createAnswer())
        return self.pc.localDescription.sdp

    async def close(self) -> None:
        await self.heard.stop()
        await self.pc.close()


async def answer_with(agent: Agent, invite, sdp: str) -> None:
    contact = f"Contact: <sip:{agent.user}@{agent.host};transport=ws>\r\nContent-Type: application/sdp\r\n"
    await agent.reply(invite, 200, extra=contact, body=sdp)


async def within(condition, what: str, seconds: float = SOON) -> None:
    """Wait (real time, up to `seconds`) until `condition()` holds."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


def dominant_hz(heard: Heard) -> float | None:
    """The strongest frequency of the last second heard (Hann-windowed FFT: bin k is k Hz), or None
    before a second was heard."""
    if heard.seconds < 1:
        return None
    last = np.frombuffer(heard.pcm()[-2 * RATE :], dtype="<i2").astype(np.float64)
    spectrum = np.abs(np.fft.rfft(last * np.hanning(RATE)))
    spectrum[0] = 0.0
    return float(np.argmax(spectrum))


def media_tasks() -> list[asyncio.Task]:
    """The loop's tasks that run media (aiortc, aioice, the media room)."""
    found = []
    for task in asyncio.all_tasks():
        code = getattr(task.get_coro(), "cr_code", None)
        if code is not None and any(part in code.co_filename for part in ("aiortc", "aioice", "telephony/rtc")):
            found.append(task)
    return found


def media_of(client: TestClient):
    return client.app[MEDIA]
