"""A call's routing hops, read from the log: where the platform sent the caller, in order, and what
came of each, across the calls one caller went through (an IVR that took a key, or a transfer, goes
on in a new call: the hops of the calls before it come first, those of the calls after it last).

A hop is the number a caller dialled, then each `call.routed`: an IVR, a queue the caller joined,
each agent or user rung and what came of it (answered, no answer, busy, rejected, failed, the caller
hung up, ringing now), voicemail, a conference. A queue taking its caller back after an agent's ring
is no hop of its own: the agents it rings are.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from ..domain.calls.call import Party
from ..domain.events.calls import (
    CallAnswered,
    CallEnded,
    CallEvent,
    CallPlaced,
    CallRinging,
    CallRouted,
    CallTransferred,
)
from ..eventlog import RecordedEvent

MOST_CALLS = 16
"""The most calls of one caller read for a flow (a chain of transfers is seldom longer)."""
PLATFORM = {"ivr": "IVR", "queue": "Queue", "voicemail": "Voicemail", "conference": "Conference"}
"""The platform's own destinations, by the prefix of their party's id."""
PEOPLE = {"QUEUE": "Agent", "RINGGROUP": "Ring group member"}
"""A user rung, by the context it is rung in (else `User`)."""
REFUSED = {"busy": "busy", "reject": "rejected", "fail": "failed", "unavailable": "unavailable",
           "unallocated": "unallocated"}  # fmt: skip
"""What a destination that refused the call without ringing did, by its plan's outcome."""


@dataclass(frozen=True)
class Hop:
    call_id: int
    at: float
    kind: str
    """`Dialled`, `IVR`, `Queue`, `Agent`, `User`, `Ring group member`, `Number`, `Voicemail`, ..."""
    name: str
    outcome: str


EventsOf = Callable[[int, int], Awaitable[list[RecordedEvent] | None]]
"""A customer's call's events (call id, customer id); None for a call that is not the customer's."""


def hops(chains: Sequence[Sequence[CallEvent]]) -> list[Hop]:
    """The hops of the calls one caller went through, each call's events in order, first call first."""
    found: list[Hop] = []
    for events in chains:
        found += _of_call(events)
    return found


def _of_call(events: Sequence[CallEvent]) -> list[Hop]:
    placed = events[0]
    if not isinstance(placed, CallPlaced):
        return []
    found: list[Hop] = []
    if placed.parent_id is None:  # a call that goes on from another was dialled by that one
        outcome = "" if placed.destination == "in" else _outcome(placed.plan.outcome, events[1:])
        found.append(Hop(placed.id, placed.at, "Dialled", placed.dialled or placed.dst.number or "", outcome))
    seen: set[str] = set()
    for n, event in enumerate(events):
        if not isinstance(event, CallRouted):
            continue
        party_id = event.dst.id or ""
        if party_id.startswith("queue:") and party_id in seen:
            continue  # the queue takes its caller back: the agents it rings are the hops
        seen.add(party_id)
        kind = _kind(event.dst, event.context)
        outcome = _outcome(event.plan.outcome, events[n + 1 :])
        found.append(Hop(event.id, event.at, kind, event.dst.name or event.dst.number or party_id, outcome))
    return found


def _kind(dst: Party, context: str) -> str:
    prefix = (dst.id or "").partition(":")[0]
    if prefix in PLATFORM and ":" in (dst.id or ""):
        return PLATFORM[prefix]
    if dst.user_id is not None:
        return PEOPLE.get(context, "User")
    return "Follow-me number" if context == "FOLLOW_ME" else "Number"


def _outcome(planned: str, after: Sequence[CallEvent]) -> str:
    """What came of a destination, from the events after it reached it (until the call moved on)."""
    rang = answered = False
    for event in after:
        match event:
            case CallRinging(leg="dst"):
                rang = True
            case CallAnswered(leg="dst"):
                answered = True
            case CallTransferred(child_id=child):
                return f"sent on, in call {child}"
            case CallRouted() | CallEnded() if answered:
                return "answered"
            case CallRouted():
                return "no answer" if rang else REFUSED.get(planned, "passed on")
            case CallEnded(by="src"):
                return "caller hung up"
            case CallEnded(cause=cause):
                return cause
    return "answered" if answered else "ringing" if rang else "now"


async def read_chain(events_of: EventsOf, call_id: int, customer_id: int) -> list[list[CallEvent]]:
    """The events of each call one caller went through with `call_id`, first call first."""
    own = await events_of(call_id, customer_id)
    if not own:
        return []
    chain: list[list[RecordedEvent]] = [own]
    while len(chain) < MOST_CALLS and (parent := _parent(chain[0])) is not None:
        before = await events_of(parent, customer_id)
        if not before:
            break
        chain.insert(0, before)
    while len(chain) < MOST_CALLS and (child := _child(chain[-1])) is not None:
        after = await events_of(child, customer_id)
        if not after:
            break
        chain.append(after)
    return [[e.event for e in events if isinstance(e.event, CallEvent)] for events in chain]


def _parent(events: list[RecordedEvent]) -> int | None:
    placed = events[0].event
    return placed.parent_id if isinstance(placed, CallPlaced) else None


def _child(events: list[RecordedEvent]) -> int | None:
    return next((e.event.child_id for e in events if isinstance(e.event, CallTransferred)), None)
