"""What is done to a live call, decided inside the writer's transaction: a client's command (and a
blind transfer), a caller's keys in an IVR, the simulator's next step when it falls due, and what a
real SIP client rung for the call answers."""

from __future__ import annotations

from dataclasses import dataclass

from ..accounts import customer_exists
from ..domain.calls import rules
from ..domain.calls.call import TALKING, Call, Party, Target
from ..domain.calls.menu import replay
from ..domain.calls.rules import CAUSES, CLIENT
from ..domain.calls.simulation import next_step, take
from ..domain.errors import Invalid
from ..domain.events import NewEvent
from ..eventlog import Decision
from ..eventlog.connection import Connection
from ..projections.sequences import next_id
from . import dialplan
from .decisions import FIRST_CALL_ID, Command, Engine, Now, call_of, folded, on_stream
from .destinations import final
from .onward import go_on, placed_to


@dataclass(frozen=True, kw_only=True)
class Transfer:
    """Where a blind transfer takes the call's remote side: a party, its known outcome, its context,
    and the user an extension names."""

    to: Party
    outcome: str | None
    context: str
    target: Target | None = None


def control(call_id: int, customer_id: int, command: Command, now: Now, engine: Engine,
            transfer: Transfer | None = None) -> Decision[tuple[Call, Call | None]]:  # fmt: skip
    """Run a command on a customer's live call (404 for an ended one or anyone else's), then
    the blind transfer if one is asked, all in one transaction: the call after it, and the child
    call a transfer placed (to a user's extension, through the user's rules)."""

    def decide(conn: Connection) -> tuple[list[NewEvent], tuple[Call, Call | None]]:
        call, at = call_of(conn, call_id, customer_id), now()
        events, after = on_stream(conn, call, command(call, at), engine)
        if transfer is None:
            return events, (after, None)
        child_id = next_id(conn, "call", FIRST_CALL_ID)
        plan = engine.planner(child_id, transfer.to.number, transfer.outcome)
        own, placed = rules.transfer(after, at, transfer.to, child_id, plan, transfer.context)
        if transfer.target is not None:
            placed = placed_to(conn, placed, transfer.target, engine, at, direct=True)
        more, after = on_stream(conn, after, own, engine)
        started, child = on_stream(conn, Call(id=child_id), rules.place(placed, accepted=False), engine)
        return events + more + started, (after, child)

    return Decision(decide)


def press(call_id: int, keys: str, engine: Engine, now: Now) -> Decision[Call]:
    """A caller in an IVR presses keys (or dials an extension): the caller goes where they send it (in
    a new call once the IVR answered); keys that do nothing play the menu again, or after its last
    play send the caller to the IVR's final destination."""

    def decide(conn: Connection) -> tuple[list[NewEvent], Call]:
        call, at = call_of(conn, call_id), now()
        ivr = dialplan.ivr_of(conn, call)
        if ivr is None:
            raise Invalid.field("digits", f"Call {call_id} is not in an IVR.")
        to = dialplan.key_target(conn, call, ivr, keys)
        if to is not None:
            return go_on(conn, call, to, engine, at)
        replayed = replay(call, at, dialplan.menu_of(ivr), keys)
        if replayed is None:
            return go_on(conn, call, final(ivr), engine, at)
        return on_stream(conn, call, replayed, engine)

    return Decision(decide)


def step(call_id: int, now: Now, engine: Engine) -> Decision[Call | None]:
    """The simulator's next step of a call, when it is due (nothing when the call moved on). The
    answer is the call after it: a new call when the step moved the caller on from an answered leg."""

    def decide(conn: Connection) -> tuple[list[NewEvent], Call | None]:
        at = now()
        call = folded(conn, call_id)
        due = next_step(call)
        if due is None or due.due > at + 1e-6 or not customer_exists(conn, call.customer_id):
            return [], call  # moved on, not yet due, or its customer closed: the call is gone with it
        if due.action == "route":
            return go_on(conn, call, call.fallback, engine, at)
        return on_stream(conn, call, take(call, due, at), engine)

    return Decision(decide)


def by_client(call_id: int, contact: str, outcome: str, now: Now, engine: Engine) -> Decision[Call | None]:
    """What the real SIP client `contact` rung for the call's `dst` leg does: `answer`, or refuse it
    (`busy`, `reject`, `fail`: the call goes on to its fallback, else ends with that cause), or `bye`
    (it hangs up the connected call). The same events as the simulator's steps of those outcomes;
    nothing (None) when the call no longer rings, or talks to, that client."""

    def decide(conn: Connection) -> tuple[list[NewEvent], Call | None]:
        at, call = now(), folded(conn, call_id)
        if not call.live or call.dst.contact != contact or call.plan.outcome != CLIENT:
            return [], None
        if outcome == "bye":
            if call.state not in TALKING or call.dst_answered_at is None:
                return [], None
            return on_stream(conn, call, rules.end(call, at, CAUSES["answer"], "dst"), engine)
        if call.ringing != "dst":
            return [], None
        if outcome == "answer":
            return on_stream(conn, call, rules.answer(call, at, "dst"), engine)
        if call.fallback is not None:
            return go_on(conn, call, call.fallback, engine, at)
        return on_stream(conn, call, rules.end(call, at, CAUSES[outcome], "dst"), engine)

    return Decision(decide)
