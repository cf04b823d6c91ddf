"""A call's state folded from its events, and the one table of the transitions a call may take."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from ..events.calls import (
    ActionSet,
    CallAccepted,
    CallAnswered,
    CallEnded,
    CallEvent,
    CallHeld,
    CallLabelled,
    CallPlaced,
    CallResumed,
    CallRinging,
    CallRouted,
    CallTransferred,
    MenuReplayed,
    RecordingPaused,
    RecordingResumed,
    RecordingStarted,
)
from .call import ACCEPTED, CONNECTED, INITIAL, LIVE, ON_HOLD, RINGING, Call, Host, other

SAME = "same"
"""A transition that leaves the state as it was."""
_TALKING: Mapping[str | None, str] = {CONNECTED: SAME, ON_HOLD: SAME}
TRANSITIONS: Mapping[type[CallEvent], Mapping[str | None, str]] = {
    CallPlaced: {None: INITIAL},
    CallAccepted: {INITIAL: ACCEPTED},
    CallRouted: {INITIAL: SAME, ACCEPTED: SAME, RINGING: SAME, **_TALKING},
    CallRinging: {INITIAL: RINGING, ACCEPTED: RINGING, RINGING: RINGING, **_TALKING},
    CallAnswered: {INITIAL: CONNECTED, ACCEPTED: CONNECTED, RINGING: CONNECTED, **_TALKING},
    CallHeld: {CONNECTED: ON_HOLD},
    CallResumed: {ON_HOLD: CONNECTED},
    CallTransferred: _TALKING,
    RecordingStarted: _TALKING,
    RecordingPaused: _TALKING,
    RecordingResumed: _TALKING,
    CallLabelled: {state: SAME for state in LIVE},
    ActionSet: {state: SAME for state in LIVE},
    MenuReplayed: {CONNECTED: SAME},
    CallEnded: {state: "HANGUP" for state in LIVE},
}
"""Event type -> {state before: state after}. A pair missing here is refused. An answer that leaves
a leg still to reach keeps the call RINGING (`evolve`): it is CONNECTED once both legs answered, and
stays so while a queue that answered it routes it on (an agent rings, and answers)."""
CALL_TYPES = frozenset(TRANSITIONS)
"""Every call event type."""


def evolve(call: Call, event: CallEvent) -> Call:
    """The call after one of its events (events the table refuses are not recorded, so not seen)."""
    at = event.at
    after = TRANSITIONS[type(event)].get(call.state, SAME)
    change: dict[str, Any] = {"version": call.version + 1, "state": call.state if after == SAME else after}
    match event:
        case CallPlaced():
            change.update(_placed(event))
        case CallRouted():
            change.update(_routed(call, event))
        case CallRinging(leg=leg):
            change.update(ringing=leg, reaching=leg)
        case CallAnswered(leg=leg, paid_until=paid_until):
            change.update(_answered(call, leg, at), paid_until=call.paid_until if paid_until is None else paid_until)
        case CallHeld():
            change["held_at"] = at
        case CallResumed():
            change.update(held_at=None, held_seconds=call.held_seconds + at - (call.held_at or at))
        case RecordingStarted() | RecordingResumed():
            change.update(recording="on", recording_since=at, recording_started_at=call.recording_started_at or at)
        case RecordingPaused():
            change.update(_recording_stopped(call, at), recording="paused")
        case CallLabelled(labels=labels):
            change["labels"] = tuple(labels)
        case ActionSet(action_url=url, action_text=text):
            change.update(action_url=url, action_text=text)
        case MenuReplayed(played=played, wait=wait):
            since = call.connected_at if call.connected_at is not None else at
            change.update(menu_played=played, menu_since=at,
                          plan=msgspec.structs.replace(call.plan, talk_seconds=at + wait - since))  # fmt: skip
        case CallTransferred(child_id=child_id, to=to):
            change.update(child_id=child_id, transferred_to=to)
        case CallEnded():
            change.update(_hosted(call), **_recording_stopped(call, at), ended_at=at, cause=event.cause,
                          disposition=event.disposition, ended_by=event.by, ringing=None, reaching=None)  # fmt: skip
            if call.held_at is not None:
                change.update(held_at=None, held_seconds=call.held_seconds + at - call.held_at)
    return msgspec.structs.replace(call, **change)


PLACED_FIELDS = ("customer_id", "user_id", "kind", "first", "src", "dst", "clid", "context", "destination",
                 "parent_id", "webcall_id", "referred_by", "record", "dialled", "choices", "gives_up_at", "plan",
                 "fallback", "digits_used", "queue_id", "queued_at", "tariffs")  # fmt: skip
"""The fields of `call.placed` the call keeps as they are."""


def _placed(placed: CallPlaced) -> dict[str, Any]:
    at = placed.at
    kept = {key: getattr(placed, key) for key in PLACED_FIELDS}
    kept.update(digits=tuple(placed.digits), placed_at=at, reaching=placed.first, reached_at=at)
    for leg in placed.answered:
        kept[f"{leg}_answered_at"] = at
    return kept


def _routed(call: Call, routed: CallRouted) -> dict[str, Any]:
    """The call's destination is now another target: it is reached afresh, unless the call is connected
    and goes back to its host (a queue taking its caller back), which still holds it. An inbound call
    belongs to the user it reaches (`user_id`); an outbound one stays its caller's."""
    dst = routed.dst
    host = call.host if call.connected_at is not None and dst.id is not None else None
    host = host if host is not None and host.party.id == dst.id else None
    user_id = call.user_id if isinstance(routed.user_id, msgspec.UnsetType) else routed.user_id
    return {"dst": dst, "user_id": user_id, "queue_id": routed.queue_id, "queued_at": routed.queued_at,
            "record": routed.record, "digits_used": routed.digits_used, "plan": routed.plan,
            "context": routed.context, "fallback": routed.fallback, "tariffs": routed.tariffs,
            "reached_at": routed.at, "ringing": None, "reaching": None if host else "dst",
            "dst_answered_at": host.at if host else None,
            "host": msgspec.structs.replace(host, party=dst) if host else call.host}  # fmt: skip


def _answered(call: Call, leg: str, at: float) -> dict[str, Any]:
    change: dict[str, Any] = {f"{leg}_answered_at": at, "ringing": None}
    if leg == "dst":
        change["host"] = Host(party=call.dst, context=call.context, user_id=call.user_id, at=at)
    if call.answered_at(other(leg)) is None:
        change.update(state=RINGING, reaching=other(leg), reached_at=at)
    else:
        change.update(connected_at=call.connected_at if call.connected_at is not None else at, reaching=None)
    return change


def _hosted(call: Call) -> dict[str, Any]:
    """A connected call that ends while someone new rings for its `dst` leg ends as its host's."""
    host = call.host
    if call.connected_at is None or call.dst_answered_at is not None or host is None:
        return {}
    return {"dst": host.party, "context": host.context, "user_id": host.user_id, "dst_answered_at": host.at}


def _recording_stopped(call: Call, at: float) -> dict[str, Any]:
    if call.recording != "on" or call.recording_since is None:
        return {}
    return {"recording_since": None, "recorded_seconds": call.recorded_seconds + at - call.recording_since}


def fold(call_id: int, events: Iterable[CallEvent]) -> Call:
    """The call after `events`, from nothing."""
    call = Call(id=call_id)
    for event in events:
        call = evolve(call, event)
    return call
