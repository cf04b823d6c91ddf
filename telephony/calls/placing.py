"""Placing a call, decided inside the writer's transaction: through the API (click-to-call, lead and
web calls) or from outside to one of a customer's numbers. The customer's routing rules are read
first: they may end the call or send it elsewhere; else it goes to its destination (a user's
extension through the user's rules, a number's target)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..domain.calls import rules
from ..domain.calls.call import Call, Party, Target
from ..domain.calls.fold import evolve, fold
from ..domain.errors import Invalid
from ..domain.events import NewEvent
from ..domain.events.calls import CallPlaced
from ..eventlog import Decision
from ..eventlog.connection import Connection
from ..projections.sequences import next_id
from . import routing_rules
from .decisions import FIRST_CALL_ID, Engine, Now, on_stream
from .onward import go_to, placed_to
from .parties import charged_legs
from .projections import webcalls_since

RATE_EXCEEDED = "Maximum per minute call rate exceeded"


@dataclass(frozen=True, kw_only=True)
class Placing:
    """A call to place, its parties resolved by the handler."""

    customer_id: int
    user_id: int | None
    kind: str
    first: str
    src: Party
    dst: Party
    clid: str | None
    context: str
    destination: str
    record: bool = False
    outcome: str | None = None
    web: bool = False
    tts: str | None = None
    """What a lead call's destination hears before the user's client rings."""
    target: Target | None = None
    """The user an extension names: it is reached through the user's rules (DND, follow-me, voicemail)."""
    caller_answers: bool = False
    """The caller's side is a softphone that dialled the call: it answers as the call is placed (no
    simulated client rings the caller first)."""


def place(placing: Placing, engine: Engine, now: Now, webcalls_per_minute: int) -> Decision[Call]:
    """A call placed through the API: a web call within its customer's per-minute limit (counted here,
    in the writer's transaction, so across every process on the log), outbound routing rules first
    (they may end or redirect it), then its destination, through the user's rules when it is a user's
    extension."""

    def decide(conn: Connection) -> tuple[list[NewEvent], Call]:
        at = now()
        if placing.web and webcalls_since(conn, placing.customer_id, at - 60) >= webcalls_per_minute:
            raise Invalid(RATE_EXCEEDED)
        call_id = next_id(conn, "call", FIRST_CALL_ID)
        claims = {"call": [call_id]}
        webcall_id = next_id(conn, "webcall") if placing.web else None
        if webcall_id is not None:
            claims["webcall"] = [webcall_id]
        placed = CallPlaced(id=call_id, at=at, customer_id=placing.customer_id, user_id=placing.user_id,
                            kind=placing.kind, first=placing.first, src=placing.src, dst=placing.dst,
                            dialled=placing.dst.number, clid=placing.clid, context=placing.context,
                            destination=placing.destination, record=placing.record,
                            plan=engine.planner(call_id, placing.dst.number, placing.outcome), webcall_id=webcall_id,
                            claims=claims, tts=placing.tts)  # fmt: skip
        callers = [str(placing.user_id or ""), placing.src.number or ""]
        ruled = routing_rules.ruling(conn, placing.customer_id, routing_rules.OUTBOUND, callers,
                                     placing.dst.number or "", at)  # fmt: skip
        if ruled is not None and ruled.ending is not None:  # the rule stops the call before it rings anyone
            ended = rules.end(evolve(Call(id=call_id), placed), at, ruled.ending, None)
            return on_stream(conn, Call(id=call_id), [placed, *ended], engine)
        to = ruled.target if ruled is not None else placing.target
        if to is not None or ruled is not None:
            placed = placed_to(conn, placed, to, engine, at, direct=ruled is None)
        engine.pricing.payable(conn, placing.customer_id, charged_legs(evolve(Call(id=call_id), placed)))
        events = rules.place(placed, accepted=True)
        if placing.caller_answers:
            events += rules.answer(fold(call_id, events), at, "src")
        return on_stream(conn, Call(id=call_id), events, engine)

    return Decision(decide)


@dataclass(frozen=True, kw_only=True)
class Inbound:
    """A call from outside to one of a customer's numbers, with the simulated answers asked for."""

    customer_id: int
    src: Party
    dialled: str
    target: Target | None
    choices: dict[str, Any]
    gives_up_after: float | None
    digits: tuple[tuple[str, float], ...] = ()


def place_inbound(inbound: Inbound, engine: Engine, now: Now) -> Decision[Call]:
    """The caller reaches the platform: inbound routing rules first (they may end or redirect the
    call), then the number's target, at once."""

    def decide(conn: Connection) -> tuple[list[NewEvent], Call]:
        at, call_id = now(), next_id(conn, "call", FIRST_CALL_ID)
        give_up = None if inbound.gives_up_after is None else at + inbound.gives_up_after
        placed = CallPlaced(id=call_id, at=at, customer_id=inbound.customer_id, user_id=None, kind="inbound",
                            first="dst", src=inbound.src, dst=Party(number=inbound.dialled), clid=inbound.src.number,
                            context="PSTN_CALL", destination="in", record=False,
                            plan=engine.planner(call_id, inbound.dialled, None), dialled=inbound.dialled,
                            choices=inbound.choices, gives_up_at=give_up, answered=["src"],
                            digits=list(inbound.digits), claims={"call": [call_id]})  # fmt: skip
        call = evolve(Call(id=call_id), placed)
        ruled = routing_rules.ruling(conn, inbound.customer_id, routing_rules.INBOUND, [inbound.src.number or ""],
                                     inbound.dialled, at)  # fmt: skip
        if ruled is not None and ruled.ending is not None:
            return on_stream(conn, Call(id=call_id), [placed, *rules.end(call, at, ruled.ending, None)], engine)
        to = ruled.target if ruled is not None else inbound.target
        routed = go_to(conn, call, to, engine, at, direct=ruled is None)
        return on_stream(conn, Call(id=call_id), [placed, *routed], engine)

    return Decision(decide)
