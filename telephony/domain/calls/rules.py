"""What may be done to a call, as pure decisions: a command and the call's state give its events.

A command the transition table refuses is `Invalid`, naming the call's state and the field of the
request that asked for it, so the API answers 400. A call that ended does not exist any more: a
command on it is `Unknown` (404), as on a call that never was. Each function returns the events
as `(type, data)` pairs; the caller records them on the call's stream at the version the state was
folded at.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from ..errors import Invalid, Unknown
from .state import (
    ACTION_SET,
    ANSWERED,
    ENDED,
    HELD,
    LABELLED,
    LIVE,
    PLACED,
    RANG,
    RECORDING_PAUSED,
    RECORDING_RESUMED,
    RECORDING_STARTED,
    RESUMED,
    ROUTED,
    TALKING,
    TRANSFERRED,
    TRANSITIONS,
    WAS_ACCEPTED,
    Call,
    Party,
    Plan,
    evolve,
    other,
)

Event = tuple[str, dict[str, Any]]

CAUSES: Mapping[str, str] = {
    "answer": "normal clearing",
    "busy": "user busy",
    "reject": "call rejected",
    "no_answer": "no answer",
    "fail": "temporary failure",
    "unallocated": "unallocated number",
    "unavailable": "no user responding",
}
"""The cause a destination's outcome ends a call with (Q.850 names, as the platform's `t_cause`)."""
DISPOSITIONS: Mapping[str, str] = {
    "user busy": "BUSY",
    "call rejected": "BUSY",
    "no answer": "NO_ANSWER",
    "originator cancel": "NO_ANSWER",
    "no user responding": "NO_ANSWER",
    "temporary failure": "FAILED",
    "unallocated number": "FAILED",
    "voicemail": "VM",
}
"""A CDR's disposition by cause; any other cause keeps the state the call ended in."""
RINGS = frozenset({"answer", "no_answer"})
"""Outcomes whose destination rings; the others answer the INVITE with a failure at once."""


def refuse(call: Call, doing: str, field: str = "state") -> Invalid:
    """A command the call's state does not allow, naming the field of the request that asked for it."""
    return Invalid.field(field, f"Call {call.id} is {call.state or 'unknown'}: it cannot {doing}.")


def _check(call: Call, type_: str, doing: str, field: str = "state") -> None:
    if call.state not in TRANSITIONS[type_]:
        raise refuse(call, doing, field)


def existing(call: Call, customer_id: int | None = None) -> Call:
    """The call, while it lives (and is `customer_id`'s, when given). After its hangup a call does not
    exist any more (real-platform.md: `GET /calls/{id}` is 404), so every command on it is refused as
    on a call that never was, with the same message."""
    if call.state not in LIVE or (customer_id is not None and call.customer_id != customer_id):
        raise Unknown(f"Call {call.id} not found")
    return call


def disposition(call: Call, cause: str) -> str:
    if call.context == "VOICEMAIL" and call.state in TALKING:
        return "VM"
    if cause in DISPOSITIONS:
        return DISPOSITIONS[cause]
    return call.state if call.state in TALKING else "NO_ANSWER"


def place(call_id: int, at: float, placed: Mapping[str, Any], *, accepted: bool) -> list[Event]:
    """A new call: placed, accepted (calls started through the API), and its first leg reached."""
    data = {"id": call_id, "at": at, **placed}
    events: list[Event] = [(PLACED, data)]
    if accepted:
        events.append((WAS_ACCEPTED, {"id": call_id, "at": at}))
    return events + reach(evolve(Call(id=call_id), PLACED, data), data["first"], at)


def reach(call: Call, leg: str, at: float) -> list[Event]:
    """The platform reaches a leg: its client rings, unless the destination fails it at once; a
    destination that rings for no time (the platform's own: an IVR, a queue, voicemail, a conference
    room) answers as it is reached."""
    if leg == "dst" and call.plan.outcome not in RINGS:
        return []
    rang: Event = (RANG, {"id": call.id, "at": at, "leg": leg})
    if leg == "dst" and call.plan.outcome == "answer" and call.plan.ring_seconds <= 0:
        return [rang, *answer(evolve(call, *rang), at, leg)]
    return [rang]


def answer(call: Call, at: float, leg: str | None = None) -> list[Event]:
    """The ringing leg (or `leg`, which must be ringing) answers; the other is reached next, or the
    call connects. A leg that never rang (a busy destination) cannot answer."""
    _check(call, ANSWERED, "be answered")
    leg = leg or call.ringing
    if leg is None or call.ringing != leg:
        raise refuse(call, "be answered: no leg of it is ringing")
    events: list[Event] = [(ANSWERED, {"id": call.id, "at": at, "leg": leg})]
    if call.answered_at(other(leg)) is None:
        return events + reach(evolve(call, *events[0]), other(leg), at)
    if call.record and call.recording == "off":
        events.append((RECORDING_STARTED, {"id": call.id, "at": at}))
    return events


def route(call: Call, at: float, routed: Mapping[str, Any]) -> list[Event]:
    """The call's destination becomes another target (`routed`: dst, plan, context, fallback,
    user_id), which is reached at once (unless it is the host that holds the connected call)."""
    _check(call, ROUTED, "be routed")
    event = (ROUTED, {"id": call.id, "at": at, **routed})
    after = evolve(call, *event)
    return [event, *(reach(after, "dst", at) if after.reaching == "dst" else [])]


def hold(call: Call, at: float) -> list[Event]:
    _check(call, HELD, "be put on hold")
    return [(HELD, {"id": call.id, "at": at})]


def unhold(call: Call, at: float) -> list[Event]:
    _check(call, RESUMED, "be taken off hold")
    return [(RESUMED, {"id": call.id, "at": at})]


def end(call: Call, at: float, cause: str, by: str | None) -> list[Event]:
    if call.state not in LIVE:
        raise refuse(call, "be hung up")
    data = {"id": call.id, "at": at, "cause": cause, "disposition": disposition(call, cause), "by": by,
            "leg": call.reaching}  # fmt: skip
    return [(ENDED, data)]


def hang_up(call: Call, at: float, by: str = "src") -> list[Event]:
    """A side hangs up: normal clearing once connected, the originator's cancel before."""
    return end(call, at, "normal clearing" if call.state in TALKING else "originator cancel", by)


MONITOR_COMMANDS: Mapping[str, tuple[str, str, str]] = {
    "start": (RECORDING_STARTED, "off", "start recording"),
    "pause": (RECORDING_PAUSED, "on", "pause recording"),
    "resume": (RECORDING_RESUMED, "paused", "resume recording"),
}
"""`monitor_state` value -> (event, the recording state it needs, what it does)."""


def monitor(call: Call, at: float, command: str) -> list[Event]:
    type_, needs, doing = MONITOR_COMMANDS[command]
    _check(call, type_, doing, "monitor_state")
    if call.recording != needs:
        state = {"off": "not recording", "on": "recording", "paused": "paused"}[call.recording]
        raise Invalid.field("monitor_state", f"Call {call.id} is {state}: it cannot {doing}.")
    return [(type_, {"id": call.id, "at": at})]


def label(call: Call, at: float, labels: list[int]) -> list[Event]:
    _check(call, LABELLED, "be labelled")
    return [(LABELLED, {"id": call.id, "at": at, "labels": list(labels)})]


def set_action(call: Call, at: float, action_url: str | None, action_text: str | None) -> list[Event]:
    _check(call, ACTION_SET, "take an action link")
    return [(ACTION_SET, {"id": call.id, "at": at, "action_url": action_url, "action_text": action_text})]


def transfer(call: Call, at: float, to: Party, child_id: int, plan: Plan, context: str | None = None
             ) -> tuple[list[Event], list[Event]]:  # fmt: skip
    """Blind transfer: the call ends ("transferred") and its remote side (the outside caller of an
    inbound call, the called party of any other) goes on, in a new call `child_id` whose `parent_id`
    is this one, to `to`. Returns (this call's events, the child's)."""
    _check(call, TRANSFERRED, "be transferred", "dst")
    user, remote = (call.dst, call.src) if call.destination == "in" else (call.src, call.dst)
    own = [(TRANSFERRED, {"id": call.id, "at": at, "to": to.number, "child_id": child_id})]
    own += [(ENDED, {"id": call.id, "at": at, "cause": "transferred", "disposition": disposition(call, "transferred"),
                     "by": "src", "leg": None})]  # fmt: skip
    placed = {"customer_id": call.customer_id, "user_id": call.user_id, "kind": "transfer", "first": "dst",
              "src": _builtins(remote), "dst": _builtins(to), "dialled": to.number, "clid": call.clid,
              "context": context or call.context,
              "destination": call.destination, "parent_id": call.id, "referred_by": user.number,
              "record": call.record, "plan": _builtins(plan), "answered": ["src"]}  # fmt: skip
    return own, place(child_id, at, placed, accepted=False)


FORWARDED_FIELDS = ("customer_id", "user_id", "clid", "context", "destination", "dialled", "choices", "gives_up_at",
                    "digits_used")  # fmt: skip
"""What a caller's new call keeps of the answered leg it leaves."""


def forward(call: Call, at: float, child_id: int, to: str | None) -> tuple[list[Event], Event]:
    """The platform moves the caller of an answered leg (an IVR that took a key) on, to `to`, in a
    new call `child_id` whose `parent_id` is this one: this leg ends ("transferred", left by its
    `dst`) and the caller's side goes on. Returns (this call's events, the child's `call.placed`),
    which the routing then sends to its destination."""
    _check(call, TRANSFERRED, "be forwarded")
    own: list[Event] = [(TRANSFERRED, {"id": call.id, "at": at, "to": to, "child_id": child_id, "forwarded": True}),
           (ENDED, {"id": call.id, "at": at, "cause": "transferred", "disposition": disposition(call, "transferred"),
                    "by": "dst", "leg": None})]  # fmt: skip
    placed: dict[str, Any] = {"id": child_id, "at": at, **{key: getattr(call, key) for key in FORWARDED_FIELDS},
              "kind": "transfer", "first": "dst", "src": _builtins(call.src), "dst": {"number": to},
              "parent_id": call.id, "referred_by": call.dst.number, "record": False, "plan": _builtins(call.plan),
              "answered": ["src"], "digits": [list(d) for d in call.digits]}  # fmt: skip
    return own, (PLACED, placed)


def _builtins(value: Any) -> dict[str, Any]:
    return msgspec.to_builtins(value)
