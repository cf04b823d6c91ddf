"""An INVITE dialog this server starts to a real client, and the requests it sends in it.

The INVITE carries its media leg's SDP offer (`media`), or, with no media, an SDP offer of real
codecs (opus, PCMU, PCMA, telephone-event) in the form a browser accepts (ICE credentials, a DTLS
fingerprint, rtcp-mux), at TEST-NET-1's 192.0.2.1 port 9 (RFC 5737: an address that answers
nothing): no media is carried. Its From is the caller as dialog
NOTIFYs name it, its To the user, its Call-ID `<call id>-<n>@telephony`. ACK, CANCEL and BYE follow
RFC 3261: a CANCEL and the ACK of a failure reuse the INVITE's branch, an ACK of a 200 and a BYE go
to the client's Contact in the dialog its 200 made.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from sipmessage import Address, Request, Response

from ..domain.calls.call import Call
from . import codec
from .clients import LiveClient
from .dialog_info import display_name, party_uri
from .media import MediaLeg

NO_MEDIA = "192.0.2.1"


def sdp(session: int, setup: str = "actpass") -> bytes:
    """An offer of real codecs at an address that answers nothing (`setup="active"`: as an answer)."""
    fingerprint = ":".join(f"{byte:02X}" for byte in secrets.token_bytes(32))
    lines = ["v=0", f"o=telephony {session} 1 IN IP4 {NO_MEDIA}", "s=telephony", f"c=IN IP4 {NO_MEDIA}", "t=0 0",
             "a=group:BUNDLE 0", "m=audio 9 UDP/TLS/RTP/SAVPF 111 0 8 101", "a=mid:0", "a=sendrecv", "a=rtcp-mux",
             "a=rtpmap:111 opus/48000/2", "a=fmtp:111 minptime=10;useinbandfec=1", "a=rtpmap:0 PCMU/8000",
             "a=rtpmap:8 PCMA/8000", "a=rtpmap:101 telephone-event/8000", "a=fmtp:101 0-15",
             f"a=ice-ufrag:{secrets.token_hex(4)}", f"a=ice-pwd:{secrets.token_hex(12)}",
             f"a=fingerprint:sha-256 {fingerprint}", f"a=setup:{setup}",
             f"a=candidate:1 1 udp 2130706431 {NO_MEDIA} 9 typ host", "a=end-of-candidates"]  # fmt: skip
    return ("\r\n".join(lines) + "\r\n").encode()


@dataclass
class Outgoing:
    """One INVITE to a client for a call's `dst` leg, rung since `reached_at`."""

    call_id: int
    client: LiveClient
    reached_at: float
    invite: Request
    sip_call_id: str
    confirmed: bool = False
    cancelled: bool = False
    remote: str | None = None
    """The client's To (with its tag) once it answered."""
    target: str | None = None
    """The client's Contact once it answered: where requests in the dialog go."""
    sequence: int = 1
    media: MediaLeg | None = None
    """The media the INVITE offers, or None (its offer answers nothing)."""

    @classmethod
    def to(cls, call: Call, client: LiveClient, domain: str, media: MediaLeg | None = None) -> Outgoing:
        connection = client.connection
        name = display_name(call.src).replace('"', "")
        sip_call_id = f"{call.id}-{secrets.token_hex(4)}@telephony"
        user = Address.parse(f"<sip:{client.user_id}@{domain}>")
        src = Address.parse(f"<{party_uri(call.src, domain)}>")
        src = Address(uri=src.uri, name=name, parameters=src.parameters.replace(tag=connection.tag()))
        headers = [("Via", f"SIP/2.0/WSS {connection.host};branch=z9hG4bK{connection.tag()}"), ("From", str(src)),
                   ("To", str(user)), ("Call-ID", sip_call_id),
                   ("Contact", f"<sip:telephony@{connection.host};transport=ws>"),
                   ("Allow", "INVITE, ACK, CANCEL, BYE, OPTIONS"), ("Content-Type", "application/sdp")]  # fmt: skip
        body = media.sdp if media is not None else sdp(call.id)
        invite = codec.request("INVITE", client.contact, sequence=1, headers=headers, body=body)
        return cls(call.id, client, call.reached_at, invite, sip_call_id, media=media)

    def cancel(self) -> Request:
        return self._same_transaction("CANCEL", self.invite.headers["To"])

    def ack_failure(self, response: Response) -> Request:
        return self._same_transaction("ACK", response.headers["To"])

    def ack(self) -> Request:
        return self._in_dialog("ACK", self.sequence)

    def bye(self) -> Request:
        self.sequence += 1
        return self._in_dialog("BYE", self.sequence)

    def answered(self, response: Response) -> None:
        self.confirmed, self.remote = True, response.headers["To"]
        contact = response.contact
        self.target = str(contact[0].uri) if contact else self.client.contact

    def _same_transaction(self, method: str, to: str) -> Request:
        headers = [("Via", self.invite.headers["Via"]), ("From", self.invite.headers["From"]), ("To", to),
                   ("Call-ID", self.sip_call_id)]  # fmt: skip
        return codec.request(method, self.invite.uri, sequence=1, headers=headers)

    def _in_dialog(self, method: str, sequence: int) -> Request:
        host = self.client.connection.host
        headers = [("Via", f"SIP/2.0/WSS {host};branch=z9hG4bK{self.client.connection.tag()}"),
                   ("From", self.invite.headers["From"]), ("To", self.remote or self.invite.headers["To"]),
                   ("Call-ID", self.sip_call_id)]  # fmt: skip
        return codec.request(method, self.target or self.client.contact, sequence=sequence, headers=headers)
