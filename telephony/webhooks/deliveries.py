"""Deliveries: one event to one webhook, queued, then attempted until delivered or given up.

Events, on the stream `delivery-<id>` (`domain.events.webhooks`): `webhook.delivery_queued`, the
event's body (the exact bytes sent) on its lane (the webhook and the call, or the SMS: a lane's
deliveries go out one after another, in order); `webhook.delivery_attempted`, one POST and how it
went (`outcome` delivered, retry at `next_at`, or failed).

Two read models follow them: the `delivery` documents that inspection lists, and `PendingDeliveries`,
in memory, the lanes of deliveries still to send, which the sender works through (and which a
restart folds again from the log, so pending deliveries resume).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import msgspec

from ..clock import wire_time
from ..documents import reads
from ..documents.changes import Patch, Put
from ..documents.projection import DocumentChange, Feed
from ..domain.errors import Unknown
from ..domain.events import Event
from ..domain.events.accounts import CustomerDeleted
from ..domain.events.webhooks import AttemptSeen, DeliveryAttempted, DeliveryQueued
from ..domain.webhooks import retry_delay
from ..eventlog import Decision, NewEvent, RecordedEvent
from ..eventlog.connection import Connection
from ..projections.memory import MemoryProjection
from ..projections.sequences import next_id

CLAIMING = (DeliveryQueued,)
"""The delivery events that claim a delivery id."""
KIND = "delivery"
HISTORY = 16
"""The most attempts a delivery keeps in its history (there are at most nine)."""
EXCERPT = 500
"""The characters of a receiver's answer kept with an attempt."""


@dataclass(frozen=True, kw_only=True)
class Outgoing:
    """An event for one webhook, to be queued."""

    webhook: dict[str, Any]
    lane: str
    call_id: int | None
    event_id: str
    event_name: str
    body: str


def queued(conn: Connection, customer_id: int, outgoing: Iterable[Outgoing], at: float) -> list[NewEvent]:
    """The events that queue each outgoing event, with consecutive delivery ids."""
    first = next_id(conn, KIND)
    events = []
    for n, out in enumerate(outgoing):
        id_ = first + n
        queued_ = DeliveryQueued(id=id_, customer_id=customer_id, webhook_id=out.webhook["id"],
                                 webhook=out.webhook["name"], lane=out.lane, call_id=out.call_id, event_id=out.event_id,
                                 event_name=out.event_name, body=out.body, at=at, claims={KIND: [id_]})  # fmt: skip
        events.append(NewEvent(stream=f"{KIND}-{id_}", event=queued_))
    return events


@dataclass(frozen=True, kw_only=True)
class Attempt:
    """How one POST went: the HTTP status (None when there was no answer), its time, the error."""

    delivery_id: int
    customer_id: int
    attempt: int
    at: float
    status: int | None
    latency_ms: float
    error: str | None
    excerpt: str

    @property
    def delivered(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


Consequences = Callable[[Connection, dict[str, Any], Attempt], list[NewEvent]]
"""What an attempt brings on its webhook (its failure noted, the webhook disabled), in the transaction."""


def recorded(attempt: Attempt, seed: int, consequences: Consequences) -> Decision[DeliveryAttempted | None]:
    """An attempt's record (nothing when the delivery moved on meanwhile): delivered, retried at its
    next time, or given up after the last retry."""

    def decide(conn: Connection) -> tuple[list[NewEvent], DeliveryAttempted | None]:
        current = reads.documents(conn, KIND, [attempt.delivery_id], attempt.customer_id).get(attempt.delivery_id)
        if current is None or current["status"] != "pending" or current["attempts"] + 1 != attempt.attempt:
            return [], None
        delay = None if attempt.delivered else retry_delay(attempt.attempt, f"{seed}:{attempt.delivery_id}")
        outcome = "delivered" if attempt.delivered else "retry" if delay is not None else "failed"
        seen = AttemptSeen(attempt=attempt.attempt, at=wire_time(attempt.at), status=attempt.status,
                           latency_ms=round(attempt.latency_ms, 1), error=attempt.error,
                           excerpt=attempt.excerpt[:EXCERPT])  # fmt: skip
        history = [msgspec.convert(entry, AttemptSeen) for entry in current.get("history") or []]
        attempted = DeliveryAttempted(id=attempt.delivery_id, attempt=seen.attempt, at=attempt.at, status=seen.status,
                                      latency_ms=seen.latency_ms, error=seen.error, excerpt=seen.excerpt,
                                      outcome=outcome, next_at=None if delay is None else attempt.at + delay,
                                      history=[*history, seen][-HISTORY:])  # fmt: skip
        events = [NewEvent(stream=f"{KIND}-{attempt.delivery_id}", event=attempted)]
        return events + consequences(conn, current, attempt), attempted

    return Decision(decide)


def redelivered(customer_id: int, delivery_id: int, at: float) -> Decision[dict[str, Any]]:
    """The same event queued again to the same webhook (the same `webhook-id`, a new delivery)."""

    def decide(conn: Connection) -> tuple[list[NewEvent], dict[str, Any]]:
        found = reads.documents(conn, KIND, [delivery_id], customer_id).get(delivery_id)
        if found is None:
            raise Unknown(f"Delivery {delivery_id} not found")
        webhook = {"id": found["webhook_id"], "name": found["webhook"]}
        again = Outgoing(webhook=webhook, lane=found["lane"], call_id=found["call_id"], event_id=found["event_id"],
                         event_name=found["event_name"], body=found["body"])  # fmt: skip
        events = queued(conn, customer_id, [again], at)
        assert isinstance(events[0].event, DeliveryQueued)
        return events, document(events[0].event)

    return Decision(decide)


# --- read models ------------------------------------------------------------------------------------


def document(queued_: DeliveryQueued) -> dict[str, Any]:
    """A queued delivery as inspection shows it."""
    at = wire_time(queued_.at)
    return {"id": queued_.id, "webhook_id": queued_.webhook_id, "webhook": queued_.webhook, "lane": queued_.lane,
            "call_id": queued_.call_id, "event_id": queued_.event_id, "event_name": queued_.event_name,
            "status": "pending", "attempts": 0, "next_at": at, "created_at": at, "body": queued_.body,
            "history": []}  # fmt: skip


STATUS = {"delivered": "delivered", "retry": "pending", "failed": "failed"}


def documents(event: RecordedEvent) -> Iterable[DocumentChange]:
    match event.event:
        case DeliveryQueued() as queued_:
            yield Put(queued_.id, queued_.customer_id, document(queued_))
        case DeliveryAttempted() as attempted:
            next_at = None if attempted.next_at is None else wire_time(attempted.next_at)
            history = msgspec.to_builtins(attempted.history)
            yield Patch(attempted.id, {"status": STATUS[attempted.outcome], "attempts": attempted.attempt,
                                       "next_at": next_at, "history": history})  # fmt: skip


FEEDS: dict[str, dict[type[Event], Feed]] = {KIND: {DeliveryQueued: documents, DeliveryAttempted: documents}}


@dataclass
class Pending:
    """A delivery still to send: where, what, and when it is next due."""

    id: int
    customer_id: int
    webhook_id: int
    lane: str
    event_id: str
    body: str
    attempts: int
    due: float


class PendingDeliveries(MemoryProjection):
    """The lanes of deliveries still to send, each in queue order; `on_change` (the sender) hears of
    a lane whose head changed or is due again, and since when it could be sent: the clock time of the
    event that freed it (its queueing, or the attempt that ended the delivery before it)."""

    name = "pending_deliveries"
    handles = frozenset({DeliveryQueued, DeliveryAttempted, CustomerDeleted})
    kept_as = tuple[list[Pending], list[tuple[int, str, list[int]]]]

    def __init__(self, on_change: Callable[[tuple[int, str], float], None] | None = None) -> None:
        self.on_change = on_change
        self.reset()

    def reset(self) -> None:
        self.pending: dict[int, Pending] = {}
        self.lanes: dict[tuple[int, str], deque[int]] = {}

    def apply(self, event: RecordedEvent) -> None:
        match event.event:
            case CustomerDeleted(id=customer_id):
                for gone in [p for p in self.pending.values() if p.customer_id == customer_id]:
                    self._drop(gone, 0.0)
            case DeliveryQueued() as q:
                pending = Pending(q.id, q.customer_id, q.webhook_id, q.lane, q.event_id, q.body, 0, q.at)
                self.pending[pending.id] = pending
                lane = self.lanes.setdefault((pending.webhook_id, pending.lane), deque())
                lane.append(pending.id)
                if len(lane) == 1:
                    self._changed((pending.webhook_id, pending.lane), q.at)
            case DeliveryAttempted(id=id_) as attempted if (pending_ := self.pending.get(id_)) is not None:
                if attempted.outcome == "retry":
                    pending_.attempts, pending_.due = attempted.attempt, attempted.next_at or attempted.at
                    self._changed((pending_.webhook_id, pending_.lane), attempted.at)
                else:
                    self._drop(pending_, attempted.at)

    def _drop(self, pending: Pending, since: float) -> None:
        key = (pending.webhook_id, pending.lane)
        del self.pending[pending.id]
        lane = self.lanes.get(key)
        if lane is None:
            return
        head = lane[0] if lane else None
        lane.remove(pending.id)
        if not lane:
            del self.lanes[key]
        elif head == pending.id:
            self._changed(key, since)

    def _changed(self, key: tuple[int, str], since: float) -> None:
        if self.on_change is not None:
            self.on_change(key, since)

    def head(self, key: tuple[int, str]) -> Pending | None:
        lane = self.lanes.get(key)
        return self.pending[lane[0]] if lane else None

    def behind(self, delivery_id: int) -> int | None:
        """The delivery a pending one waits behind (its lane's head, being sent or retried), if any."""
        pending = self.pending.get(delivery_id)
        head = self.head((pending.webhook_id, pending.lane)) if pending is not None else None
        return head.id if head is not None and head.id != delivery_id else None

    def of_webhook(self, webhook_id: int) -> list[tuple[int, str]]:
        return [key for key in self.lanes if key[0] == webhook_id]

    def state(self) -> Any:
        return {key: list(lane) for key, lane in self.lanes.items()}, {
            id_: (p.attempts, p.due) for id_, p in self.pending.items()}  # fmt: skip

    def snapshot(self) -> Any:
        return list(self.pending.values()), [(webhook, lane, list(ids)) for (webhook, lane), ids in self.lanes.items()]

    def restore(self, kept: Any) -> None:
        pending, lanes = kept
        self.pending = {p.id: p for p in pending}
        self.lanes = {(webhook, lane): deque(ids) for webhook, lane, ids in lanes}

    def fresh(self) -> MemoryProjection:
        return PendingDeliveries()
