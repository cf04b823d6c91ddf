"""One SIP-over-WebSocket connection: its messages parsed and answered, its user authenticated.

A message that does not parse is answered 400 (513 when too large), with the headers it had that a
reply copies; a response that does not parse is dropped. OPTIONS (keep-alive) needs no credentials;
SUBSCRIBE, REGISTER and INVITE do: each is challenged (401) until it carries digest credentials
of the user's `sip_password` (`digest`). Failed answers are throttled as failed logins are, per user
(`sip:<id>`) and per address; while locked, a request gets 403 with `Retry-After`. The first user
to authenticate owns the connection (another's credentials get 403), up to
`[sip] connections_per_user` connections per user. Requests within a dialog (a subscription's
refresh, BYE, ACK, CANCEL) belong to the dialog the connection's user made. An INVITE, CANCEL and BYE
of a call the phone dials go to `dialling`; responses and BYEs of the INVITEs this server sent to
`invites`. An error inside the server is answered 500 and logged:
the connection goes on.
"""

from __future__ import annotations

import itertools
import logging
import secrets
from typing import TYPE_CHECKING

from aiohttp import web
from sipmessage import Request, Response

from ..api.errors import TooManyRequests
from . import codec
from .digest import Nonces
from .directory import SipUser
from .hub import SipHub

if TYPE_CHECKING:
    from .registrar import Registrar
    from .subscriptions import Subscriptions

log = logging.getLogger(__name__)
ALLOW = "OPTIONS, SUBSCRIBE, NOTIFY, REGISTER, INVITE, ACK, CANCEL, BYE"
KNOWN = frozenset(ALLOW.split(", "))
NEEDS_CREDENTIALS = frozenset({"SUBSCRIBE", "REGISTER", "INVITE"})


class Connection:
    def __init__(self, hub: SipHub, ws: web.WebSocketResponse, remote: str) -> None:
        self.hub = hub
        self.ws = ws
        self.remote = remote
        self.user: SipUser | None = None
        self.nonces = Nonces(hub.clock.time, hub.settings.nonce_seconds)
        self.host = f"{secrets.token_hex(6)}.invalid"
        """This server's side of the connection, as its own Via and Contact name it (RFC 7118)."""
        self.sequence = itertools.count(1)
        self.subscriptions: Subscriptions | None = None
        self.registrar: Registrar | None = None
        self.dialogs: set[str] = set()
        """The SIP Call-IDs of the INVITE dialogs this server opened on the connection."""
        self.media_host: str | None = None
        """Where WebRTC media offered to the client is (the address it reached the server at), or None."""

    async def send(self, message: Request | Response) -> None:
        if not self.ws.closed:
            await self.ws.send_str(codec.encode(message))

    def tag(self) -> str:
        return secrets.token_hex(6)

    async def received(self, data: bytes) -> None:
        """Answer one message; nothing it holds closes the connection."""
        try:
            message = codec.parse(data)
        except codec.Malformed as malformed:
            if (refusal := codec.refusal(data, malformed)) is not None:
                await self.ws.send_str(refusal)
            return
        try:
            if isinstance(message, Response):
                await self.hub.invites.response(self, message)  # a NOTIFY's needs nothing
            else:
                await self._handle(message)
        except Exception:
            log.exception("a SIP message could not be handled")
            if isinstance(message, Request):
                await self.send(codec.reply(message, 500, tag=self.tag()))

    async def _handle(self, request: Request) -> None:
        if request.method == "ACK":
            return
        if request.method == "OPTIONS":
            answer = codec.reply(request, 200, tag=self.tag())
            answer.headers.set("Allow", ALLOW)
            answer.headers.set("Accept", "application/sdp, application/dialog-info+xml")
            await self.send(answer)
            return
        in_dialog = "tag" in request.to_address.parameters
        if request.method in NEEDS_CREDENTIALS and not in_dialog and await self.authenticated(request) is None:
            return
        if request.method == "SUBSCRIBE" and self.subscriptions is not None:
            await self.subscriptions.subscribe(request)
            return
        if request.method == "REGISTER" and self.registrar is not None:
            await self.registrar.register(request)
            return
        if request.method == "INVITE" and not in_dialog:
            await self.hub.dialling.invite(self, request)
            return
        if request.method == "CANCEL":
            await self.hub.dialling.cancel(self, request)
            return
        if request.method == "BYE":
            if not await self.hub.dialling.bye(self, request):
                await self.hub.invites.bye(self, request)
            return
        answer = codec.reply(request, 501 if request.method in KNOWN else 405, tag=self.tag())
        answer.headers.set("Allow", ALLOW)
        await self.send(answer)

    async def authenticated(self, request: Request) -> SipUser | None:
        """The user whose credentials the request carries, or None once it was answered (401, 403)."""
        credentials = request.authorization
        realm = request.from_address.uri.host
        if credentials is None or credentials.parameters is None:
            await self._challenge(request, realm)
            return None
        username = credentials.parameters.get("username", "")
        keys = (f"sip:{username[:40]}", f"addr:{self.remote}")
        try:
            self.hub.throttle.check(*keys)
        except TooManyRequests as locked:
            await self._refuse(request, "Too many failed authentications", (locked.headers or {}).get("Retry-After"))
            return None
        user = await self.hub.directory.user(int(username)) if username.isdecimal() and len(username) < 19 else None
        password = await self.hub.directory.password(user.id) if user is not None else None
        verdict = "wrong"
        if user is not None and password is not None:
            verdict = self.nonces.check(credentials, request.method, password, user.domain)
        if verdict != "ok" or user is None:
            if verdict == "wrong":
                await self.hub.throttle.failed(*keys)
            await self._challenge(request, user.domain if user is not None else realm, stale=verdict == "stale")
            return None
        self.hub.throttle.succeeded(keys[0])
        return await self._bound(request, user)

    async def _bound(self, request: Request, user: SipUser) -> SipUser | None:
        if self.user is None:
            if not self.hub.bind(self, user.id):
                await self._refuse(request, "Too many connections of this user")
                return None
            self.user = user
        elif self.user.id != user.id:
            await self._refuse(request, "This connection belongs to another user")
            return None
        return self.user

    async def _challenge(self, request: Request, realm: str, *, stale: bool = False) -> None:
        answer = codec.reply(request, 401, tag=self.tag())
        for challenge in self.nonces.challenges(realm, stale=stale):
            answer.headers.add("WWW-Authenticate", challenge)
        await self.send(answer)

    async def _refuse(self, request: Request, why: str, retry_after: str | None = None) -> None:
        answer = codec.reply(request, 403, tag=self.tag())
        answer.headers.set("Warning", f'399 telephony "{why}"')
        if retry_after is not None:
            answer.headers.set("Retry-After", retry_after)
        await self.send(answer)

    async def closed(self) -> None:
        """The socket went: its calls end, subscriptions and registrations end, the user's count goes down."""
        await self.hub.invites.closed(self)
        await self.hub.dialling.closed(self)
        if self.subscriptions is not None:
            self.subscriptions.close()
        if self.registrar is not None:
            await self.registrar.close()
        if self.user is not None:
            self.hub.unbind(self, self.user.id)
        self.hub.connections.discard(self)
