"""The spec's webhook events drawn from the log's events, body and all: what the dispatcher queues
for each webhook, and what the event stream sends (`testing`), byte for byte the same.

A call's event makes the events `domain.webhooks.events_of` says, given the call folded up to it; an
inbound SMS's record makes `sms.received`. Each is `evt_<position>_<n>` (the n-th the log event at
that position makes), the id a delivery carries as `webhook-id` on every attempt.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from ..domain import calls as rules
from ..domain import webhooks as hooks
from ..eventlog import RecordedEvent

SMS_CREATED = "sms.created"
"""An SMS's record: an inbound one (`type` in) is the spec's `sms.received`."""
CHANGES = frozenset({rules.PLACED, "call.ringing", "call.answered", "call.held", "call.resumed", rules.ENDED})
"""The call events that can change a call's state; the others make no webhook event."""
_encode = msgspec.json.encode


@dataclass(frozen=True)
class Made:
    """One webhook event: its id, its name and its body (JSON text, as sent)."""

    event_id: str
    name: str
    body: str


def call_events(event: RecordedEvent, before: rules.Call) -> tuple[rules.Call, list[Made]]:
    """The call after `event` (`before`: folded up to the event before it) and the webhook events it makes."""
    after = rules.evolve(before, event.type, event.data)
    made = []
    for n, name in enumerate(hooks.events_of(event.type, before, after)):
        event_id = f"evt_{event.position}_{n}"
        made.append(Made(event_id, name, _encode(hooks.call_body(event_id, name, after, event.data["at"])).decode()))
    return after, made


def inbound_sms(event: RecordedEvent) -> Made | None:
    """The `sms.received` an SMS's record makes: None for an SMS sent."""
    sms = event.data["body"]
    if sms.get("type") != "in":
        return None
    event_id = f"evt_{event.position}_0"
    body = hooks.sms_body(event_id, sms["created_at"], event.data["customer_id"], sms.get("user_id"), sms["from"],
                          sms["to"], sms["message"])  # fmt: skip
    return Made(event_id, hooks.SMS_RECEIVED, _encode(body).decode())
