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
    """Its number (an E.164 number, an extension)."""
    id: str | None = None
    """Who it is: a user's id, `contact:<id>`, `ivr:<id>`, `queue:<id>`, ..."""
    name: str | None = None
    """Its display name."""
    ua: str | None = None
    """Its client's user agent."""
    contact: str | None = None
    """Its SIP contact (`sip:<user>@<host>:<port>`)."""
    codec: str | None = None
    """Its audio codec."""
    user_id: int | None = None
    """The user it is, when it is one."""


class Plan(msgspec.Struct, frozen=True, kw_only=True):
    """What the simulator has the call do: the destination's `outcome` (answer, busy, no_answer,
    reject, fail, unallocated, unavailable; `client` when a real SIP client rings and answers itself)
    after `ring_seconds`, and an answered call's talk time.
    The caller's own client answers after `own_answer_seconds`."""

    outcome: str = "answer"
    """What the destination does: `answer`, `busy`, `no_answer`, `reject`, `fail`, `unallocated`, `unavailable`, or
    `client` (a real SIP client decides)."""
    ring_seconds: float = 5.0
    """Seconds the destination rings before the outcome."""
    talk_seconds: float = 60.0
    """Seconds an answered call lasts."""
    own_answer_seconds: float = 1.0
    """Seconds the caller's own client takes to answer."""
    no_answer_seconds: float = 30.0
    """How long the destination rings before it is given up (a user's `ring_time` on inbound calls)."""
    onward: bool = False
    """When the talk time is up the call goes on to its fallback instead of ending (an IVR that
    answered and waits for a key)."""


class Target(msgspec.Struct, frozen=True, kw_only=True):
    """Where an inbound call goes: a `final_dst_type` letter (U user, V voicemail, H hang up, ...) and id."""

    type: str
    """A `final_dst_type` letter: `U` user, `V` voicemail, `R` ring group, `I` IVR, `Q` queue, `C` conference, `H`
    hang up."""
    id: int | None = None
    """The destination's id (none for hang-up)."""
    step: int = 0
    """How far a hunt has gone through a ring group's members or a user's follow-me targets."""
    since: float | None = None
    """When the call joined the queue it waits in."""


class Host(msgspec.Struct, frozen=True, kw_only=True):
    """Who last answered a call's `dst` leg, as the call then was, and when: a connected call ringing
    someone new for it (a queue ringing an agent) is the host's again if routed back, or ends so."""

    party: Party
    """Who answered."""
    context: str
    """The call's context then."""
    user_id: int | None
    """The user the call belonged to then."""
    at: float
    """When it answered (clock time, epoch seconds)."""


class Call(msgspec.Struct, frozen=True, kw_only=True):
    """A call as its events leave it (`fold`): who, where, how far, and when each thing happened."""

    id: int
    """The call's id (its stream is `call-<id>`)."""
    version: int = 0
    """How many events the call has had."""
    state: str | None = None
    """`INITIAL`, `ACCEPTED`, `RINGING`, `CONNECTED`, `ON_HOLD` or `HANGUP`."""
    customer_id: int = 0
    """The customer the call belongs to."""
    user_id: int | None = None
    """The user the call belongs to: its caller (outbound), or the user it reaches (inbound)."""
    kind: str = "click"
    """How it started: `click`, `lead`, `web`, `inbound` or `transfer`."""
    first: str = "src"
    """The leg reached first: `src` or `dst`."""
    src: Party = Party()
    """The side that started the call."""
    dst: Party = Party()
    """The side the call reaches."""
    clid: str | None = None
    """The caller id shown to the called party."""
    context: str = "PSTN_CALL"
    """The platform's context of the destination (`PSTN_CALL`, `USER_LOCAL`, `IVR`, `QUEUE`, ...)."""
    destination: str = "out"
    """`in`, `out` or `webcall`."""
    parent_id: int | None = None
    """The call this one goes on from (a transfer, an IVR that sent its caller on)."""
    webcall_id: int | None = None
    """The web call it is a leg of."""
    referred_by: str | None = None
    """Who transferred the caller to this call."""
    plan: Plan = Plan()
    """What the simulator has the destination do."""
    fallback: Target | None = None
    """Where the call goes when its destination does not answer (inbound routing); None: it ends."""
    dialled: str | None = None
    """The number or extension the call was made to."""
    choices: dict[str, Any] = msgspec.field(default_factory=dict)
    """Simulated answers of named users or numbers on inbound calls (seconds, busy, reject, never)."""
    digits: tuple[tuple[str, float], ...] = ()
    """Keys a simulated caller presses in IVRs, in order, each after its delay in seconds."""
    digits_used: int = 0
    """How many of `digits` the caller has pressed."""
    gives_up_at: float | None = None
    """When the caller of a simulated inbound call hangs up, whatever happens by then."""
    record: bool = False
    """Whether the call is recorded from its answer."""
    queue_id: int | None = None
    """The queue the caller waits in (or was taken from by an agent), while it is there."""
    queued_at: float | None = None
    """When the caller joined that queue: callers are served in this order."""
    placed_at: float = 0.0
    """When the call was placed (clock time, epoch seconds)."""
    reaching: str | None = None
    """The leg being reached now (None: none is)."""
    reached_at: float = 0.0
    """When the leg being reached started to be (clock time, epoch seconds)."""
    ringing: str | None = None
    """The leg whose client rings now."""
    src_answered_at: float | None = None
    """When the `src` leg answered (clock time, epoch seconds)."""
    dst_answered_at: float | None = None
    """When the `dst` leg answered (clock time, epoch seconds)."""
    connected_at: float | None = None
    """When both legs had answered (clock time, epoch seconds)."""
    tariffs: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    """The tariff of each chargeable leg (by its name), recorded when the leg's destination became
    known (`call.placed`, `call.routed`): what prices the call, and what its live call shows."""
    host: Host | None = None
    """Who last answered the `dst` leg, and when."""
    paid_until: float | None = None
    """When the customer's balance stops paying for the connected call (balances enforced)."""
    held_at: float | None = None
    """When the call was put on hold, while it is (clock time, epoch seconds)."""
    held_seconds: float = 0.0
    """Seconds the call has been on hold, the holds that ended."""
    recording: str = "off"
    """`off`, `on` or `paused`."""
    recording_since: float | None = None
    """When the recording last started or resumed, while it is on (clock time, epoch seconds)."""
    recording_started_at: float | None = None
    """When the recording first started (clock time, epoch seconds)."""
    recorded_seconds: float = 0.0
    """Seconds recorded, the stretches that ended."""
    labels: tuple[int, ...] = ()
    """The call's labels (call label ids)."""
    action_url: str | None = None
    """The call's action link."""
    action_text: str | None = None
    """The text of the call's action link."""
    menu_played: int = 0
    """Plays of the IVR menu the caller is in that have ended (by their timeout or an invalid key)
    before `menu_since`."""
    menu_since: float | None = None
    """When the menu last started again after an invalid key (None: it plays from the answer)."""
    child_id: int | None = None
    """The call its remote side was transferred to."""
    transferred_to: str | None = None
    """The number or extension it was transferred to."""
    ended_at: float | None = None
    """When the call ended (clock time, epoch seconds)."""
    cause: str | None = None
    """Why it ended (a Q.850 name: `normal clearing`, `user busy`, ...)."""
    disposition: str | None = None
    """How it ended (`CONNECTED`, `NO_ANSWER`, `BUSY`, ...)."""
    ended_by: str | None = None
    """The leg that hung up (None: the platform ended it)."""

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
