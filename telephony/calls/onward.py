"""Where a call goes next, decided inside its transaction: on to a destination in the same leg, on
from an answered leg in a new call, or, as it is placed, straight to a user's or a rule's target."""

from __future__ import annotations

import dataclasses

import msgspec

from ..domain.calls import rules
from ..domain.calls.call import TALKING, Call, Target
from ..domain.calls.fold import evolve
from ..domain.events import NewEvent
from ..domain.events.calls import CallEvent, CallPlaced
from ..eventlog.connection import Connection
from ..projections.sequences import next_id
from . import dialplan, records
from .decisions import FIRST_CALL_ID, Engine, at_client, on_stream
from .destinations import Routing


def go_to(conn: Connection, call: Call, to: Target | None, engine: Engine, at: float,
          direct: bool = False) -> list[CallEvent]:  # fmt: skip
    """The call goes to `to` in the same leg (through the destination the hop goes through first), or
    ends when it leads nowhere. An outbound call stays its caller's, and keeps the caller's recording;
    a user it leaves unanswered gets its missed-call record."""
    hop = dialplan.hop(Routing(conn, call, engine.planner, engine.floor, at, direct), to)
    events: list[CallEvent] = []
    for reached in (at_client(r, engine) for r in (hop.through, hop.routed) if r is not None):
        if call.destination != "in":
            reached = dataclasses.replace(reached, user_id=msgspec.UNSET, record=reached.record or call.record)
        routed = rules.routed(call, at, reached)
        if (missed := records.missed_record(conn, call, at)) is not None:
            routed = msgspec.structs.replace(routed, missed=missed, claims={"cdr": [missed.body["id"]]})
        for event in rules.route(call, routed):
            events.append(event)
            call = evolve(call, event)
    if hop.routed is None:
        events += rules.end(call, at, hop.ending or dialplan.NO_ROUTE, None)
    return events


def placed_to(conn: Connection, placed: CallPlaced, to: Target | None, engine: Engine, at: float,
              direct: bool) -> CallPlaced:  # fmt: skip
    """A call being placed to `to` (a user by extension, a rule's redirect): its destination is the
    hop's. When the hop leads nowhere (a user on DND whose final destination hangs up), the
    destination refuses the call: busy, unless it already fails otherwise."""
    call = evolve(Call(id=placed.id), placed)
    hop = dialplan.hop(Routing(conn, call, engine.planner, engine.floor, at, direct), to)
    reached = hop.through or hop.routed  # a queue answers first, then rings its agent
    if reached is None:
        outcome = placed.plan.outcome
        refused = "busy" if outcome in ("answer", "no_answer") else outcome
        return msgspec.structs.replace(placed, plan=msgspec.structs.replace(placed.plan, outcome=refused))
    reached = at_client(reached, engine)
    return msgspec.structs.replace(placed, dst=reached.dst, plan=reached.plan, context=reached.context,
                                   fallback=reached.fallback, queue_id=reached.queue_id, queued_at=reached.queued_at,
                                   digits_used=reached.digits_used, record=placed.record or reached.record)  # fmt: skip


def go_on(conn: Connection, call: Call, to: Target | None, engine: Engine, at: float
          ) -> tuple[list[NewEvent], Call]:  # fmt: skip
    """The call goes on to `to`: in the same leg while nobody answered it, while it rings someone, or
    while a queue holds it (a queue keeps its caller in the call it answered); from an answered leg
    (an IVR that took a key) in a new call whose `parent_id` is this one, which the answer is then."""
    if call.state not in TALKING or call.reaching is not None or call.queue_id is not None:
        return on_stream(conn, call, go_to(conn, call, to, engine, at), engine)
    child_id = next_id(conn, "call", FIRST_CALL_ID)
    _, trial = rules.forward(call, at, child_id, None)
    child = evolve(Call(id=child_id), trial)
    hop = dialplan.hop(Routing(conn, child, engine.planner, engine.floor, at), to)
    reached = hop.through or hop.routed
    if reached is None:
        return on_stream(conn, call, rules.end(call, at, hop.ending or dialplan.NO_ROUTE, "dst"), engine)
    own, placed = rules.forward(call, at, child_id, reached.dst.number)
    ended, _ = on_stream(conn, call, own, engine)
    started, child = on_stream(conn, Call(id=child_id), [placed, *go_to(conn, child, to, engine, at)], engine)
    return ended + started, child
