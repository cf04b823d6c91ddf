"""Calls a softphone places: its authenticated INVITE is a click-to-call of its user, answered as the call goes.

The INVITE (`sip:<number or extension>@<sip_domain>`) is answered 100 at once, then the call is placed
by `place`, the code path of `POST /calls` (its checks, events and CDRs), with the phone's own
registration on the connection as the caller's side, answered as the call is placed. A refusal is
answered with the status `outcomes` maps it to. Then a follower of the log's commits answers as the
call goes: 180 once the callee rings, 200 (with an SDP answer at the address that answers nothing,
as `offer`) once it connects, the status of its cause when it ends first. The phone's CANCEL before
the 200 (200, then 487) and its BYE after (200) hang the call up as the caller's own hang-up
(`hang_up`, as `DELETE /calls/{id}`), as does its socket's close; a call that ends otherwise sends
the phone a BYE. The phone's dialogs count towards `[sip] dialogs_per_connection` (486 beyond).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sipmessage import Request, Response

from ..api.errors import ApiError, from_domain
from ..calls import NO_CLIENTS
from ..domain.calls.call import Call, stream_of
from ..domain.calls.fold import fold
from ..domain.errors import DomainError
from ..domain.events.calls import CallEvent
from ..eventlog import EventLog, Metadata, RecordedEvent
from . import codec, outcomes
from .clients import LiveClient
from .connection import Connection
from .offer import sdp

log = logging.getLogger(__name__)
Place = Callable[[int, int, str, LiveClient, Metadata], Awaitable[Call]]
"""(customer id, user id, the number or extension dialled, the phone, metadata) -> the call placed as
`POST /calls` places it; raises the API's error where the route would refuse."""
HangUp = Callable[[int, int, int, Metadata], Awaitable[None]]
"""(call id, customer id, user id, metadata): the user hangs up, as `DELETE /calls/{id}`."""
BUSY_HERE = "Too many calls on this connection"


@dataclass
class Dialled:
    """One INVITE a phone sent, and the call it placed."""

    connection: Connection
    invite: Request
    tag: str
    call_id: int
    customer_id: int
    user_id: int
    status: int = 100
    """The last status the INVITE was answered with (a final one: the answer is given)."""
    sequence: int = 0

    @property
    def sip_call_id(self) -> str:
        return self.invite.call_id

    def meta(self) -> Metadata:
        return Metadata(user_id=self.user_id, customer_id=self.customer_id, remote_addr=self.connection.remote,
                        source="sip")  # fmt: skip

    async def answer(self, status: int, why: str | None = None) -> None:
        """Answer the INVITE (a 200 with an SDP answer and this server's Contact, a failure with `why`)."""
        connected = status == 200
        response = codec.reply(self.invite, status, tag=self.tag, body=sdp(self.call_id, setup="active") if connected
                               else b"", content_type="application/sdp" if connected else None)  # fmt: skip
        if connected:
            response.headers.set("Contact", f"<sip:telephony@{self.connection.host};transport=ws>")
        if why is not None:
            response.headers.set("Warning", outcomes.warning(why))
        self.status = status
        await self.connection.send(response)

    def bye(self) -> Request:
        """The server hangs up: a BYE to the phone's Contact, in the dialog its INVITE made."""
        contact, host = self.invite.contact, self.connection.host
        ours = f"{self.invite.headers['To']};tag={self.tag}"
        headers = [("Via", f"SIP/2.0/WSS {host};branch=z9hG4bK{self.connection.tag()}"), ("From", ours),
                   ("To", self.invite.headers["From"]), ("Call-ID", self.sip_call_id)]  # fmt: skip
        self.sequence += 1
        target = contact[0].uri if contact else self.invite.from_address.uri
        return codec.request("BYE", target, sequence=self.sequence, headers=headers)


class Dialling:
    def __init__(self, place: Place, hang_up: HangUp, live_call: Callable[[int], Call | None], event_log: EventLog,
                 dialogs_per_connection: int) -> None:  # fmt: skip
        self._place = place
        self._hang_up = hang_up
        self._live_call = live_call
        self._log = event_log
        self._limit = dialogs_per_connection
        self._by_call: dict[int, Dialled] = {}
        self._by_sip: dict[str, Dialled] = {}

    async def invite(self, connection: Connection, request: Request) -> None:
        """An authenticated INVITE outside a dialog: the call it dials, or its refusal."""
        user, to = connection.user, request.uri.user
        assert user is not None  # noqa: S101 - the connection authenticated the request
        tag = connection.tag()
        if not to:
            await connection.send(_refused(request, tag, 400, "The Request-URI names no number or extension"))
            return
        await connection.send(codec.reply(request, 100))
        phone = _phone(connection, request)
        if len(connection.dialogs) >= self._limit:
            await connection.send(_refused(request, tag, 486, BUSY_HERE))
            return
        if phone is None:
            await connection.send(_refused(request, tag, 403, NO_CLIENTS))
            return
        meta = Metadata(user_id=user.id, customer_id=user.customer_id, remote_addr=connection.remote, source="sip")
        try:
            call = await self._place(user.customer_id, user.id, to, phone, meta)
        except (ApiError, DomainError) as refused:
            status, why = outcomes.refusal(refused if isinstance(refused, ApiError) else from_domain(refused), to)
            await connection.send(_refused(request, tag, status, why))
            return
        dialled = Dialled(connection, request, tag, call.id, user.customer_id, user.id)
        self._by_call[call.id] = self._by_sip[dialled.sip_call_id] = dialled
        connection.dialogs.add(dialled.sip_call_id)
        await self._follow(call.id)

    async def follow_commit(self, events: list[RecordedEvent], head: int) -> None:
        for call_id in dict.fromkeys(e.event.id for e in events if isinstance(e.event, CallEvent)):
            if call_id in self._by_call:
                try:
                    await self._follow(call_id)
                except Exception:
                    log.exception("call %s: the INVITE that placed it could not follow it", call_id)

    async def _follow(self, call_id: int) -> None:
        """Answer the phone as its call is now: ringing, connected, or ended."""
        dialled = self._by_call.get(call_id)
        if dialled is None:
            return
        call = self._live_call(call_id)
        if call is None:  # ended: its cause is on its stream
            call = fold(call_id, [e.event for e in await self._log.read_stream(stream_of(call_id))])  # type: ignore[misc]
            self._forget(dialled)
            if dialled.status == 200:
                await dialled.connection.send(dialled.bye())
            elif dialled.status < 200:
                await dialled.answer(*outcomes.ending(call))
        elif call.connected_at is not None and dialled.status < 200:
            await dialled.answer(200)
        elif call.ringing == "dst" and dialled.status < 180:
            await dialled.answer(180)

    def _forget(self, dialled: Dialled) -> None:
        self._by_call.pop(dialled.call_id, None)
        self._by_sip.pop(dialled.sip_call_id, None)
        dialled.connection.dialogs.discard(dialled.sip_call_id)

    def _own(self, connection: Connection, request: Request) -> Dialled | None:
        dialled = self._by_sip.get(request.call_id)
        return dialled if dialled is not None and dialled.connection is connection else None

    async def cancel(self, connection: Connection, request: Request) -> None:
        """The phone gives up before the answer: 200 to the CANCEL, the call hung up as the caller's, 487."""
        dialled = self._own(connection, request)
        if dialled is None or dialled.status >= 200:
            await connection.send(codec.reply(request, 481))
            return
        await connection.send(codec.reply(request, 200))
        self._forget(dialled)
        with contextlib.suppress(DomainError):  # the call ended meanwhile
            await self._hang_up(dialled.call_id, dialled.customer_id, dialled.user_id, dialled.meta())
        await dialled.answer(487)  # once the hang-up is recorded

    async def bye(self, connection: Connection, request: Request) -> bool:
        """The phone hangs up its call (200 once recorded; an INVITE not answered yet gets 487, as after a
        CANCEL); False for a dialog it did not dial."""
        dialled = self._own(connection, request)
        if dialled is None:
            return False
        self._forget(dialled)
        with contextlib.suppress(DomainError):
            await self._hang_up(dialled.call_id, dialled.customer_id, dialled.user_id, dialled.meta())
        await connection.send(codec.reply(request, 200))
        if dialled.status < 200:
            await dialled.answer(487)
        return True

    async def closed(self, connection: Connection) -> None:
        """The phone's socket closed: the calls it dialled are hung up as its own."""
        for dialled in [d for d in self._by_call.values() if d.connection is connection]:
            self._forget(dialled)
            with contextlib.suppress(Exception):
                await self._hang_up(dialled.call_id, dialled.customer_id, dialled.user_id, dialled.meta())


def _phone(connection: Connection, request: Request) -> LiveClient | None:
    """The registration on the connection the INVITE comes from: its Contact's, else the last made."""
    held = connection.hub.clients.on(connection)
    contact = str(request.contact[0].uri) if request.contact else None
    return next((c for c in held if c.contact == contact), held[-1] if held else None)


def _refused(request: Request, tag: str, status: int, why: str) -> Response:
    response = codec.reply(request, status, tag=tag)
    response.headers.set("Warning", outcomes.warning(why))
    return response
