"""The events of webhook deliveries: one event to one webhook, queued, then attempted until done.

On the stream `delivery-<id>`. A webhook's own record is a resource (`webhook.created` ...).
"""

from __future__ import annotations

import msgspec

from .base import Claims, Event


class DeliveryQueued(Event, frozen=True, kw_only=True, tag="webhook.delivery_queued"):
    """An event of the spec's is queued for one webhook, with the exact body to send."""

    id: int
    customer_id: int
    webhook_id: int
    webhook: str
    """The webhook's name."""
    lane: str
    """`call:<id>` or `sms:<id>`: a lane's deliveries go out one after another, in order."""
    call_id: int | None
    event_id: str
    """`evt_<position>_<n>`: the same for every webhook and every retry (the `webhook-id` header)."""
    event_name: str
    body: str
    """The JSON body, byte for byte as it is sent."""
    at: float
    claims: Claims


class AttemptSeen(msgspec.Struct, frozen=True, kw_only=True):
    """One attempt as a delivery's history shows it."""

    attempt: int
    at: str
    status: int | None
    latency_ms: float
    error: str | None
    excerpt: str


class DeliveryAttempted(Event, frozen=True, kw_only=True, tag="webhook.delivery_attempted"):
    """One POST of a delivery and how it went: `delivered`, `retry` (at `next_at`) or `failed` (given up)."""

    id: int
    attempt: int
    at: float
    status: int | None
    """The HTTP status of the answer (None: no answer)."""
    latency_ms: float
    error: str | None
    excerpt: str
    """The answer's first 500 characters."""
    outcome: str
    next_at: float | None
    history: list[AttemptSeen]
    """Every attempt of the delivery so far (the last 16)."""


WEBHOOK_EVENTS = (DeliveryQueued, DeliveryAttempted)
