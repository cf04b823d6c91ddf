"""Dialog subscriptions (RFC 6665 with the `dialog` event package of RFC 4235) of one connection.

SUBSCRIBE `Event: dialog` to `<node>@<sip_domain>` watches a user, `ivr-<id>`, `queue-<id>` or
`conf-<id>` of the subscriber's own customer (403 for any other node, unknown ones included, so no
other customer's ids are revealed). The 200 OK is followed by a full NOTIFY of the node's live
calls, then by one partial NOTIFY per change of a call the node takes part in (or stops taking part
in: it shows as terminated). The subscription follows the log itself from the position of the state
its full NOTIFY showed, so its NOTIFYs are a function of the log: the same in every process and
after a restart. `Expires` (at most `[sip] max_expires`, at least 60 s) ends it on the clock unless
refreshed; SUBSCRIBE with `Expires: 0`, the expiry and the socket's close end it (a final NOTIFY
`Subscription-State: terminated` where the socket is still open).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import msgspec
from sipmessage import Address, Request

from ..domain.calls.call import HANGUP, Call
from ..domain.calls.fold import CALL_TYPES, evolve
from ..domain.events import tags_of
from ..domain.events.calls import CallEvent, CallPlaced
from . import codec
from .connection import Connection
from .dialog_info import CONTENT_TYPE, concerns, dialog, document
from .directory import Node, SipUser, node_of

log = logging.getLogger(__name__)
CALL_TAGS = sorted(tags_of(CALL_TYPES) or ())
MIN_EXPIRES = 60


class Subscription:
    def __init__(self, connection: Connection, request: Request, node: Node, user: SipUser) -> None:
        self.connection, self.node, self.user = connection, node, user
        self.call_id = request.call_id
        self.tag = connection.tag()
        to = request.to_address
        self.local = Address(uri=to.uri, name=to.name, parameters=to.parameters.replace(tag=self.tag))
        self.remote = request.from_address
        self.target = request.contact[0].uri if request.contact else request.from_address.uri
        self.entity = f"sip:{node.name}@{user.domain}"
        self.version = 0
        self.key = connection.hub.key("subscription")
        self.expires_at = 0.0
        self.shown: dict[int, str] = {}
        self.following: asyncio.Task | None = None

    async def start(self) -> None:
        """The full NOTIFY of the node's live calls as the projection holds them, then the log after that."""
        hub = self.connection.hub
        position, calls = hub.position(), {call.id: call for call in hub.live_calls(self.user.customer_id)}
        watched = [call for call in calls.values() if concerns(call, self.node)]
        await self._notify([self._shown(call) for call in watched], full=True)
        self.following = asyncio.create_task(self._follow(position, calls))

    async def _follow(self, after: int, calls: dict[int, Call]) -> None:
        try:
            async for recorded in self.connection.hub.event_log.subscribe(after, types=CALL_TAGS):
                if isinstance(changed := recorded.event, CallEvent):
                    await self._changed(changed, calls)
        except Exception:
            log.exception("a dialog subscription stopped following the log")
            await self.end("deactivated")

    async def _changed(self, event: CallEvent, calls: dict[int, Call]) -> None:
        before = calls.get(event.id)
        if before is None and not (isinstance(event, CallPlaced) and event.customer_id == self.user.customer_id):
            return  # another customer's call, or one that ended before the subscription
        after = evolve(before or Call(id=event.id), event)
        if after.live:
            calls[event.id] = after
        else:
            calls.pop(event.id, None)
        if concerns(after, self.node):
            shown = self._shown(after)
        elif before is not None and concerns(before, self.node):
            shown = self._shown(msgspec.structs.replace(before, state=HANGUP, ended_at=event.at))
        else:
            return
        if shown:
            await self._notify([shown], full=False)

    def _shown(self, call: Call) -> str:
        """The call's dialog element, or "" when the subscriber was last shown the same."""
        element = dialog(call, self.node, self.user.domain)
        if self.shown.get(call.id) == element:
            return ""
        if call.live:
            self.shown[call.id] = element
        else:
            self.shown.pop(call.id, None)
        return element

    async def _notify(self, dialogs: list[str], *, full: bool, state: str | None = None) -> None:
        now = self.connection.hub.clock.time()
        subscription_state = state or f"active;expires={max(0, round(self.expires_at - now))}"
        body = document(self.entity, self.version, full, dialogs) if state is None or full else b""
        self.version += 1
        headers = [("Via", f"SIP/2.0/WSS {self.connection.host};branch=z9hG4bK{self.connection.tag()}"),
                   ("From", str(self.local)), ("To", str(self.remote)), ("Call-ID", self.call_id),
                   ("Event", "dialog"), ("Subscription-State", subscription_state),
                   ("Contact", f"<sip:{self.node.name}@{self.connection.host};transport=ws>")]  # fmt: skip
        if body:
            headers.append(("Content-Type", CONTENT_TYPE))
        seq = next(self.connection.sequence)
        await self.connection.send(codec.request("NOTIFY", self.target, sequence=seq, headers=headers, body=body))

    def refresh(self, expires: int) -> None:
        hub = self.connection.hub
        self.expires_at = hub.clock.time() + expires
        hub.scheduler.at(self.expires_at, self.key, lambda: self.end("timeout"))

    async def end(self, reason: str | None = None) -> None:
        """The final NOTIFY (`terminated`), and no more."""
        self.stop()
        subscriptions = self.connection.subscriptions
        if subscriptions is not None:
            subscriptions.active.pop((self.call_id, self.tag), None)
        with contextlib.suppress(ConnectionError):
            await self._notify([], full=False, state="terminated" + (f";reason={reason}" if reason else ""))

    def stop(self) -> None:
        self.connection.hub.scheduler.cancel(self.key)
        if self.following is not None and self.following is not asyncio.current_task():
            self.following.cancel()


class Subscriptions:
    """The dialog subscriptions of one connection, by (Call-ID, this server's tag)."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.active: dict[tuple[str, str], Subscription] = {}

    async def subscribe(self, request: Request) -> None:
        connection, settings = self.connection, self.connection.hub.settings
        expires = min(request.expires if request.expires is not None else settings.max_expires, settings.max_expires)
        tag = request.to_address.parameters.get("tag")
        if tag is not None:
            await self._refresh(request, tag, expires)
            return
        if (request.headers.get("Event") or "").split(";")[0].strip().lower() != "dialog":
            await connection.send(codec.reply(request, 489, tag=connection.tag()))
            return
        if 0 < expires < MIN_EXPIRES:
            answer = codec.reply(request, 423, tag=connection.tag())
            answer.headers.set("Min-Expires", str(MIN_EXPIRES))
            await connection.send(answer)
            return
        user, node = connection.user, node_of(request.uri.user)
        assert user is not None  # noqa: S101 - the connection authenticated the request
        if node is None or await connection.hub.directory.owner(node) != user.customer_id:
            await connection.send(codec.reply(request, 403, tag=connection.tag()))
            return
        if len(self.active) >= settings.subscriptions_per_connection:
            answer = codec.reply(request, 403, tag=connection.tag())
            answer.headers.set("Warning", '399 telephony "Too many subscriptions on this connection"')
            await connection.send(answer)
            return
        subscription = Subscription(connection, request, node, user)
        await self._accepted(request, subscription, expires)
        if expires == 0:
            await subscription.start()
            await subscription.end()
            return
        self.active[(subscription.call_id, subscription.tag)] = subscription
        await subscription.start()

    async def _refresh(self, request: Request, tag: str, expires: int) -> None:
        subscription = self.active.get((request.call_id, tag))
        if subscription is None:
            await self.connection.send(codec.reply(request, 481))
            return
        await self._accepted(request, subscription, expires)
        if expires == 0:
            await subscription.end()
        else:
            await subscription._notify([], full=False)

    async def _accepted(self, request: Request, subscription: Subscription, expires: int) -> None:
        subscription.refresh(expires)
        answer = codec.reply(request, 200, tag=subscription.tag)
        answer.headers.set("Expires", str(expires))
        answer.headers.set("Contact", f"<sip:{subscription.node.name}@{self.connection.host};transport=ws>")
        await self.connection.send(answer)

    def close(self) -> None:
        for subscription in self.active.values():
            subscription.stop()
        self.active.clear()
