"""The dispatcher: a reactor that turns call and SMS events into deliveries for the webhooks wanting them.

It follows the log from its own tracking position (never from a request handler). For a call's
event it folds the call's stream up to that event, asks the rules which of the spec's events it
makes (`domain.webhooks.events_of`), draws each one's body once (its id `evt_<position>_<n>`, the
same for every webhook and every retry) and queues a delivery per enabled webhook of the customer
subscribed to it, all in the transaction that records the dispatcher's position: each event is
queued exactly once. A webhook is sent only what the log recorded after its creation, however late
the dispatcher reaches an event; so while no customer has any webhook, an event makes no transaction
at all (the position is then recorded from time to time, as for any event a reactor passes over).
Whether one exists is asked of the database once, and again after a webhook or a customer is deleted;
meanwhile the dispatcher learns of new ones from their `webhook.created` events, which it meets in
log order before any event they may be sent.
"""

from __future__ import annotations

import sqlite3

import msgspec

from ..documents import reads
from ..documents.connections import Reader
from ..domain import calls as rules
from ..domain import webhooks as hooks
from ..domain.accounts import CUSTOMER_DELETED
from ..eventlog import NewEvent, RecordedEvent, store
from ..reactors.reactor import Reaction, Reactor
from .configuration import KIND
from .deliveries import Outgoing, queued, since

SMS_CREATED = "sms.created"
"""An SMS's record: an inbound one (`type` in) is delivered as the spec's `sms.received`."""
CHANGES = frozenset({rules.PLACED, "call.ringing", "call.answered", "call.held", "call.resumed", rules.ENDED})
"""The call events that can change a call's state; the others make no webhook event."""
WEBHOOK_CREATED = f"{KIND}.created"
GONE = frozenset({f"{KIND}.deleted", CUSTOMER_DELETED})
"""Events after which no webhook may be left: whether any is, is asked again."""
_encode = msgspec.json.encode


class Dispatcher(Reactor):
    name = "webhook-dispatcher"
    handles = frozenset({*CHANGES, SMS_CREATED, WEBHOOK_CREATED, *GONE})

    def __init__(self, reader: Reader) -> None:
        self._reader = reader
        self._any_webhook: bool | None = None
        """Whether some customer may have a webhook (None: to be asked)."""

    async def react(self, event: RecordedEvent) -> Reaction:
        if event.type == WEBHOOK_CREATED:
            self._any_webhook = True
            return None
        if event.type in GONE:
            self._any_webhook = None  # asked again at the next event
            return None
        if self._any_webhook is None:
            self._any_webhook = await reads.any_of(self._reader, KIND)
        if not self._any_webhook:
            return None  # no customer has a webhook yet: no transaction for an event nobody can want
        if event.type == SMS_CREATED:
            return (lambda conn: _sms(conn, event)) if event.data["body"].get("type") == "in" else None
        return lambda conn: _call(conn, event)


def _subscribed(conn: sqlite3.Connection, customer_id: int, event_name: str, position: int) -> list[dict]:
    """The customer's enabled webhooks that want `event_name` and were created before the log event at
    `position` made it (one created later gets what happens from then on, however far behind the
    dispatcher is, or from however far back it resumes after a crash)."""
    return [w for w in reads.every_document(conn, KIND, customer_id)
            if w["enabled"] and hooks.wanted(w["events"], event_name)
            and (store.opened_at(conn, f"{KIND}-{w['id']}") or 0) < position]  # fmt: skip


def _call(conn: sqlite3.Connection, event: RecordedEvent) -> list[NewEvent]:
    data = event.data
    so_far = store.stream_content(conn, event.stream)[: event.version]
    before = rules.fold(data["id"], so_far[:-1])
    after = rules.evolve(before, event.type, data)
    if not after.customer_id:
        return []
    outgoing = []
    for n, name in enumerate(hooks.events_of(event.type, before, after)):
        event_id = f"evt_{event.position}_{n}"
        body = _encode(hooks.call_body(event_id, name, after, data["at"])).decode()
        outgoing += [Outgoing(webhook, f"call:{after.id}", after.id, event_id, name, body)
                     for webhook in _subscribed(conn, after.customer_id, name, event.position)]  # fmt: skip
    return queued(conn, after.customer_id, outgoing, data["at"])


def _sms(conn: sqlite3.Connection, event: RecordedEvent) -> list[NewEvent]:
    customer_id, sms = event.data["customer_id"], event.data["body"]
    event_id = f"evt_{event.position}_0"
    body = _encode(hooks.sms_body(event_id, sms["created_at"], customer_id, sms.get("user_id"), sms["from"],
                                  sms["to"], sms["message"])).decode()  # fmt: skip
    outgoing = [Outgoing(webhook, f"sms:{sms['id']}", None, event_id, hooks.SMS_RECEIVED, body)
                for webhook in _subscribed(conn, customer_id, hooks.SMS_RECEIVED, event.position)]  # fmt: skip
    return queued(conn, customer_id, outgoing, since(sms["created_at"]) or 0.0)
