"""The events of a call, all on its stream `call-<id>`, each with the call's `id` and clock time `at`.

A call is placed (and accepted, when an API request started it), its legs ring and answer, it may
be routed on, held, recorded, labelled, transferred, and it ends once. Its ending carries the final
state of the call and the ids of the records it leaves (CDR, recording, media sessions, voicemail
message) with its price, so a replay draws the same records (`calls.records`).
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..calls.call import Call, Party, Plan, Target
from .base import Claims, Event


class CallEvent(Event, frozen=True, kw_only=True):
    """What every call event has."""

    id: int
    """The call's id (its stream is `call-<id>`)."""
    at: float
    """The clock time it happened, in epoch seconds."""


class CallPlaced(CallEvent, frozen=True, kw_only=True, tag="call.placed"):
    """A call begins: who calls whom, how the simulator will have it go, and where it goes if unanswered."""

    customer_id: int
    """The customer the call belongs to."""
    user_id: int | None
    """The user the call belongs to: its caller (outbound), or the user it reaches (inbound)."""
    kind: str
    """How it started: `click`, `lead`, `web`, `inbound` or `transfer` (a caller moved on to a new call)."""
    first: str
    """The leg reached first: `src` (the caller's own client) or `dst`."""
    src: Party
    """The side that starts the call."""
    dst: Party
    """The side the call reaches."""
    dialled: str | None
    """The number or extension the call was made to."""
    clid: str | None
    """The caller id shown to the called party."""
    context: str
    """The platform's context of the destination (`PSTN_CALL`, `USER_LOCAL`, `IVR`, `QUEUE`, ...)."""
    destination: str
    """`in`, `out` or `webcall`."""
    record: bool
    """Whether the call is recorded from its answer."""
    plan: Plan
    """What the simulator has the destination do."""
    claims: Claims
    """The ids the call takes (`call`, and `webcall` for a web call)."""
    webcall_id: int | None = None
    """The web call it is a leg of."""
    tariffs: dict[str, dict[str, str]] = msgspec.field(default_factory=dict)
    """The tariff of each chargeable leg, by leg (`Tariff.record`): what prices the call."""
    parent_id: int | None = None
    """The call this one goes on from (a transfer, an IVR that sent its caller on)."""
    referred_by: str | None = None
    """Who transferred the caller to this call."""
    answered: list[str] = msgspec.field(default_factory=list)
    """Legs answered as the call begins (an inbound caller's own side)."""
    fallback: Target | None = None
    """Where the call goes when its destination does not answer; None: it ends."""
    queue_id: int | None = None
    """The queue the caller waits in, when the call starts there."""
    queued_at: float | None = None
    """When the caller joined that queue (clock time, epoch seconds)."""
    choices: dict[str, Any] = msgspec.field(default_factory=dict)
    """Simulated answers of named users or numbers (seconds, `busy`, `reject`, `never`)."""
    gives_up_at: float | None = None
    """When a simulated caller hangs up, whatever happens by then."""
    digits: list[tuple[str, float]] = msgspec.field(default_factory=list)
    """Keys a simulated caller presses in IVRs, each after its delay in seconds."""
    digits_used: int = 0
    """How many of `digits` the caller has pressed already."""
    tts: str | None = None
    """What a lead call's destination hears before the user's client rings."""


class CallAccepted(CallEvent, frozen=True, kw_only=True, tag="call.accepted"):
    """The platform accepted a call an API request placed."""


class MissedCall(msgspec.Struct, frozen=True, kw_only=True):
    """The missed-call record of a user who let the call ring out (a CDR document of type `M`)."""

    customer_id: int
    """The customer of the call."""
    body: dict[str, Any]
    """The missed-call CDR, a CDR document (`Cdr`'s fields; one recorded before `hangup_by` lacks it)."""


class CallRouted(CallEvent, frozen=True, kw_only=True, tag="call.routed"):
    """The call's destination becomes another party, which is reached at once."""

    dst: Party
    """The new destination."""
    context: str
    """Its context (`USER_LOCAL`, `IVR`, `QUEUE`, `VOICEMAIL`, ...)."""
    plan: Plan
    """What the simulator has it do."""
    fallback: Target | None
    """Where the call goes when this destination does not answer; None: it ends."""
    user_id: int | None | msgspec.UnsetType = msgspec.UNSET
    """The user the call now belongs to (unset: it stays whose it was)."""
    record: bool = False
    """Whether the call is recorded from its answer."""
    queue_id: int | None = None
    """The queue the caller now waits in."""
    queued_at: float | None = None
    """When the caller joined that queue (clock time, epoch seconds)."""
    digits_used: int = 0
    """How many of the caller's simulated keys it has pressed."""
    tariffs: dict[str, dict[str, str]] = msgspec.field(default_factory=dict)
    """The tariff of each chargeable leg, by leg, now the destination is known."""
    missed: MissedCall | None = None
    """The missed-call record of the user the call leaves unanswered."""
    claims: Claims = msgspec.field(default_factory=dict)
    """The ids it takes (a missed-call record's CDR)."""


class CallRinging(CallEvent, frozen=True, kw_only=True, tag="call.ringing"):
    """A leg's client rings."""

    leg: str
    """The leg that rings: `src` or `dst`."""


class CallAnswered(CallEvent, frozen=True, kw_only=True, tag="call.answered"):
    """A leg answers; once both have, the call is connected."""

    leg: str
    """The leg that answers: `src` or `dst`."""
    paid_until: float | None = None
    """When the balance stops paying for the call (balances enforced; None: nothing limits it)."""


class CallHeld(CallEvent, frozen=True, kw_only=True, tag="call.held"):
    """The call is put on hold."""


class CallResumed(CallEvent, frozen=True, kw_only=True, tag="call.resumed"):
    """The call is taken off hold."""


class CallTransferred(CallEvent, frozen=True, kw_only=True, tag="call.transferred"):
    """The call's remote side goes on to `to` in a new call `child_id` (this one ends, `transferred`)."""

    to: str | None
    """The number or extension it goes to (None: the platform moved its caller on)."""
    child_id: int
    """The new call."""
    forwarded: bool = False
    """The platform moved its caller on (an IVR that took a key), rather than a user's blind transfer."""


class RecordingStarted(CallEvent, frozen=True, kw_only=True, tag="call.recording_started"):
    """The call is recorded from now on."""


class RecordingPaused(CallEvent, frozen=True, kw_only=True, tag="call.recording_paused"):
    """The recording pauses."""


class RecordingResumed(CallEvent, frozen=True, kw_only=True, tag="call.recording_resumed"):
    """The recording goes on."""


class CallLabelled(CallEvent, frozen=True, kw_only=True, tag="call.labelled"):
    """The call's labels (call label ids) are now these."""

    labels: tuple[int, ...]
    """The call label ids."""


class ActionSet(CallEvent, frozen=True, kw_only=True, tag="call.action_set"):
    """The call's action link is set."""

    action_url: str | None
    """The link."""
    action_text: str | None
    """The link's text."""


class MenuReplayed(CallEvent, frozen=True, kw_only=True, tag="call.menu_replayed"):
    """A key that did nothing: the IVR's menu plays again."""

    key: str
    """The key pressed."""
    played: int
    """The plays of the menu that have ended."""
    wait: float
    """The seconds the menu still waits for a key."""


class LegPrice(msgspec.Struct, frozen=True, kw_only=True):
    """What one leg of a call costs (amounts as texts of four decimal places)."""

    rate: str
    """Per minute."""
    seconds: int
    """Seconds billed."""
    charge: str
    """What the leg costs."""
    destination: str
    """The name of the tariff."""


class Price(msgspec.Struct, frozen=True, kw_only=True):
    """What a call costs: the rate of the leg its CDR shows (its destination's), the whole charge, each leg's."""

    rate: str
    """The per-minute rate of the leg the CDR shows (its destination's)."""
    charge: str
    """What the whole call costs."""
    legs: dict[str, LegPrice]
    """What each chargeable leg costs, by leg."""


class NewMessages(msgspec.Struct, frozen=True, kw_only=True):
    """A user's count of new voicemail messages after the one the call left."""

    user_id: int
    """The user whose voicemail took the message."""
    count: int
    """Its new messages now."""


class CallRecords(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The ids of the records a call's ending leaves, and its price."""

    cdr: int
    """The call's CDR."""
    msdr: dict[str, int]
    """A media session record per leg that answered, by leg."""
    mediasession: dict[str, int]
    """A media session per leg that answered, by leg."""
    price: Price
    """What the call costs."""
    monitor: int | None = None
    """The recording, when the call was recorded."""
    voicemessage: int | None = None
    """The message a caller left on a user's voicemail."""
    vm_new: NewMessages | None = None
    """The new count of the voicemail messages of the user whose voicemail took one."""


class CallEnded(CallEvent, frozen=True, kw_only=True, tag="call.ended"):
    """The call ends (HANGUP), with its cause; its records are drawn from the final state it carries."""

    cause: str
    """The Q.850 name of why (`normal clearing`, `user busy`, `transferred`, ...), the CDR's `t_cause`."""
    disposition: str
    """How it ended (`CONNECTED`, `NO_ANSWER`, `BUSY`, ...), the CDR's `disposition`."""
    by: str | None
    """The leg that hung up (None: the platform ended it)."""
    leg: str | None
    """The leg being reached when it ended."""
    records: CallRecords | None = None
    """The ids of the records the ending leaves, and the price (always set in the log)."""
    claims: Claims = msgspec.field(default_factory=dict)
    """The ids its records take."""
    final: Call | None = None
    """The call as it ended (always set in the log)."""


CALL_EVENTS = (CallPlaced, CallAccepted, CallRouted, CallRinging, CallAnswered, CallHeld, CallResumed,
               CallTransferred, RecordingStarted, RecordingPaused, RecordingResumed, CallLabelled, ActionSet,
               MenuReplayed, CallEnded)  # fmt: skip
