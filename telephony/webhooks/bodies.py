"""The spec's webhook events drawn from the log's events, body and all: what the dispatcher queues
for each webhook, and what the event stream sends (`testing`), byte for byte the same.

A call's event makes the events `domain.webhooks.events_of` says, given the call folded up to it; an
inbound SMS's record makes `sms.received`. Each is `evt_<position>_<n>` (the n-th the log event at
that position makes), the id a delivery carries as `webhook-id` on every attempt.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from ..domain import webhooks as hooks
from ..domain.calls.call import Call
from ..domain.calls.fold import evolve
from ..domain.events import Event
from ..domain.events.calls import CallAnswered, CallEnded, CallEvent, CallHeld, CallPlaced, CallResumed, CallRinging
from ..domain.events.messaging import SmsCreated

CHANGES: frozenset[type[Event]] = frozenset({CallPlaced, CallRinging, CallAnswered, CallHeld, CallResumed, CallEnded})
"""The call events that can change a call's state; the others make no webhook event."""
_encode = msgspec.json.encode


@dataclass(frozen=True)
class Made:
    """One webhook event: its id, its name and its body (JSON text, as sent)."""

    event_id: str
    name: str
    body: str


def call_events(position: int, changed: CallEvent, before: Call) -> tuple[Call, list[Made]]:
    """The call after `changed`, the log's event at `position` (`before`: the call folded up to the
    event before it), and the webhook events it makes."""
    after = evolve(before, changed)
    made = []
    for n, name in enumerate(hooks.events_of(changed, before, after)):
        event_id = f"evt_{position}_{n}"
        made.append(Made(event_id, name, _encode(hooks.call_body(event_id, name, after, changed.at)).decode()))
    return after, made


def inbound_sms(position: int, created: SmsCreated) -> Made | None:
    """The `sms.received` an SMS's record (the log's event at `position`) makes: None for an SMS sent."""
    sms = created.body
    if sms.type != "in":
        return None
    event_id = f"evt_{position}_0"
    body = hooks.sms_body(event_id, sms.created_at, created.customer_id, sms.user_id, sms.from_, sms.to,
                          sms.message)  # fmt: skip
    return Made(event_id, hooks.SMS_RECEIVED, _encode(body).decode())
