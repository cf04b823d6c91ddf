"""What may be done to a call, as pure decisions: a command and the call's state give its events.

A command the transition table refuses is `Invalid`, naming the call's state and the field of the
request that asked for it, so the API answers 400. A call that ended does not exist any more: a
command on it is `Unknown` (404), as on a call that never was. Each function returns the typed
events; the caller records them on the call's stream at the version the state was folded at.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..errors import Invalid, Unknown
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
    RecordingPaused,
    RecordingResumed,
    RecordingStarted,
)
from .call import LIVE, TALKING, Call, Party, Plan, Reached, other
from .fold import TRANSITIONS, evolve

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
CLIENT = "client"
"""The outcome of a leg rung at a real SIP client: the client answers or refuses it, not the simulator."""
RINGS = frozenset({"answer", "no_answer", CLIENT})
"""Outcomes whose destination rings; the others answer the INVITE with a failure at once."""


def refuse(call: Call, doing: str, field: str = "state") -> Invalid:
    """A command the call's state does not allow, naming the field of the request that asked for it."""
    return Invalid.field(field, f"Call {call.id} is {call.state or 'unknown'}: it cannot {doing}.")


def _check(call: Call, type_: type[CallEvent], doing: str, field: str = "state") -> None:
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


def place(placed: CallPlaced, *, accepted: bool) -> list[CallEvent]:
    """A new call: placed, accepted (calls started through the API), and its first leg reached."""
    events: list[CallEvent] = [placed]
    if accepted:
        events.append(CallAccepted(id=placed.id, at=placed.at))
    return events + reach(evolve(Call(id=placed.id), placed), placed.first, placed.at)


def reach(call: Call, leg: str, at: float) -> list[CallEvent]:
    """The platform reaches a leg: its client rings, unless the destination fails it at once; a
    destination that rings for no time (the platform's own: an IVR, a queue, voicemail, a conference
    room) answers as it is reached."""
    if leg == "dst" and call.plan.outcome not in RINGS:
        return []
    rang = CallRinging(id=call.id, at=at, leg=leg)
    if leg == "dst" and call.plan.outcome == "answer" and call.plan.ring_seconds <= 0:
        return [rang, *answer(evolve(call, rang), at, leg)]
    return [rang]


def answer(call: Call, at: float, leg: str | None = None) -> list[CallEvent]:
    """The ringing leg (or `leg`, which must be ringing) answers; the other is reached next, or the
    call connects. A leg that never rang (a busy destination) cannot answer."""
    _check(call, CallAnswered, "be answered")
    leg = leg or call.ringing
    if leg is None or call.ringing != leg:
        raise refuse(call, "be answered: no leg of it is ringing")
    answered = CallAnswered(id=call.id, at=at, leg=leg)
    if call.answered_at(other(leg)) is None:
        return [answered, *reach(evolve(call, answered), other(leg), at)]
    if call.record and call.recording == "off":
        return [answered, RecordingStarted(id=call.id, at=at)]
    return [answered]


def routed(call: Call, at: float, reached: Reached) -> CallRouted:
    """The event that sends the call to a destination the routing found."""
    return CallRouted(id=call.id, at=at, dst=reached.dst, context=reached.context, plan=reached.plan,
                      fallback=reached.fallback, user_id=reached.user_id, record=reached.record,
                      queue_id=reached.queue_id, queued_at=reached.queued_at,
                      digits_used=reached.digits_used)  # fmt: skip


def route(call: Call, event: CallRouted) -> list[CallEvent]:
    """The call's destination becomes another target, which is reached at once (unless it is the host
    that holds the connected call)."""
    _check(call, CallRouted, "be routed")
    after = evolve(call, event)
    return [event, *(reach(after, "dst", event.at) if after.reaching == "dst" else [])]


def hold(call: Call, at: float) -> list[CallEvent]:
    _check(call, CallHeld, "be put on hold")
    return [CallHeld(id=call.id, at=at)]


def unhold(call: Call, at: float) -> list[CallEvent]:
    _check(call, CallResumed, "be taken off hold")
    return [CallResumed(id=call.id, at=at)]


def end(call: Call, at: float, cause: str, by: str | None) -> list[CallEvent]:
    if call.state not in LIVE:
        raise refuse(call, "be hung up")
    return [CallEnded(id=call.id, at=at, cause=cause, disposition=disposition(call, cause), by=by, leg=call.reaching)]


def hang_up(call: Call, at: float, by: str = "src") -> list[CallEvent]:
    """A side hangs up: normal clearing once connected; before, the caller's cancel, or the called side's
    refusal (Q.850's cause 21, as a client's 603 is)."""
    if call.state in TALKING:
        return end(call, at, "normal clearing", by)
    return end(call, at, "originator cancel" if by == "src" else CAUSES["reject"], by)


def side_of(call: Call, user_id: int) -> str:
    """The leg a user's request to hang up speaks for: the user's own when it is a party of the call,
    else the customer's side of it (the called side of an inbound call, the calling side of another)."""
    if call.src.user_id == user_id:
        return "src"
    if call.dst.user_id == user_id:
        return "dst"
    return "dst" if call.destination == "in" else "src"


def hang_up_for(user_id: int) -> Callable[[Call, float], list[CallEvent]]:
    """`hang_up` as the request of `user_id` (`DELETE /calls/{id}`, `PATCH` with `state: hangup`)."""
    return lambda call, at: hang_up(call, at, side_of(call, user_id))


MONITOR_COMMANDS: Mapping[str, tuple[type[CallEvent], str, str]] = {
    "start": (RecordingStarted, "off", "start recording"),
    "pause": (RecordingPaused, "on", "pause recording"),
    "resume": (RecordingResumed, "paused", "resume recording"),
}
"""`monitor_state` value -> (event, the recording state it needs, what it does)."""


def monitor(call: Call, at: float, command: str) -> list[CallEvent]:
    type_, needs, doing = MONITOR_COMMANDS[command]
    _check(call, type_, doing, "monitor_state")
    if call.recording != needs:
        state = {"off": "not recording", "on": "recording", "paused": "paused"}[call.recording]
        raise Invalid.field("monitor_state", f"Call {call.id} is {state}: it cannot {doing}.")
    return [type_(id=call.id, at=at)]


def label(call: Call, at: float, labels: list[int]) -> list[CallEvent]:
    _check(call, CallLabelled, "be labelled")
    return [CallLabelled(id=call.id, at=at, labels=tuple(labels))]


def set_action(call: Call, at: float, action_url: str | None, action_text: str | None) -> list[CallEvent]:
    _check(call, ActionSet, "take an action link")
    return [ActionSet(id=call.id, at=at, action_url=action_url, action_text=action_text)]


def _transferred(call: Call, at: float, to: str | None, child_id: int, by: str, forwarded: bool = False
                 ) -> list[CallEvent]:  # fmt: skip
    """This call ends `transferred`: its remote side goes on in the call `child_id`."""
    cause = "transferred"
    return [
        CallTransferred(id=call.id, at=at, to=to, child_id=child_id, forwarded=forwarded),
        CallEnded(id=call.id, at=at, cause=cause, disposition=disposition(call, cause), by=by, leg=None),
    ]


def transfer(call: Call, at: float, to: Party, child_id: int, plan: Plan, context: str | None = None
             ) -> tuple[list[CallEvent], CallPlaced]:  # fmt: skip
    """Blind transfer: the call ends ("transferred") and its remote side (the outside caller of an
    inbound call, the called party of any other) goes on, in a new call `child_id` whose `parent_id`
    is this one, to `to`. Returns (this call's events, the child's `call.placed`)."""
    _check(call, CallTransferred, "be transferred", "dst")
    user, remote = (call.dst, call.src) if call.destination == "in" else (call.src, call.dst)
    placed = CallPlaced(id=child_id, at=at, customer_id=call.customer_id, user_id=call.user_id, kind="transfer",
                        first="dst", src=remote, dst=to, dialled=to.number, clid=call.clid,
                        context=context or call.context, destination=call.destination, parent_id=call.id,
                        referred_by=user.number, record=call.record, plan=plan, answered=["src"],
                        claims={"call": [child_id]})  # fmt: skip
    return _transferred(call, at, to.number, child_id, "src"), placed


def forward(call: Call, at: float, child_id: int, to: str | None) -> tuple[list[CallEvent], CallPlaced]:
    """The platform moves the caller of an answered leg (an IVR that took a key) on, to `to`, in a
    new call `child_id` whose `parent_id` is this one: this leg ends ("transferred", left by its
    `dst`) and the caller's side goes on. Returns (this call's events, the child's `call.placed`),
    which the routing then sends to its destination."""
    _check(call, CallTransferred, "be forwarded")
    placed = CallPlaced(id=child_id, at=at, customer_id=call.customer_id, user_id=call.user_id, kind="transfer",
                        first="dst", src=call.src, dst=Party(number=to), dialled=call.dialled, clid=call.clid,
                        context=call.context, destination=call.destination, parent_id=call.id,
                        referred_by=call.dst.number, record=False, plan=call.plan, answered=["src"],
                        choices=call.choices, gives_up_at=call.gives_up_at, digits=list(call.digits),
                        digits_used=call.digits_used, claims={"call": [child_id]})  # fmt: skip
    return _transferred(call, at, to, child_id, "dst", forwarded=True), placed
