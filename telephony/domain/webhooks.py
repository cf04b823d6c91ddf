"""Webhooks as pure rules: the events a call's change makes, their bodies, signatures and retries.

A webhook subscribes to some of the spec's selectable types: `call.missed`, `call.ringing`,
`call.connected`, `call.hangup`, `call.state` (every change of state of every call: initial,
ringing, connected, hold, unhold, hangup, missed) and `sms.received`. A call's event makes the
spec's events (`events_of`); a webhook receives those it subscribes to, each once. `call.ringing` is
sent when the called side rings, not when a click-to-call first rings the caller's own phone.

Bodies are the spec's tables (`call_body`, `sms_body`): times `YYYY-MM-DD HH:MM:SS` UTC, `call_id`
the CDR's `live_id`. Deliveries are signed the Standard Webhooks way (`sign`): `webhook-id`,
`webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`
keyed by the webhook's `whsec_` secret. A failed delivery is tried again after `RETRY_SECONDS`
(5 s, 30 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), each ±10% (`retry_delay`), then given up.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import random
from collections.abc import Iterable
from typing import Any

from ..clock import wire_time
from .calls.call import Call, whole_seconds
from .events.calls import CallAnswered, CallEnded, CallEvent, CallHeld, CallPlaced, CallResumed, CallRinging

CALL_MISSED, CALL_RINGING, CALL_CONNECTED, CALL_HANGUP, CALL_STATE = (
    "call.missed", "call.ringing", "call.connected", "call.hangup", "call.state",
)  # fmt: skip
SMS_RECEIVED = "sms.received"
SELECTABLE = (CALL_MISSED, CALL_RINGING, CALL_CONNECTED, CALL_HANGUP, CALL_STATE, SMS_RECEIVED)
"""The types a webhook may subscribe to."""
STATE_EVENTS = frozenset({"call.initial", CALL_RINGING, CALL_CONNECTED, "call.hold", "call.unhold", CALL_HANGUP,
                          CALL_MISSED})  # fmt: skip
"""What `call.state` receives: every change of state of every call."""
RETRY_SECONDS = (5, 30, 300, 1800, 7200, 18000, 36000, 36000)
JITTER = 0.1
SECRET_PREFIX = "whsec_"


def events_of(event: CallEvent, before: Call, after: Call) -> list[str]:
    """The spec's events a call's event makes (`before` and `after` it). `call.ringing` is the called
    side ringing (the `dst` leg: each destination a hunt reaches in turn): the platform ringing the
    calling side's own phone first (a click-to-call's `src`) is part of placing the call, and a body
    saying the destination rings then would be wrong."""
    match event:
        case CallPlaced():
            return ["call.initial"]
        case CallRinging():
            return [CALL_RINGING] if after.ringing == "dst" else []
        case CallAnswered() if before.connected_at is None and after.connected_at is not None:
            return [CALL_CONNECTED]
        case CallHeld():
            return ["call.hold"]
        case CallResumed():
            return ["call.unhold"]
        case CallEnded():
            return [CALL_HANGUP] if after.connected_at is not None else [CALL_MISSED, CALL_HANGUP]
    return []


def wanted(subscribed: Iterable[str], event_name: str) -> bool:
    """Whether a webhook subscribed to `subscribed` receives an event of `event_name`."""
    chosen = set(subscribed)
    return event_name in chosen or (CALL_STATE in chosen and event_name in STATE_EVENTS)


def _time(moment: float | None) -> str | None:
    return None if moment is None else wire_time(moment)


DESTINATIONS = {"in": "in"}
"""A call's `destination` as the events name it: inbound calls `in`, every other kind `out`."""


def call_body(event_id: str, event_name: str, call: Call, at: float) -> dict[str, Any]:
    """The spec's call event body, of the call as it is after the event."""
    return {
        "id": event_id, "event_time": wire_time(at), "event_name": event_name, "call_id": call.id,
        "state": call.state, "connected_at": _time(call.connected_at), "start_time": wire_time(call.placed_at),
        "context": call.context, "destination": DESTINATIONS.get(call.destination, "out"),
        "duration": whole_seconds(call.placed_at, at), "t_cause": call.cause, "src": call.src.number,
        "dst": call.dialled or call.dst.number, "src_id": call.src.id, "dst_id": call.dst.id,
        "src_name": call.src.name, "dst_name": call.dst.name,
    }  # fmt: skip


def sms_body(event_id: str, received: str | None, customer_id: int, user_id: int | None, from_no: str | None,
             to_no: str | None, text: str | None) -> dict[str, Any]:  # fmt: skip
    """The spec's `sms.received` body (`received`: the SMS's wire time)."""
    return {"id": event_id, "event_time": received, "event_name": SMS_RECEIVED, "customer_id": customer_id,
            "user_id": user_id, "from_no": from_no, "to_no": to_no, "text": text}  # fmt: skip


def new_secret(key: bytes) -> str:
    """A signing secret: `whsec_` and `key` (32 random bytes) in base64."""
    return SECRET_PREFIX + base64.b64encode(key).decode()


def sign(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """The `webhook-signature` header of a delivery (Standard Webhooks, version 1)."""
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    digest = hmac.new(key, f"{message_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def retry_delay(attempt: int, seed: str) -> float | None:
    """Seconds until the attempt after failed attempt number `attempt` (1 = the first); None when
    the delivery is given up. The jitter is drawn from `seed` (the delivery's), so it is replayable."""
    if attempt > len(RETRY_SECONDS):
        return None
    base = RETRY_SECONDS[attempt - 1]
    return round(base * (1 + random.Random(f"{seed}:{attempt}").uniform(-JITTER, JITTER)), 3)
