"""Website chats, simulated: a visitor writes, an operator (a user) answers, the chat ends.

`POST /_telephony/simulate/chat` (control key) starts a chat of a customer's website: the visitor's
fields, its messages in order (from the visitor or the operator, each `after` seconds into the chat)
and who answers (`operator_id`, else the customer's first user). The chat is `active` (state 2)
while it lasts, its messages are chat messages of the operator (`direction` in from the visitor, out
from the operator), and after `duration` seconds (else 30 s after its last message) it `ended`
(state 3) with that `duration`. A customer without users misses it (state 4).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from ..accounts import customer_exists
from ..clock import wire_time
from ..documents import reads
from ..domain.dictionaries import CHAT_STATE
from ..domain.errors import Invalid, Unknown
from ..domain.events import RESOURCES
from ..domain.events.messaging import CHAT, ChatCreated
from ..eventlog import Decision, NewEvent
from ..eventlog.connection import Connection
from ..projections.sequences import next_id

ACTIVE, ENDED, MISSED = (CHAT_STATE.to_code(name) for name in ("active", "ended", "missed"))
OPERATOR_UA = "telephony-chat/1.0"
VISITOR_FIELDS = ("city", "country", "email", "geo", "id", "ip", "name", "referer", "ua")


class Ending(msgspec.Struct, frozen=True):
    """When a chat an operator answers ends, and how long it lasts."""

    ends_at: float
    lasts: float


def started(customer_id: int, visitor: dict[str, Any], messages: Sequence[tuple[str, str, float]],
            operator_id: int | None, website_id: int | None, duration: float | None, now: Callable[[], float]
            ) -> Decision[dict[str, Any]]:  # fmt: skip
    """A chat, its messages, and when it ends."""

    def decide(conn: Connection) -> tuple[list[NewEvent], dict[str, Any]]:
        at = now()
        if not customer_exists(conn, customer_id):
            raise Unknown(f"Customer {customer_id} not found")
        users = reads.every_document(conn, "user", customer_id)
        if operator_id is not None and not any(u["id"] == operator_id for u in users):
            raise Invalid.field("operator_id", f"User {operator_id} not found")
        operator = operator_id if operator_id is not None else (users[0]["id"] if users else None)
        chat_id = next_id(conn, "chat")
        lasts = duration if duration is not None else max((m[2] for m in messages), default=0.0) + 30.0
        body = {"id": chat_id, "created_at": wire_time(at), "customer_id": customer_id, "duration": 0,
                "operator_id": operator, "operator_ua": OPERATOR_UA if operator else None,
                "state": ACTIVE if operator else MISSED, "website_id": website_id,
                **{f"visitor_{k}": visitor.get(k) for k in VISITOR_FIELDS}}  # fmt: skip
        ending = {"ends_at": at + lasts, "lasts": lasts} if operator else {}
        chat = ChatCreated(id=chat_id, customer_id=customer_id, body=CHAT.body(body), **ending)
        events = [NewEvent(stream=f"chat-{chat_id}", event=chat)]
        first = next_id(conn, "chatmsg")
        for n, (side, text, after) in enumerate(messages):
            message = {"id": first + n, "chat_id": chat_id, "user_id": operator,
                       "direction": "in" if side == "visitor" else "out", "message": text,
                       "created_at": wire_time(at + after)}  # fmt: skip
            made = RESOURCES["chatmsg"].made(first + n, customer_id, message)
            events.append(NewEvent(stream=f"chatmsg-{first + n}", event=made))
        return events, body

    return Decision(decide)


def ended(customer_id: int, chat_id: int, plan: Ending, now: Callable[[], float]) -> Decision[None]:
    """The chat is over: `ended`, with how long it lasted."""

    def decide(conn: Connection) -> tuple[list[NewEvent], None]:
        current = reads.documents(conn, "chat", [chat_id], customer_id).get(chat_id)
        if current is None:
            raise Unknown(f"Chat {chat_id} not found")
        if current["state"] != ACTIVE or now() < plan.ends_at - 1e-6:
            return [], None
        changes = {"state": ENDED, "duration": round(plan.lasts)}
        return [NewEvent(stream=f"chat-{chat_id}", event=CHAT.updated(id=chat_id, changes=changes))], None

    return Decision(decide)
