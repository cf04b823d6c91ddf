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

from ..clock import parse_wire_time
from ..documents import reads
from ..documents.listing import ReadStore
from ..domain import webhooks as hooks
from ..domain.calls.fold import fold
from ..domain.events.accounts import CustomerDeleted
from ..domain.events.calls import CallEvent
from ..domain.events.messaging import SmsCreated
from ..eventlog import NewEvent, RecordedEvent, store
from ..eventlog.connection import Connection
from ..reactors.reactor import Reaction, Reactor
from .bodies import CHANGES, Made, call_events, inbound_sms
from .configuration import KIND, WEBHOOK
from .deliveries import Outgoing, queued


class Dispatcher(Reactor):
    """An inbound SMS's record (`sms.created` of `type` in) is delivered as the spec's `sms.received`;
    after a webhook's or a customer's deletion, whether any webhook is left is asked again."""

    name = "webhook-dispatcher"
    handles = frozenset({*CHANGES, SmsCreated, WEBHOOK.created, WEBHOOK.deleted, CustomerDeleted})

    def __init__(self, reader: ReadStore) -> None:
        self._reader = reader
        self._any_webhook: bool | None = None
        """Whether some customer may have a webhook (None: to be asked)."""

    async def react(self, event: RecordedEvent) -> Reaction:
        if isinstance(event.event, WEBHOOK.created):
            self._any_webhook = True
            return None
        if isinstance(event.event, WEBHOOK.deleted | CustomerDeleted):
            self._any_webhook = None  # asked again at the next event
            return None
        if self._any_webhook is None:
            self._any_webhook = await reads.any_of(self._reader, KIND)
        if not self._any_webhook:
            return None  # no customer has a webhook yet: no transaction for an event nobody can want
        match event.event:
            case SmsCreated() as sms if (made := inbound_sms(event.position, sms)) is not None:
                return lambda conn: _sms(conn, event.position, sms, made)
            case CallEvent() as changed:
                return lambda conn: _call(conn, event, changed)
        return None


def _subscribed(conn: Connection, customer_id: int, event_name: str, position: int) -> list[dict]:
    """The customer's enabled webhooks that want `event_name` and were created before the log event at
    `position` made it (one created later gets what happens from then on, however far behind the
    dispatcher is, or from however far back it resumes after a crash)."""
    return [w for w in reads.every_document(conn, KIND, customer_id)
            if w["enabled"] and hooks.wanted(w["events"], event_name)
            and (store.opened_at(conn, f"{KIND}-{w['id']}") or 0) < position]  # fmt: skip


def _call(conn: Connection, event: RecordedEvent, changed: CallEvent) -> list[NewEvent]:
    so_far = store.stream_events(conn, event.stream)[: event.version]
    after, made = call_events(event.position, changed, fold(changed.id, so_far[:-1]))  # type: ignore[arg-type]
    if not after.customer_id:
        return []
    outgoing = [Outgoing(webhook=webhook, lane=f"call:{after.id}", call_id=after.id, event_id=m.event_id,
                         event_name=m.name, body=m.body)
                for m in made for webhook in _subscribed(conn, after.customer_id, m.name, event.position)]  # fmt: skip
    return queued(conn, after.customer_id, outgoing, changed.at)


def _sms(conn: Connection, position: int, created: SmsCreated, made: Made) -> list[NewEvent]:
    customer_id, sms = created.customer_id, created.body
    outgoing = [Outgoing(webhook=webhook, lane=f"sms:{sms.id}", call_id=None, event_id=made.event_id,
                         event_name=made.name, body=made.body)
                for webhook in _subscribed(conn, customer_id, made.name, position)]  # fmt: skip
    return queued(conn, customer_id, outgoing, parse_wire_time(sms.created_at or "").timestamp())
