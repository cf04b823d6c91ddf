"""The events of webhook deliveries: one event to one webhook, queued, then attempted until done.

On the stream `delivery-<id>`. A webhook's own record is a resource (`webhook.created` ...).
"""

from __future__ import annotations

from ..schemas.webhooks import AttemptSeen
from .base import Claims, Event


class DeliveryQueued(Event, frozen=True, kw_only=True, tag="webhook.delivery_queued"):
    """An event of the spec's is queued for one webhook, with the exact body to send."""

    id: int
    """The delivery's id (its stream is `delivery-<id>`)."""
    customer_id: int
    """The customer whose webhook it goes to."""
    webhook_id: int
    """The webhook it goes to."""
    webhook: str
    """The webhook's name."""
    lane: str
    """`call:<id>` or `sms:<id>`: a lane's deliveries go out one after another, in order."""
    call_id: int | None
    """The call whose event it carries (None for an SMS's)."""
    event_id: str
    """`evt_<position>_<n>`: the same for every webhook and every retry (the `webhook-id` header)."""
    event_name: str
    """The event it carries (`call.state`, `sms.received`, ...)."""
    body: str
    """The JSON body, byte for byte as it is sent."""
    at: float
    """When it was queued (clock time, epoch seconds)."""
    claims: Claims
    """The ids it takes (its delivery's)."""


class DeliveryAttempted(Event, frozen=True, kw_only=True, tag="webhook.delivery_attempted"):
    """One POST of a delivery and how it went: `delivered`, `retry` (at `next_at`) or `failed` (given up)."""

    id: int
    """The delivery's id."""
    attempt: int
    """Which attempt it was (1 for the first)."""
    at: float
    """When it was made (clock time, epoch seconds)."""
    status: int | None
    """The HTTP status of the answer (None: no answer)."""
    latency_ms: float
    """Milliseconds until the answer (real time)."""
    error: str | None
    """What went wrong, when no answer came."""
    excerpt: str
    """The answer's first 500 characters."""
    outcome: str
    """`delivered`, `retry` or `failed` (given up)."""
    next_at: float | None
    """When the next attempt is due (clock time, epoch seconds; None: no more)."""
    history: list[AttemptSeen]
    """Every attempt of the delivery so far (the last 16)."""


WEBHOOK_EVENTS = (DeliveryQueued, DeliveryAttempted)
