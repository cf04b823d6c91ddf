"""REGISTER over the WebSocket: a browser softphone becomes a registration of its user.

A registration is the same `sip.registered` event as a simulated client's (its user agent the
request's `User-Agent`, its contact the `Contact` URI), so the user's `nb_sip_locations`, the 412
rule of click-to-call and routing follow real clients. The user registers itself only (To is the
authenticated user, else 403). A registration ends (`sip.unregistered`) on its expiry (the clock,
at most `[sip] max_expires`), on a REGISTER with `Expires: 0` (or `Contact: *`), and when its
socket closes. A refresh of a contact the connection holds moves its expiry and records nothing.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sipmessage import Request

from ..domain.errors import DomainError
from ..eventlog.records import Metadata
from . import codec
from .clients import LiveClient
from .connection import Connection

log = logging.getLogger(__name__)
Register = Callable[[int, str | None, str | None, Metadata], Awaitable[dict]]
Unregister = Callable[[int, int, Metadata], Awaitable[None]]
MAX_TEXT = 255
MIN_EXPIRES = 60


@dataclass
class Held:
    registration_id: int
    key: str


class Registrar:
    """The registrations of one connection, by contact URI."""

    def __init__(self, connection: Connection, register: Register, unregister: Unregister) -> None:
        self.connection = connection
        self._register = register
        self._unregister = unregister
        self.held: dict[str, Held] = {}

    def _meta(self) -> Metadata:
        user = self.connection.user
        return Metadata(user_id=user.id if user else None, customer_id=user.customer_id if user else None,
                        remote_addr=self.connection.remote, source="sip")  # fmt: skip

    async def register(self, request: Request) -> None:
        connection, user = self.connection, self.connection.user
        assert user is not None  # noqa: S101 - the connection authenticated the request
        if request.to_address.uri.user != str(user.id):
            await connection.send(codec.reply(request, 403, tag=connection.tag()))
            return
        wildcard = request.headers.get("Contact") == "*"
        contacts = [] if wildcard else request.contact
        given = request.expires if request.expires is not None else connection.hub.settings.max_expires
        if contacts and "expires" in contacts[0].parameters:
            given = int(contacts[0].parameters["expires"] or 0)
        expires = min(given, connection.hub.settings.max_expires)
        if 0 < expires < MIN_EXPIRES:
            answer = codec.reply(request, 423, tag=connection.tag())
            answer.headers.set("Min-Expires", str(MIN_EXPIRES))
            await connection.send(answer)
            return
        for contact in [str(c.uri) for c in contacts] if not wildcard else list(self.held):
            if expires == 0:
                await self.end(contact)
            elif len(contact) > MAX_TEXT:
                await connection.send(codec.reply(request, 400, tag=connection.tag()))
                return
            else:
                try:
                    await self._hold(contact, (request.user_agent or "")[:MAX_TEXT] or None, expires)
                except DomainError as refused:  # the most registrations a user may have
                    answer = codec.reply(request, 403, tag=connection.tag())
                    answer.headers.set("Warning", f'399 telephony "{str(refused)[:120]}"')
                    await connection.send(answer)
                    return
        answer = codec.reply(request, 200, tag=connection.tag())
        for contact in self.held:
            answer.headers.add("Contact", f"<{contact}>;expires={expires}")
        await connection.send(answer)

    async def _hold(self, contact: str, user_agent: str | None, expires: int) -> None:
        hub, user = self.connection.hub, self.connection.user
        assert user is not None  # noqa: S101
        if (held := self.held.get(contact)) is None:
            registered = await self._register(user.id, user_agent, contact, self._meta())
            held = self.held[contact] = Held(registered["registration_id"], hub.key("registration"))
            hub.clients.hold(LiveClient(user.id, user_agent, contact, self.connection))
        hub.scheduler.at(hub.clock.time() + expires, held.key, lambda: self.end(contact))

    async def end(self, contact: str) -> None:
        """The registration of `contact` ends (its expiry, an un-REGISTER, the socket's close)."""
        held, user = self.held.pop(contact, None), self.connection.user
        if held is None or user is None:
            return
        self.connection.hub.scheduler.cancel(held.key)
        self.connection.hub.clients.drop(contact)
        with contextlib.suppress(DomainError):  # the operator removed it already
            await self._unregister(user.id, held.registration_id, self._meta())

    async def close(self) -> None:
        for contact in list(self.held):
            await self.end(contact)
