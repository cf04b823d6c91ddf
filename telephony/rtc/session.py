"""One media call: the server's WebRTC peer connection with a phone, for one INVITE the server sends.

`open` makes the offer: a peer connection (no STUN or TURN server) with one audio transceiver
(`sendrecv`; Opus, PCMU and PCMA, in that order) whose track is the far end's tone, and its
host candidate on the address the phone reached the server at. `usable` says whether the phone's
answer can carry audio (an audio section with ICE credentials, a DTLS fingerprint and a codec of
the offer's). `connect` sets the answer: ICE, DTLS-SRTP and RTP run from there, on the event loop,
and what the phone sends is `heard`. `close` ends it (idempotent).
"""

from __future__ import annotations

import logging
import time

from aiortc import RTCConfiguration, RTCPeerConnection, RTCRtpSender, RTCSessionDescription
from aiortc.codecs import CODECS
from aiortc.rtcpeerconnection import find_common_codecs
from aiortc.sdp import SessionDescription

from ..domain.calls.call import Call
from . import addresses
from .listening import Heard
from .tone import Tone, tone_hz

log = logging.getLogger(__name__)
OFFERED = ("audio/opus", "audio/PCMU", "audio/PCMA")
OFFERED_CODECS = [codec for codec in CODECS["audio"] if codec.mimeType in OFFERED]


class MediaSession:
    def __init__(self, call_id: int, hz: int) -> None:
        self.call_id = call_id
        self.tone = Tone(hz)
        self.heard = Heard()
        self.pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        self.sdp = b""
        self.answered_at: float | None = None
        self.connected_at: float | None = None
        """When ICE and DTLS were up (monotonic seconds), after `answered_at`."""
        self.closed = False
        self.pc.on("track", self.heard.listen)
        self.pc.on("connectionstatechange", self._state_changed)

    @classmethod
    async def open(cls, call: Call, host: str) -> MediaSession:
        """The session of the INVITE to the phone of the call's `dst` leg, its offer made."""
        session = cls(call.id, tone_hz(call.src))
        transceiver = session.pc.addTransceiver(session.tone, direction="sendrecv")
        capabilities = RTCRtpSender.getCapabilities("audio").codecs
        transceiver.setCodecPreferences([codec for codec in capabilities if codec.mimeType in OFFERED])
        with addresses.only(host):
            await session.pc.setLocalDescription(await session.pc.createOffer())
        session.sdp = session.pc.localDescription.sdp.encode()
        return session

    @staticmethod
    def usable(answer: bytes) -> bool:
        """Whether an SDP answer can carry the call's audio with this server."""
        try:
            description = SessionDescription.parse(answer.decode("utf-8"))
        except Exception:  # noqa: BLE001 - any text that is not an SDP aiortc reads
            return False
        return any(media.kind == "audio" and media.port and media.ice is not None and media.ice.usernameFragment
                   and media.ice.password and media.dtls is not None and media.dtls.fingerprints
                   and find_common_codecs(OFFERED_CODECS, media.rtp.codecs) for media in description.media)  # fmt: skip

    async def connect(self, answer: bytes) -> None:
        self.answered_at = time.monotonic()
        await self.pc.setRemoteDescription(RTCSessionDescription(answer.decode("utf-8"), "answer"))

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.tone.stop()
        await self.heard.stop()
        await self.pc.close()

    def codec(self) -> str | None:
        for transceiver in self.pc.getTransceivers():
            codecs = transceiver._codecs  # noqa: SLF001 - aiortc keeps the negotiated codecs there only
            if codecs:
                return codecs[0].mimeType
        return None

    def _state_changed(self) -> None:
        state = self.pc.connectionState
        if state == "connected" and self.connected_at is None:
            self.connected_at = time.monotonic()
            log.info("call %s: media connected in %.0f ms (%s)", self.call_id,
                     1000 * (self.connected_at - (self.answered_at or self.connected_at)), self.codec())  # fmt: skip
        elif state == "failed":
            log.warning("call %s: media failed (ICE or DTLS)", self.call_id)
