"""Call decisions for the writer: fold the call's stream, ask the rules, record what they say.

Each function builds a decision the writer runs inside its transaction. The call is folded from
its stream there, so commands from the API and steps of the simulator are taken one after another
on the state as it is. A call's ending claims the ids of the records its history leaves (CDR,
recording, a media session and its record per leg that answered) and carries the final state those
records are drawn from (`calls.records`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec

from ..accounts import customer_exists
from ..documents import reads
from ..domain import calls as rules
from ..domain.billing import Leg
from ..domain.calls import Call, Event, Party, Target
from ..domain.errors import Invalid
from ..eventlog import Decision, NewEvent, store
from ..projections.sequences import next_id
from . import dialplan, records, routing_rules
from .destinations import Floor, Planner, Routing, final
from .parties import charged_legs

FIRST_CALL_ID = 1
Command = Callable[[Call, float], list[Event]]
"""The events of a command on a call at a clock time."""
Now = Callable[[], float]
"""The clock, read inside the transaction: a call's events never go back in time."""


class Pricing(Protocol):
    """What calls cost (`billing`): asked inside the transaction."""

    def price(self, conn: sqlite3.Connection, customer_id: int, legs: Sequence[Leg], at: float
              ) -> tuple[dict[str, Any], list[NewEvent]]: ...  # fmt: skip

    def payable(self, conn: sqlite3.Connection, customer_id: int, legs: Sequence[Leg]) -> None: ...

    def paid_seconds(self, conn: sqlite3.Connection, customer_id: int, legs: Sequence[Leg]) -> float | None: ...

    def tariffs(self, conn: sqlite3.Connection, customer_id: int, legs: Sequence[Leg]) -> dict[str, dict[str, str]]: ...


@dataclass(frozen=True)
class Engine:
    """What call decisions use beside the transaction: the simulator's planner, the floor, the prices."""

    planner: Planner
    floor: Floor
    pricing: Pricing


@dataclass(frozen=True)
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


def call_of(conn: sqlite3.Connection, call_id: int, customer_id: int | None = None) -> Call:
    """A live call (of `customer_id`, when given), folded from its stream: 404 once it ended."""
    return rules.existing(rules.fold(call_id, store.stream_content(conn, rules.stream_of(call_id))), customer_id)


@dataclass(frozen=True)
class Transfer:
    """Where a blind transfer takes the call's remote side: a party, its known outcome, its context,
    and the user an extension names."""

    to: Party
    outcome: str | None
    context: str
    target: Target | None = None


REACHED = ("dst", "plan", "context", "fallback", "queue_id", "queued_at", "digits_used")
"""What a routed destination sets on a call placed to it."""


def _reached(conn: sqlite3.Connection, placed: dict[str, Any], to: Target | None, engine: Engine, at: float,
             direct: bool) -> None:  # fmt: skip
    """Route a call being placed to `to` (a user by extension, a rule's redirect): its destination is
    the hop's. When the hop leads nowhere (a user on DND whose final destination hangs up), the
    destination refuses the call: busy, unless it already fails otherwise."""
    call = rules.evolve(Call(id=placed["id"]), rules.PLACED, placed)
    hop = dialplan.hop(Routing(conn, call, engine.planner, engine.floor, at, direct), to)
    reached = hop.through or hop.routed  # a queue answers first, then rings its agent
    if reached is None:
        outcome = placed["plan"].get("outcome")
        placed["plan"] = {**placed["plan"], "outcome": "busy" if outcome in ("answer", "no_answer") else outcome}
        return
    placed.update({key: reached[key] for key in REACHED if key in reached})
    placed["record"] = placed.get("record") or reached.get("record", False)


def place(placing: Placing, engine: Engine, now: Now) -> Decision[Call]:
    """A call placed through the API: outbound routing rules first (they may end or redirect it),
    then its destination, through the user's rules when it is a user's extension."""

    def decide(conn: sqlite3.Connection) -> tuple[list[NewEvent], Call]:
        at = now()
        call_id = next_id(conn, "call", FIRST_CALL_ID)
        claims = {"call": [call_id]}
        webcall_id = next_id(conn, "webcall") if placing.web else None
        if webcall_id is not None:
            claims["webcall"] = [webcall_id]
        plan = engine.planner(call_id, placing.dst.number, placing.outcome)
        placed = {
            "id": call_id,
            "at": at,
            "customer_id": placing.customer_id,
            "user_id": placing.user_id,
            "kind": placing.kind,
            "first": placing.first,
            "src": _builtins(placing.src),
            "dst": _builtins(placing.dst),
            "dialled": placing.dst.number,
            "clid": placing.clid,
            "context": placing.context,
            "destination": placing.destination,
            "record": placing.record,
            "plan": _builtins(plan),
            "webcall_id": webcall_id,
            "claims": claims,
        }
        if placing.tts is not None:
            placed["tts"] = placing.tts
        callers = [str(placing.user_id or ""), placing.src.number or ""]
        dialled = placing.dst.number or ""
        ruled = routing_rules.ruling(conn, placing.customer_id, routing_rules.OUTBOUND, callers, dialled, at)
        if ruled is not None and ruled.ending is not None:  # the rule stops the call before it rings anyone
            events = rules.place(call_id, at, placed, accepted=True)[:1]
            events += rules.end(rules.fold(call_id, events), at, ruled.ending, None)
            return _recorded(conn, Call(id=call_id), events, engine)
        to = ruled.target if ruled is not None else placing.target
        if to is not None or ruled is not None:
            _reached(conn, placed, to, engine, at, direct=ruled is None)
        engine.pricing.payable(conn, placing.customer_id, charged_legs(rules.evolve(Call(id=call_id), rules.PLACED,
                                                                                    placed)))  # fmt: skip
        return _recorded(conn, Call(id=call_id), rules.place(call_id, at, placed, accepted=True), engine)

    return Decision(decide)


@dataclass(frozen=True)
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

    def decide(conn: sqlite3.Connection) -> tuple[list[NewEvent], Call]:
        at, call_id = now(), next_id(conn, "call", FIRST_CALL_ID)
        give_up = None if inbound.gives_up_after is None else at + inbound.gives_up_after
        placed = {"id": call_id, "at": at, "customer_id": inbound.customer_id, "user_id": None, "kind": "inbound",
                  "first": "dst", "src": _builtins(inbound.src), "dst": {"number": inbound.dialled},
                  "clid": inbound.src.number, "context": "PSTN_CALL", "destination": "in", "record": False,
                  "plan": _builtins(engine.planner(call_id, inbound.dialled, None)), "dialled": inbound.dialled,
                  "choices": inbound.choices, "gives_up_at": give_up, "answered": ["src"],
                  "digits": [list(d) for d in inbound.digits],
                  "claims": {"call": [call_id]}}  # fmt: skip
        call = rules.evolve(Call(id=call_id), rules.PLACED, placed)
        ruled = routing_rules.ruling(conn, inbound.customer_id, routing_rules.INBOUND, [inbound.src.number or ""],
                               inbound.dialled, at)  # fmt: skip
        if ruled is not None and ruled.ending is not None:
            ended = [(rules.PLACED, placed), *rules.end(call, at, ruled.ending, None)]
            return _recorded(conn, Call(id=call_id), ended, engine)
        to = ruled.target if ruled is not None else inbound.target
        routed = _routed(conn, call, to, engine, at, direct=ruled is None)
        return _recorded(conn, Call(id=call_id), [(rules.PLACED, placed), *routed], engine)

    return Decision(decide)


def _routed(conn: sqlite3.Connection, call: Call, to: Target | None, engine: Engine, at: float,
            direct: bool = False) -> list[Event]:  # fmt: skip
    """The call goes to `to` in the same leg (through the destination the hop goes through first), or
    ends when it leads nowhere. An outbound call stays its caller's, and keeps the caller's recording."""
    hop = dialplan.hop(Routing(conn, call, engine.planner, engine.floor, at, direct), to)
    events: list[Event] = []
    for routed in (dict(r) for r in (hop.through, hop.routed) if r is not None):
        if call.destination != "in":
            routed.pop("user_id", None)
            routed["record"] = routed.get("record") or call.record
        if (record := _missed(conn, call, at)) is not None:
            routed.update(missed={"customer_id": call.customer_id, "body": record}, claims={"cdr": [record["id"]]})
        for event in rules.route(call, at, routed):
            events.append(event)
            call = rules.evolve(call, *event)
    if hop.routed is None:
        events += rules.end(call, at, hop.ending or dialplan.NO_ROUTE, None)
    return events


def _go_on(conn: sqlite3.Connection, call: Call, to: Target | None, engine: Engine, at: float
           ) -> tuple[list[NewEvent], Call]:  # fmt: skip
    """The call goes on to `to`: in the same leg while nobody answered it, while it rings someone, or
    while a queue holds it (a queue keeps its caller in the call it answered); from an answered leg
    (an IVR that took a key) in a new call whose `parent_id` is this one, which the answer is then."""
    if call.state not in rules.TALKING or call.reaching is not None or call.queue_id is not None:
        return _recorded(conn, call, _routed(conn, call, to, engine, at), engine)
    child_id = next_id(conn, "call", FIRST_CALL_ID)
    _, placed = rules.forward(call, at, child_id, None)
    child = rules.evolve(Call(id=child_id), *placed)
    hop = dialplan.hop(Routing(conn, child, engine.planner, engine.floor, at), to)
    reached = hop.through or hop.routed
    if reached is None:
        return _recorded(conn, call, rules.end(call, at, hop.ending or dialplan.NO_ROUTE, "dst"), engine)
    own, placed = rules.forward(call, at, child_id, reached["dst"].get("number"))
    placed[1]["claims"] = {"call": [child_id]}
    ended, _ = _recorded(conn, call, own, engine)
    started, child = _recorded(conn, Call(id=child_id), [placed, *_routed(conn, child, to, engine, at)], engine)
    return ended + started, child


def _missed(conn: sqlite3.Connection, call: Call, at: float) -> dict[str, Any] | None:
    """The missed-call record of the user the call leaves unanswered, when it logs missed calls."""
    user_id = call.dst.user_id
    if user_id is None or call.dst_answered_at is not None or call.context == "VOICEMAIL":
        return None
    user = reads.documents(conn, "user", [user_id], call.customer_id).get(user_id)
    if user is None or not user.get("log_missed_calls", True):
        return None
    rang = msgspec.structs.replace(call, placed_at=call.reached_at, user_id=user_id, connected_at=None)
    rang = rules.evolve(rang, rules.ENDED, {"id": call.id, "at": at, "cause": rules.CAUSES["no_answer"],
                                            "disposition": "NO_ANSWER"})  # fmt: skip
    return {**records.cdr(rang, next_id(conn, "cdr")), "type": "M"}


def press(call_id: int, keys: str, engine: Engine, now: Now) -> Decision[Call]:
    """A caller in an IVR presses keys (or dials an extension): the caller goes where they send it (in
    a new call once the IVR answered); keys that do nothing play the menu again, or after its last
    play send the caller to the IVR's final destination."""

    def decide(conn: sqlite3.Connection) -> tuple[list[NewEvent], Call]:
        call, at = call_of(conn, call_id), now()
        ivr = dialplan.ivr_of(conn, call)
        if ivr is None:
            raise Invalid.field("digits", f"Call {call_id} is not in an IVR.")
        to = dialplan.key_target(conn, call, ivr, keys)
        if to is not None:
            return _go_on(conn, call, to, engine, at)
        replayed = rules.replay(call, at, dialplan.menu_of(ivr), keys)
        if replayed is None:
            return _go_on(conn, call, final(ivr), engine, at)
        return _recorded(conn, call, replayed, engine)

    return Decision(decide)


def control(call_id: int, customer_id: int, command: Command, now: Now, engine: Engine,
            transfer: Transfer | None = None) -> Decision[tuple[Call, Call | None]]:  # fmt: skip
    """Run a command on a customer's live call (404 for an ended one or anyone else's), then
    the blind transfer if one is asked, all in one transaction: the call after it, and the child
    call a transfer placed (to a user's extension, through the user's rules)."""

    def decide(conn: sqlite3.Connection) -> tuple[list[NewEvent], tuple[Call, Call | None]]:
        call, at = call_of(conn, call_id, customer_id), now()
        events, after = _recorded(conn, call, command(call, at), engine)
        if transfer is None:
            return events, (after, None)
        child_id = next_id(conn, "call", FIRST_CALL_ID)
        plan = engine.planner(child_id, transfer.to.number, transfer.outcome)
        own, child_events = rules.transfer(after, at, transfer.to, child_id, plan, transfer.context)
        placed = {**child_events[0][1], "claims": {"call": [child_id]}}
        if transfer.target is not None:
            _reached(conn, placed, transfer.target, engine, at, direct=True)
        more, after = _recorded(conn, after, own, engine)
        started, child = _recorded(conn, Call(id=child_id), rules.place(child_id, at, placed, accepted=False), engine)
        return events + more + started, (after, child)

    return Decision(decide)


def step(call_id: int, now: Now, engine: Engine) -> Decision[Call | None]:
    """The simulator's next step of a call, when it is due (nothing when the call moved on). The
    answer is the call after it: a new call when the step moved the caller on from an answered leg."""

    def decide(conn: sqlite3.Connection) -> tuple[list[NewEvent], Call | None]:
        at = now()
        call = rules.fold(call_id, store.stream_content(conn, rules.stream_of(call_id)))
        due = rules.next_step(call)
        if due is None or due.due > at + 1e-6 or not customer_exists(conn, call.customer_id):
            return [], call  # moved on, not yet due, or its customer closed: the call is gone with it
        if due.action == "route":
            return _go_on(conn, call, call.fallback, engine, at)
        return _recorded(conn, call, rules.take(call, due, at), engine)

    return Decision(decide)


def _recorded(conn: sqlite3.Connection, call: Call, events: list[Event], engine: Engine
              ) -> tuple[list[NewEvent], Call]:  # fmt: skip
    """The events on the call's stream at the versions after the folded one: a placed or routed call
    with the tariffs of its chargeable legs, an answer that connects the call with how long the
    balance pays for it, an ending with its history's ids, final state and price (and the events
    charging the customer); and the call after them."""
    new = []
    for type_, data in events:
        charges: list[NewEvent] = []
        if type_ == rules.ENDED:
            data, charges = _with_history(conn, call, data, engine)
        elif type_ == rules.ANSWERED:
            data = _paid(conn, call, data, engine)
        elif type_ in (rules.PLACED, rules.ROUTED):
            data = _tariffed(conn, call, type_, data, engine)
        new.append(NewEvent(stream=rules.stream_of(call.id), type=type_, data=data, expected_version=call.version))
        new.extend(charges)
        call = rules.evolve(call, type_, data)
    return new, call


def _tariffed(conn: sqlite3.Connection, call: Call, type_: str, data: dict[str, Any], engine: Engine
              ) -> dict[str, Any]:  # fmt: skip
    """A call that reaches a destination records the tariffs of its chargeable legs (when it has any)."""
    reached = rules.evolve(call, type_, data)
    tariffs = engine.pricing.tariffs(conn, reached.customer_id, charged_legs(reached))
    return {**data, "tariffs": tariffs} if tariffs else data


def _paid(conn: sqlite3.Connection, call: Call, data: dict[str, Any], engine: Engine) -> dict[str, Any]:
    """An answer that connects a chargeable call says until when the balance pays for it (enforced);
    one on a call already connected (an agent answering a queue's caller) leaves that as it was."""
    connected = rules.evolve(call, rules.ANSWERED, data)
    if connected.connected_at is None or call.connected_at is not None:
        return data
    paid = engine.pricing.paid_seconds(conn, call.customer_id, charged_legs(connected))
    return data if paid is None else {**data, "paid_until": data["at"] + paid}


HISTORY_KINDS = ("cdr", "monitor", "msdr", "mediasession", "voicemessage")
"""The kinds of the records a call's ending leaves, whose ids it claims."""


def _with_history(conn: sqlite3.Connection, call: Call, data: dict[str, Any], engine: Engine
                  ) -> tuple[dict[str, Any], list[NewEvent]]:  # fmt: skip
    final = rules.evolve(call, rules.ENDED, data)
    legs = [leg for leg in rules.LEGS if final.answered_at(leg) is not None]
    records: dict[str, Any] = {"cdr": next_id(conn, "cdr")}
    if final.recording_started_at is not None:
        records["monitor"] = next_id(conn, "monitor")
    first_msdr, first_session = next_id(conn, "msdr"), next_id(conn, "mediasession")
    records["msdr"] = {leg: first_msdr + n for n, leg in enumerate(legs)}
    owner = final.dst.user_id
    if final.context == "VOICEMAIL" and final.connected_at is not None and owner is not None:
        records["voicemessage"] = next_id(conn, "voicemessage")
        user = reads.documents(conn, "user", [owner], final.customer_id).get(owner) or {}
        records["vm_new"] = {"user_id": owner, "count": int(user.get("vm_new") or 0) + 1}
    records["mediasession"] = {leg: first_session + n for n, leg in enumerate(legs)}
    records["price"], charges = engine.pricing.price(conn, call.customer_id, charged_legs(final), data["at"])
    claimed = {kind: [ids] if isinstance(ids, int) else list(ids.values())
               for kind in HISTORY_KINDS if (ids := records.get(kind)) is not None}  # fmt: skip
    data = {**data, "records": records, "claims": {k: v for k, v in claimed.items() if v}, "final": _builtins(final)}
    return data, charges


def _builtins(value: Any) -> Any:
    return msgspec.to_builtins(value)
