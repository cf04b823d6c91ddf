"""The INVITE path: a call that rings a user at a real client is an INVITE on the client's socket.

A follower of the log's commits. After a commit that changed a call: a call whose `dst` leg rings a
client a connection of this process holds (the plan's `client` outcome, `calls.decisions`) gets an
INVITE (`offer`); an INVITE whose call stops ringing that client (the caller hung up, another
answered, the ring time ran out) is CANCELled, and an answered one whose call ended or went on
elsewhere (a REST hang-up, a transfer) gets a BYE. What the client answers drives the call through
`by_client`, the same events as the simulator's steps: 200 (then ACK) answers it, 486 and 600 are
busy, 603 rejects, any other failure fails it; 180 changes nothing (the call rings from the INVITE
on). Its BYE (or its socket's close) hangs up the answered call as its callee; a socket that closes
while it rings fails the leg.

Media (`media`, wired in): an INVITE to a client that can carry WebRTC audio (`Connection.media_host`)
offers a media leg's SDP. A 200 whose SDP cannot carry it is recorded as the leg's failure, then
ACKed and hung up (BYE); a usable one starts the media once the answer is recorded and ACKed. The
media ends as the leg does.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable

from sipmessage import Request, Response

from ..domain.calls.call import Call
from ..domain.calls.rules import CLIENT
from ..domain.events.calls import CallEvent
from ..eventlog import Metadata, RecordedEvent
from . import codec
from .clients import LiveClient, LiveClients
from .connection import Connection
from .media import Media
from .offer import Outgoing

log = logging.getLogger(__name__)
ByClient = Callable[[int, str, str, Metadata], Awaitable[Call | None]]
"""(call id, the client's contact, answer/busy/reject/fail/bye, metadata) -> the call after it, or None."""
FAILURES = {486: "busy", 600: "busy", 603: "reject"}


class Invites:
    def __init__(self, clients: LiveClients, live_call: Callable[[int], Call | None], by_client: ByClient,
                 domain: Callable[[int], str]) -> None:  # fmt: skip
        self._clients = clients
        self._live_call = live_call
        self._by_client = by_client
        self._domain = domain
        self.ringing: dict[int, Outgoing] = {}
        """By call id: the INVITE (early or answered) of each call that rings or talks to a client."""
        self._dialogs: dict[str, Outgoing] = {}
        """By SIP Call-ID: every INVITE dialog still open, cancelled ones until their final answer."""
        self.media: Media | None = None
        """What offers media to clients that can carry it; None: no INVITE carries media."""

    async def follow_commit(self, events: list[RecordedEvent], head: int) -> None:
        for call_id in dict.fromkeys(e.event.id for e in events if isinstance(e.event, CallEvent)):
            try:
                await self._follow(call_id)
            except Exception:
                log.exception("call %s: its INVITE could not follow the call", call_id)

    async def _follow(self, call_id: int) -> None:
        call, out = self._live_call(call_id), self.ringing.get(call_id)
        if out is not None and not _current(out, call):
            await self._leave(out)
            out = None
        if out is None and call is not None and call.plan.outcome == CLIENT and call.ringing == "dst":
            client = self._clients.held(call.dst.contact)
            if client is not None:
                await self._invite(call, client)

    async def _invite(self, call: Call, client: LiveClient) -> None:
        host, leg = client.connection.media_host, None
        if self.media is not None and host is not None:
            leg = await self.media.offer(call, host)
        out = Outgoing.to(call, client, self._domain(call.customer_id), leg)
        self.ringing[call.id] = self._dialogs[out.sip_call_id] = out
        client.connection.dialogs.add(out.sip_call_id)
        await client.connection.send(out.invite)

    async def _leave(self, out: Outgoing) -> None:
        """The call stopped ringing (or talking to) the client: CANCEL, or BYE once answered."""
        self.ringing.pop(out.call_id, None)
        if out.media is not None:
            out.media.end()
        if out.confirmed:
            self._forget(out)
            await out.client.connection.send(out.bye())
        else:
            out.cancelled = True  # kept until its final answer, which is ACKed
            await out.client.connection.send(out.cancel())

    def _forget(self, out: Outgoing) -> None:
        if out.media is not None:
            out.media.end()
        self._dialogs.pop(out.sip_call_id, None)
        out.client.connection.dialogs.discard(out.sip_call_id)
        if self.ringing.get(out.call_id) is out:
            del self.ringing[out.call_id]

    async def response(self, connection: Connection, response: Response) -> None:
        """A client's answer to an INVITE (or to a CANCEL or BYE, which needs nothing)."""
        out = self._dialogs.get(response.call_id)
        if out is None or out.client.connection is not connection or response.cseq.method != "INVITE":
            return
        if response.code < 200 or (out.confirmed and response.code < 300):
            return  # provisional, or a retransmitted 200
        if response.code >= 300:
            self._forget(out)
            if not out.cancelled:
                await self._by_client(out.call_id, out.client.contact, _failure(response.code), _meta(out))
            await connection.send(out.ack_failure(response))  # once the refusal is recorded
            return
        out.answered(response)
        if out.media is not None and not out.media.usable(response.body):
            await self._unusable(connection, out)
            return
        answered = None
        if not out.cancelled:
            answered = await self._by_client(out.call_id, out.client.contact, "answer", _meta(out))
        await connection.send(out.ack())  # once the answer is recorded
        if answered is None:  # the call moved on meanwhile: the client is hung up at once
            self._forget(out)
            await connection.send(out.bye())
        elif out.media is not None:
            await out.media.connect(response.body)

    async def _unusable(self, connection: Connection, out: Outgoing) -> None:
        """A 200 whose SDP carries no audio this server can send or hear: the leg fails, then ACK and BYE."""
        self._forget(out)
        if not out.cancelled:
            await self._by_client(out.call_id, out.client.contact, "fail", _meta(out))
        await connection.send(out.ack())
        await connection.send(out.bye())

    async def bye(self, connection: Connection, request: Request) -> None:
        """The client hangs up an answered call: 200, then the call ends with the callee's hang-up."""
        out = self._dialogs.get(request.call_id)
        if out is None or out.client.connection is not connection or not out.confirmed:
            await connection.send(codec.reply(request, 481))
            return
        self._forget(out)
        await self._by_client(out.call_id, out.client.contact, "bye", _meta(out))
        await connection.send(codec.reply(request, 200))  # once the hang-up is recorded

    async def closed(self, connection: Connection) -> None:
        """The client's socket closed: its answered calls are hung up, those ringing it fail."""
        for out in [out for out in self._dialogs.values() if out.client.connection is connection]:
            self._forget(out)
            if not out.cancelled:
                with contextlib.suppress(Exception):
                    await self._by_client(out.call_id, out.client.contact, "bye" if out.confirmed else "fail",
                                          _meta(out))  # fmt: skip


def _current(out: Outgoing, call: Call | None) -> bool:
    """Whether the call still rings (or talks to) the client the INVITE went to, since the same time."""
    return call is not None and call.dst.contact == out.client.contact and call.reached_at == out.reached_at


def _failure(code: int) -> str:
    return FAILURES.get(code, "fail")


def _meta(out: Outgoing) -> Metadata:
    connection = out.client.connection
    user = connection.user
    return Metadata(user_id=out.client.user_id, customer_id=user.customer_id if user else None,
                    remote_addr=connection.remote, source="sip")  # fmt: skip
