"""A customer's webhooks as their events record them, and their deliveries as the API shows them."""

import msgspec


class _WebhookFields(msgspec.Struct, kw_only=True):
    """What a webhook is, as the API shows it and its events keep it."""

    id: int
    """The webhook's id."""
    name: str
    """The webhook's name, unique in its customer: it names the webhook in paths."""
    url: str
    """The `https://` URL deliveries are POSTed to."""
    events: list[str]
    """The events it wants (`call.state`: every call state event, `sms.received`, ...)."""
    enabled: bool
    """Whether deliveries are made to it."""
    created_at: str
    """When it was made (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    updated_at: str
    """When it was last changed (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    failing_since: str | None = None
    """When its current streak of failed deliveries began (UTC, `YYYY-MM-DD HH:MM:SS`); None: the last went."""
    disabled_reason: str | None = None
    """Why the server disabled it (every delivery failed for too long)."""


class WebhookRecord(_WebhookFields, kw_only=True):
    """A webhook as its events keep it: its signing secret sealed."""

    secret_sealed: str | None = None
    """Its signing secret, sealed with the data dir's key (the API shows the secret once, as `secret`)."""


class Webhook(_WebhookFields, kw_only=True):
    """A webhook as the API shows it; `secret` only in the answer that made it (create, rotate)."""

    secret: str | None = None
    """Its signing secret (in the answer that made it only)."""


class AttemptSeen(msgspec.Struct, frozen=True, kw_only=True):
    """One attempt as a delivery's history shows it."""

    attempt: int
    """Which attempt it was (1 for the first)."""
    at: str
    """When it was made (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    status: int | None
    """The receiver's HTTP status (None: no answer)."""
    latency_ms: float
    """Milliseconds until the answer (real time)."""
    error: str | None
    """What went wrong, when no answer came."""
    excerpt: str
    """The answer's first 500 characters."""


class Delivery(msgspec.Struct, kw_only=True):
    """One event to one webhook and its attempts (`history`: status, latency, error, excerpt each)."""

    id: int
    """The delivery's id."""
    webhook_id: int
    """The webhook it goes to."""
    webhook: str
    """The webhook's name."""
    lane: str
    """`call:<id>` or `sms:<id>`: a lane's deliveries go out one after another, in order."""
    call_id: int | None = None
    """The call whose event it carries (None for an SMS's)."""
    event_id: str
    """`evt_<position>_<n>`: the same for every webhook and every retry (the `webhook-id` header)."""
    event_name: str
    """The event it carries (`call.state`, `sms.received`, ...)."""
    status: str
    """`pending`, `delivered` or `failed`."""
    attempts: int
    """How many attempts were made."""
    next_at: str | None = None
    """When the next attempt is due (UTC, `YYYY-MM-DD HH:MM:SS`); None: no more."""
    created_at: str
    """When it was queued (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    body: str
    """The JSON body, byte for byte as it is sent."""
    history: list[AttemptSeen] = msgspec.field(default_factory=list)
    """Its last attempts (at most 16), the latest last."""
