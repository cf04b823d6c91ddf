"""A call's state, folded from its events, and the one table of the transitions a call may take.

A call is the stream `call-<id>`. It has two legs: `src`, the side that starts it (the caller's own
SIP client in a click-to-call, the outside caller of an inbound call), and `dst`, the side it
reaches. The platform reaches one leg at a time, the `first` one first: its client rings (or is
busy, rejects, fails) and answers; then the other. The call is CONNECTED once both legs have
answered, and it ends once (HANGUP), with a cause.

Every event's data has the call `id` and `at`, the clock time (epoch seconds) it happened.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from ..types import MAX_CALL_SECONDS

INITIAL, ACCEPTED, RINGING, CONNECTED, ON_HOLD, HANGUP = STATES = (
    "INITIAL", "ACCEPTED", "RINGING", "CONNECTED", "ON_HOLD", "HANGUP",
)  # fmt: skip
LIVE = frozenset(STATES) - {HANGUP}
TALKING = frozenset({CONNECTED, ON_HOLD})
LEGS = ("src", "dst")

PLACED = "call.placed"
WAS_ACCEPTED = "call.accepted"
ROUTED = "call.routed"
RANG = "call.ringing"
ANSWERED = "call.answered"
HELD = "call.held"
RESUMED = "call.resumed"
TRANSFERRED = "call.transferred"
RECORDING_STARTED = "call.recording_started"
RECORDING_PAUSED = "call.recording_paused"
RECORDING_RESUMED = "call.recording_resumed"
LABELLED = "call.labelled"
ACTION_SET = "call.action_set"
MENU_REPLAYED = "call.menu_replayed"
ENDED = "call.ended"
SAME = "same"
"""A transition that leaves the state as it was."""

TRANSITIONS: Mapping[str, Mapping[str | None, str]] = {
    PLACED: {None: INITIAL},
    WAS_ACCEPTED: {INITIAL: ACCEPTED},
    ROUTED: {INITIAL: SAME, ACCEPTED: SAME, RINGING: SAME, CONNECTED: SAME, ON_HOLD: SAME},
    RANG: {INITIAL: RINGING, ACCEPTED: RINGING, RINGING: RINGING, CONNECTED: SAME, ON_HOLD: SAME},
    ANSWERED: {INITIAL: CONNECTED, ACCEPTED: CONNECTED, RINGING: CONNECTED, CONNECTED: SAME, ON_HOLD: SAME},
    HELD: {CONNECTED: ON_HOLD},
    RESUMED: {ON_HOLD: CONNECTED},
    TRANSFERRED: {CONNECTED: SAME, ON_HOLD: SAME},
    RECORDING_STARTED: {CONNECTED: SAME, ON_HOLD: SAME},
    RECORDING_PAUSED: {CONNECTED: SAME, ON_HOLD: SAME},
    RECORDING_RESUMED: {CONNECTED: SAME, ON_HOLD: SAME},
    LABELLED: {state: SAME for state in LIVE},
    ACTION_SET: {state: SAME for state in LIVE},
    MENU_REPLAYED: {CONNECTED: SAME},
    ENDED: {state: HANGUP for state in LIVE},
}
"""Event type -> {state before: state after}. A pair missing here is refused. An answer that leaves
a leg still to reach keeps the call RINGING (`evolve`): it is CONNECTED once both legs answered, and
stays so while a queue that answered it routes it on (an agent rings, and answers)."""
CALL_TYPES = frozenset(TRANSITIONS)


class Party(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One side of a call: its number, identity (`<user id>`, `contact:<id>`, ...), name, client."""

    number: str | None = None
    id: str | None = None
    name: str | None = None
    ua: str | None = None
    contact: str | None = None
    codec: str | None = None
    user_id: int | None = None


class Plan(msgspec.Struct, frozen=True, kw_only=True):
    """What the simulator has the call do: the destination's `outcome` (answer, busy, no_answer,
    reject, fail, unallocated, unavailable) after `ring_seconds`, and an answered call's talk time.
    The caller's own client answers after `own_answer_seconds`."""

    outcome: str = "answer"
    ring_seconds: float = 5.0
    talk_seconds: float = 60.0
    own_answer_seconds: float = 1.0
    no_answer_seconds: float = 30.0
    """How long the destination rings before it is given up (a user's `ring_time` on inbound calls)."""
    onward: bool = False
    """When the talk time is up the call goes on to its fallback instead of ending (an IVR that
    answered and waits for a key)."""


class Target(msgspec.Struct, frozen=True, kw_only=True):
    """Where an inbound call goes: a `final_dst_type` letter (U user, V voicemail, H hang up, ...) and id."""

    type: str
    id: int | None = None
    step: int = 0
    """How far a hunt has gone through a ring group's members or a user's follow-me targets."""
    since: float | None = None
    """When the call joined the queue it waits in."""


class Host(msgspec.Struct, frozen=True, kw_only=True):
    """Who last answered a call's `dst` leg, as the call then was, and when: a connected call ringing
    someone new for it (a queue ringing an agent) is the host's again if routed back, or ends so."""

    party: Party
    context: str
    user_id: int | None
    at: float


class Call(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    version: int = 0
    state: str | None = None
    customer_id: int = 0
    user_id: int | None = None
    kind: str = "click"
    first: str = "src"
    src: Party = Party()
    dst: Party = Party()
    clid: str | None = None
    context: str = "PSTN_CALL"
    destination: str = "out"
    parent_id: int | None = None
    webcall_id: int | None = None
    referred_by: str | None = None
    plan: Plan = Plan()
    fallback: Target | None = None
    """Where the call goes when its destination does not answer (inbound routing); None: it ends."""
    dialled: str | None = None
    choices: dict[str, Any] = msgspec.field(default_factory=dict)
    digits: tuple[tuple[str, float], ...] = ()
    """Keys a simulated caller presses in IVRs, in order, each after its delay in seconds."""
    digits_used: int = 0
    """Simulated answers of named users or numbers on inbound calls (seconds, busy, reject, never)."""
    gives_up_at: float | None = None
    """When the caller of a simulated inbound call hangs up, whatever happens by then."""
    record: bool = False
    queue_id: int | None = None
    """The queue the caller waits in (or was taken from by an agent), while it is there."""
    queued_at: float | None = None
    """When the caller joined that queue: callers are served in this order."""
    placed_at: float = 0.0
    reaching: str | None = None
    reached_at: float = 0.0
    ringing: str | None = None
    src_answered_at: float | None = None
    dst_answered_at: float | None = None
    connected_at: float | None = None
    tariffs: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    """The tariff of each chargeable leg (by its name), recorded when the leg's destination became
    known (`call.placed`, `call.routed`): what prices the call, and what its live call shows."""
    host: Host | None = None
    paid_until: float | None = None
    """When the customer's balance stops paying for the connected call (balances enforced)."""
    held_at: float | None = None
    held_seconds: float = 0.0
    recording: str = "off"
    recording_since: float | None = None
    recording_started_at: float | None = None
    recorded_seconds: float = 0.0
    labels: tuple[int, ...] = ()
    action_url: str | None = None
    action_text: str | None = None
    menu_played: int = 0
    """Plays of the IVR menu the caller is in that have ended (by their timeout or an invalid key)
    before `menu_since`."""
    menu_since: float | None = None
    """When the menu last started again after an invalid key (None: it plays from the answer)."""
    child_id: int | None = None
    transferred_to: str | None = None
    ended_at: float | None = None
    cause: str | None = None
    disposition: str | None = None
    ended_by: str | None = None

    @property
    def live(self) -> bool:
        return self.state in LIVE

    def answered_at(self, leg: str) -> float | None:
        return self.src_answered_at if leg == "src" else self.dst_answered_at

    def answered_seconds(self, leg: str | None = None) -> int:
        """How long the call was answered until its end (one `leg`: from that leg's own answer), in
        whole seconds; 0 while it lives or when it was never answered."""
        return whole_seconds(self.connected_at if leg is None else self.answered_at(leg), self.ended_at)

    def party(self, leg: str) -> Party:
        return self.src if leg == "src" else self.dst


def whole_seconds(start: float | None, end: float | None) -> int:
    """The whole seconds between two clock times of a call (0 when either is unknown), at most a
    record's day: the one rounding of a call's times, so its CDR's `billsec`, its charge, its invoice
    line and the live call agree to the second."""
    if start is None or end is None:
        return 0
    return min(max(0, round(end - start)), MAX_CALL_SECONDS)


def other(leg: str) -> str:
    return "dst" if leg == "src" else "src"


def sip_call_id(call_id: int, leg: str) -> str:
    """The SIP Call-ID of one leg of a call: what live calls, media records and traces name it by."""
    return f"{call_id}-{leg}@telephony"


def stream_of(call_id: int) -> str:
    return f"call-{call_id}"


def evolve(call: Call, type_: str, data: Mapping[str, Any]) -> Call:
    """The call after one of its events (events the table refuses are not recorded, so not seen)."""
    at = data.get("at", 0.0)
    after = TRANSITIONS[type_].get(call.state, SAME)
    state = call.state if after == SAME else after
    change: dict[str, Any] = {"version": call.version + 1, "state": state}
    if type_ == PLACED:
        change.update(_placed(data))
    elif type_ == ROUTED:
        change.update(_routed(call, data))
    elif type_ == RANG:
        change.update(ringing=data["leg"], reaching=data["leg"])
    elif type_ == ANSWERED:
        change.update(_answered(call, data["leg"], at), paid_until=data.get("paid_until", call.paid_until))
    elif type_ == HELD:
        change["held_at"] = at
    elif type_ == RESUMED:
        change.update(held_at=None, held_seconds=call.held_seconds + at - (call.held_at or at))
    elif type_ in (RECORDING_STARTED, RECORDING_RESUMED):
        change.update(recording="on", recording_since=at, recording_started_at=call.recording_started_at or at)
    elif type_ == RECORDING_PAUSED:
        change.update(_recording_stopped(call, at), recording="paused")
    elif type_ == LABELLED:
        change["labels"] = tuple(data["labels"])
    elif type_ == ACTION_SET:
        change.update(action_url=data.get("action_url"), action_text=data.get("action_text"))
    elif type_ == MENU_REPLAYED:
        since = call.connected_at if call.connected_at is not None else at
        change.update(menu_played=data["played"], menu_since=at,
                      plan=msgspec.structs.replace(call.plan, talk_seconds=at + data["wait"] - since))  # fmt: skip
    elif type_ == TRANSFERRED:
        change.update(child_id=data["child_id"], transferred_to=data["to"])
    elif type_ == ENDED:
        change.update(
            {**_hosted(call), **_recording_stopped(call, at)},
            ended_at=at,
            cause=data["cause"],
            disposition=data["disposition"],
            ended_by=data.get("by"),
            ringing=None,
            reaching=None,
        )
        if call.held_at is not None:
            change.update(held_at=None, held_seconds=call.held_seconds + at - call.held_at)
    return msgspec.structs.replace(call, **change)


PLACED_FIELDS = ("customer_id", "user_id", "kind", "first", "clid", "context", "destination", "parent_id",
                 "webcall_id", "referred_by", "record", "dialled", "choices", "gives_up_at", "digits",
                 "digits_used", "queue_id", "queued_at", "tariffs")  # fmt: skip
"""The fields of `call.placed` the call keeps as they are."""


def _placed(data: Mapping[str, Any]) -> dict[str, Any]:
    at = data["at"]
    placed = {key: data[key] for key in PLACED_FIELDS if key in data}
    placed["digits"] = tuple((str(key), float(after)) for key, after in data.get("digits", ()))
    placed.update(
        src=msgspec.convert(data["src"], Party),
        dst=msgspec.convert(data["dst"], Party),
        plan=msgspec.convert(data["plan"], Plan),
        fallback=msgspec.convert(data["fallback"], Target) if data.get("fallback") else None,
        placed_at=at,
        reaching=data["first"],
        reached_at=at,
    )
    for leg in data.get("answered", ()):
        placed[f"{leg}_answered_at"] = at
    return placed


def _routed(call: Call, data: Mapping[str, Any]) -> dict[str, Any]:
    """The call's destination is now another target: it is reached afresh, unless the call is connected
    and goes back to its host (a queue taking its caller back), which still holds it. An inbound call
    belongs to the user it reaches (`user_id`); an outbound one stays its caller's."""
    fallback, dst = data.get("fallback"), msgspec.convert(data["dst"], Party)
    host = call.host if call.connected_at is not None and dst.id is not None else None
    host = host if host is not None and host.party.id == dst.id else None
    return {"dst": dst, "user_id": data.get("user_id", call.user_id),
            "queue_id": data.get("queue_id"), "queued_at": data.get("queued_at"),
            "record": data.get("record", False), "digits_used": data.get("digits_used", 0),
            "plan": msgspec.convert(data["plan"], Plan), "context": data["context"],
            "fallback": msgspec.convert(fallback, Target) if fallback else None, "tariffs": data.get("tariffs", {}),
            "reached_at": data["at"], "ringing": None, "reaching": None if host else "dst",
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


def fold(call_id: int, events: Iterable[tuple[str, Mapping[str, Any]]]) -> Call:
    call = Call(id=call_id)
    for type_, data in events:
        call = evolve(call, type_, data)
    return call
