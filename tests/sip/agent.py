"""A small SIP user agent over aiohttp's WebSocket client, as a browser client talks to the server:
requests built as SIP.js builds them, digest answers, and the messages the server sends read back."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass, field
from typing import Any

from aiohttp import ClientWebSocketResponse, WSMsgType
from aiohttp.test_utils import TestClient
from sipmessage import AuthCredentials, AuthParameters, Request, Response

from telephony.sip.codec import parse
from telephony.sip.digest import answer
from tests.accounts.helpers import Creds, url

PATH = "/_telephony/sip"
WAIT = 5.0
"""Seconds of real time a test waits for a message the server sends."""
OFFER = (
    "v=0\r\no=- 7 1 IN IP4 203.0.113.7\r\ns=-\r\nc=IN IP4 203.0.113.7\r\nt=0 0\r\n"
    "m=audio 9 UDP/TLS/RTP/SAVPF 111 0\r\na=rtpmap:111 opus/48000/2\r\na=rtpmap:0 PCMU/8000\r\n"
)
"""A softphone's SDP offer (no media flows: the server answers at an address that answers nothing)."""


async def me(client: TestClient, creds: Creds) -> dict[str, Any]:
    response = await client.get(url("v1.2", "/me"), headers=creds.headers())
    assert response.status == 200
    return (await response.json())["data"]


@dataclass
class Agent:
    ws: ClientWebSocketResponse
    user: str
    domain: str
    password: str
    host: str = field(default_factory=lambda: f"{secrets.token_hex(4)}.invalid")
    tag: str = field(default_factory=lambda: secrets.token_hex(4))
    sequence: int = 0
    user_agent: str = "CTI Connector"
    got: list[Request | Response] = field(default_factory=list)

    def request(self, method: str, to: str, *, call_id: str | None = None, extra: str = "", body: str = "",
                to_tag: str | None = None) -> str:  # fmt: skip
        self.sequence += 1
        tagged = f";tag={to_tag}" if to_tag else ""
        return (f"{method} sip:{to}@{self.domain} SIP/2.0\r\n"
                f"Via: SIP/2.0/WSS {self.host};branch=z9hG4bK{secrets.token_hex(6)}\r\n"
                f"Max-Forwards: 70\r\nTo: <sip:{to}@{self.domain}>{tagged}\r\n"
                f'From: "Agent" <sip:{self.user}@{self.domain}>;tag={self.tag}\r\n'
                f"Call-ID: {call_id or secrets.token_hex(8)}\r\nCSeq: {self.sequence} {method}\r\n"
                f"Contact: <sip:{self.user}@{self.host};transport=ws>\r\nUser-Agent: {self.user_agent}\r\n"
                f"{extra}Content-Length: {len(body.encode())}\r\n\r\n{body}")  # fmt: skip

    async def send(self, text: str | bytes) -> None:
        if isinstance(text, bytes):
            await self.ws.send_bytes(text)
        else:
            await self.ws.send_str(text)

    async def text(self) -> str:
        """The next frame the server sends (a test fails after `WAIT` seconds without one)."""
        frame = await asyncio.wait_for(self.ws.receive(), WAIT)
        assert frame.type is WSMsgType.TEXT, frame
        return frame.data

    async def next(self) -> Request | Response:
        message = parse((await self.text()).encode())
        self.got.append(message)
        return message

    async def response(self) -> Response:
        message = await self.next()
        assert isinstance(message, Response), message
        return message

    async def notify(self) -> Request:
        """The next NOTIFY, answered 200 as a client does."""
        message = await self.next()
        assert isinstance(message, Request) and message.method == "NOTIFY", message
        await self.reply(message, 200)
        return message

    async def request_of(self, method: str) -> Request:
        """The next message, which must be a request of `method` (an INVITE, an ACK, a CANCEL, a BYE)."""
        message = await self.next()
        assert isinstance(message, Request) and message.method == method, message
        return message

    async def answer(self, invite: Request) -> None:
        """Ring, then answer the INVITE with an SDP answer, as a softphone does."""
        await self.reply(invite, 180, "Ringing")
        sdp = "v=0\r\no=- 1 1 IN IP4 203.0.113.9\r\ns=-\r\nc=IN IP4 203.0.113.9\r\nt=0 0\r\nm=audio 9 RTP/AVP 0\r\n"
        contact = f"Contact: <sip:{self.user}@{self.host};transport=ws>\r\nContent-Type: application/sdp\r\n"
        await self.reply(invite, 200, extra=contact, body=sdp)

    async def bye(self, invite: Request) -> None:
        """Hang up the answered call of the INVITE: a BYE to the server's Contact in its dialog."""
        self.sequence += 1
        target = invite.contact[0].uri
        await self.send(f"BYE {target} SIP/2.0\r\nVia: SIP/2.0/WSS {self.host};branch=z9hG4bK{secrets.token_hex(6)}\r\n"
                        f"Max-Forwards: 70\r\nFrom: {invite.headers['To']};tag={self.tag}\r\n"
                        f"To: {invite.headers['From']}\r\nCall-ID: {invite.call_id}\r\n"
                        f"CSeq: {self.sequence} BYE\r\nContent-Length: 0\r\n\r\n")  # fmt: skip

    async def reply(self, request: Request, code: int, phrase: str = "OK", extra: str = "", body: str = "") -> None:
        vias = "".join(f"Via: {via}\r\n" for via in request.headers.getlist("Via"))
        to = request.headers["To"] if "tag=" in request.headers["To"] else request.headers["To"] + f";tag={self.tag}"
        await self.send(f"SIP/2.0 {code} {phrase}\r\n{vias}From: {request.headers['From']}\r\nTo: {to}\r\n"
                        f"Call-ID: {request.call_id}\r\nCSeq: {request.headers['CSeq']}\r\n{extra}"
                        f"Content-Length: {len(body.encode())}\r\n\r\n{body}")  # fmt: skip

    def credentials(self, challenge: Response, method: str, to: str, *, algorithm: str = "MD5", nc: int = 1,
                    password: str | None = None) -> str:  # fmt: skip
        offered = [h for h in challenge.headers.getlist("WWW-Authenticate") if f"algorithm={algorithm}" in h][0]
        params = AuthCredentials.parse(offered.replace("Digest", "Digest", 1)).parameters
        assert params is not None
        uri, cnonce, count = f"sip:{to}@{self.domain}", secrets.token_hex(4), f"{nc:08x}"
        response = answer(algorithm, self.user, params["realm"], password or self.password, method, uri,
                          params["nonce"], count, cnonce, "auth")  # fmt: skip
        given = AuthParameters(username=self.user, realm=params["realm"], nonce=params["nonce"], uri=uri,
                               response=response, algorithm=algorithm, qop="auth", nc=count, cnonce=cnonce)  # fmt: skip
        return f"Authorization: {AuthCredentials(scheme='Digest', parameters=given)}\r\n"

    async def authenticated(self, method: str, to: str, *, extra: str = "", algorithm: str = "MD5") -> Response:
        """Send a request, answer its challenge, and return the final response."""
        call_id = secrets.token_hex(8)
        await self.send(self.request(method, to, call_id=call_id, extra=extra))
        challenge = await self.response()
        assert challenge.code == 401, challenge
        await self.send(
            self.request(
                method, to, call_id=call_id, extra=extra + self.credentials(challenge, method, to, algorithm=algorithm)
            )
        )
        return await self.response()

    async def dial(self, to: str) -> Request:
        """Dial `to` as a softphone does: an INVITE with an SDP offer, its challenge answered; the INVITE
        sent with credentials, once the server's 100 Trying came."""
        call_id, extra = secrets.token_hex(8), "Content-Type: application/sdp\r\n"
        await self.send(self.request("INVITE", to, call_id=call_id, extra=extra, body=OFFER))
        challenge = await self.response()
        assert challenge.code == 401, challenge
        sent = self.request("INVITE", to, call_id=call_id, extra=extra + self.credentials(challenge, "INVITE", to),
                            body=OFFER)  # fmt: skip
        await self.send(sent)
        trying = await self.response()
        assert trying.code == 100, trying
        return parse(sent.encode())  # type: ignore[return-value]

    async def cancel(self, invite: Request) -> None:
        """CANCEL the INVITE: its Via, From, To, Call-ID and CSeq number."""
        await self.send(f"CANCEL {invite.uri} SIP/2.0\r\nVia: {invite.headers['Via']}\r\nMax-Forwards: 70\r\n"
                        f"From: {invite.headers['From']}\r\nTo: {invite.headers['To']}\r\n"
                        f"Call-ID: {invite.call_id}\r\nCSeq: {invite.cseq.sequence} CANCEL\r\n"
                        f"Content-Length: 0\r\n\r\n")  # fmt: skip

    async def in_dialog(self, method: str, invite: Request, ok: Response) -> None:
        """An ACK (of the 200) or a BYE in the dialog the phone's INVITE made (`ok`: the response that
        made it), to the server's Contact."""
        sequence = invite.cseq.sequence
        if method != "ACK":
            self.sequence += 1
            sequence = self.sequence
        target = ok.contact[0].uri if ok.contact else invite.uri  # a 180 names no Contact
        await self.send(f"{method} {target} SIP/2.0\r\n"
                        f"Via: SIP/2.0/WSS {self.host};branch=z9hG4bK{secrets.token_hex(6)}\r\n"
                        f"Max-Forwards: 70\r\nFrom: {invite.headers['From']}\r\nTo: {ok.headers['To']}\r\n"
                        f"Call-ID: {invite.call_id}\r\nCSeq: {sequence} {method}\r\n"
                        f"Content-Length: 0\r\n\r\n")  # fmt: skip

    async def subscribe(self, node: str, expires: int = 600) -> Response:
        extra = f"Event: dialog\r\nExpires: {expires}\r\nAccept: application/dialog-info+xml\r\n"
        return await self.authenticated("SUBSCRIBE", node, extra=extra)


async def connected(client: TestClient, creds: Creds) -> Agent:
    """A client of the user, connected with the `sip_domain` and `sip_password` of its `/me`."""
    mine = await me(client, creds)
    ws = await client.ws_connect(PATH, protocols=("sip",))
    return Agent(ws, str(mine["id"]), mine["sip_domain"], mine["sip_password"])
