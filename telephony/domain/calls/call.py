"""A call: its state (folded from its events by `fold`), its parties, its plan and where it goes next.

A call is the stream `call-<id>`. It has two legs: `src`, the side that starts it (the caller's own
SIP client in a click-to-call, the outside caller of an inbound call), and `dst`, the side it
reaches. The platform reaches one leg at a time, the `first` one first: its client rings (or is
busy, rejects, fails) and answers; then the other. The call is CONNECTED once both legs have
answered, and it ends once (HANGUP), with a cause.

`Call` is also stored: `call.ended` carries the final state the call's records are drawn from, so
its fields follow the log's rules (a new field gets a default; none is renamed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from ..types import MAX_CALL_SECONDS

INITIAL, ACCEPTED, RINGING, CONNECTED, ON_HOLD, HANGUP = STATES = (
    "INITIAL", "ACCEPTED", "RINGING", "CONNECTED", "ON_HOLD", "HANGUP",
)  # fmt: skip
LIVE = frozenset(STATES) - {HANGUP}
TALKING = frozenset({CONNECTED, ON_HOLD})
LEGS = ("src", "dst")


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
    """A call as its events leave it (`fold`): who, where, how far, and when each thing happened."""

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


@dataclass(frozen=True)
class Reached:
    """A destination the routing sends a call to: what `call.routed` records of it (see `CallRouted`),
    and `through`, one the caller is routed to first (a queue that answers it as it joins)."""

    dst: Party
    context: str
    plan: Plan
    fallback: Target | None = None
    user_id: int | None | msgspec.UnsetType = msgspec.UNSET
    record: bool = False
    queue_id: int | None = None
    queued_at: float | None = None
    digits_used: int = 0
    through: Reached | None = None
