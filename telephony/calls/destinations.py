"""What every destination of the routing shares: where a call goes next, and how a party is rung.

A destination either rings a party (`Reached`: what a `call.routed` records of it, the party, its
plan, its context and where the call goes when it is not answered) or sends the call on to another
target. Routing reads
the PBX configuration inside the writer's transaction and the floor (who is on a call, who waits
in which queue) from the in-memory projections.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec

from ..accounts import clients_of
from ..domain import phone
from ..domain.calls.call import Call, Party, Plan, Reached, Target
from ..domain.dictionaries import FINAL_DST_TYPE, TARGET_TYPE
from ..eventlog.connection import Connection
from .parties import records, user_party


class Planner(Protocol):
    """The simulator's plan for a call to a number (`outcome`: one forced; `ring`: a ring after the
    call's first, drawn on its own; 0, the call's own draw)."""

    def __call__(self, call_id: int, number: str | None, outcome: str | None, ring: int = 0) -> Plan: ...


Route = tuple[Reached | None, Target | None]
"""A destination to ring, or where to go instead when there is none; both when the destination turns
the caller away (the destination then says how) to go on to the target."""
CHOICES = {"busy": "busy", "reject": "reject", "never": "no_answer"}
"""A simulated answer other than a number of seconds, as the plan's outcome."""
REJECTED = Target(type="X")
"""Not a destination: the caller is turned away (a wrong conference PIN)."""


class Floor(Protocol):
    """Who is on a call and who waits where, as the live calls say."""

    def busy(self, call: Call, user_id: int) -> bool:
        """Whether a user takes part in another live call than this one."""
        ...

    def queued(self, customer_id: int, queue_id: int) -> list[Call]:
        """The callers in a queue, in the order they joined."""
        ...

    def served(self, queue_id: int, user_id: int) -> tuple[int, float | None]:
        """An agent's record in a queue: the calls of it answered, and when the last one ended."""
        ...

    def last_rung(self, queue_id: int) -> int | None:
        """The agent the queue rang last."""
        ...

    def shuffler(self, key: str) -> random.Random:
        """A random generator for `key`, seeded by the simulator's seed."""
        ...


@dataclass(frozen=True)
class Routing:
    """One call being routed: the transaction it is decided in, the simulator's planner, the floor,
    the clock time, and whether it came straight to the user it reaches (the user's own number or
    extension, not through an IVR, ring group or queue)."""

    conn: Connection
    call: Call
    planner: Planner
    floor: Floor
    at: float
    direct: bool = False


def target(code: Any, id_: Any) -> Target | None:
    """A target from a `target_type` code (or a `final_dst_type` letter) and an id; None without one."""
    if code is None:
        return None
    letter = code if isinstance(code, str) and len(code) == 1 else FINAL_DST_TYPE.to_code(TARGET_TYPE.to_name(code))
    return Target(type=str(letter), id=id_ if isinstance(id_, int) else None)


def final(document: Mapping[str, Any], own_voicemail: int | None = None, prefix: str = "") -> Target:
    """A record's final destination (`<prefix>final_dst_type`/`_id`), hang-up when it has none; `V`
    without an id is the user's own voicemail."""
    found = target(document.get(f"{prefix}final_dst_type"), document.get(f"{prefix}final_dst_id"))
    found = found or Target(type="H")
    return Target(type="V", id=own_voicemail) if found.type == "V" and found.id is None else found


def clients(conn: Connection, user_id: int) -> list[Any]:
    """A user's registered clients, folded from its stream inside the transaction."""
    return list(clients_of(conn, user_id).registrations.values())


class _Clients:
    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def of(self, user_id: int) -> list[Any]:
        return clients(self._conn, user_id)


def ringable(conn: Connection, call: Call, user: Mapping[str, Any], floor: Floor,
             on_a_call: bool | None = None) -> Party | None:  # fmt: skip
    """A user's side of the call through its first client, unless it is on DND, has no client, or is on
    another call without call waiting (`on_a_call` False: skip it on any call; True: ring it anyway)."""
    if user.get("dnd") or not clients(conn, user["id"]):
        return None
    allowed = on_a_call if on_a_call is not None else bool(user.get("cw", True))
    if not allowed and floor.busy(call, user["id"]):
        return None
    return user_party(user, _Clients(conn), required=False)


def ringing(call: Call, party: Party, planner: Planner, ring_time: float, context: str, fallback: Target,
            keys: list[str], user: Mapping[str, Any] | None = None, record: bool = False,
            **more: Any) -> Reached:  # fmt: skip
    """A destination to ring for `ring_time` (`keys`: the names a simulated answer may be given by);
    the call is recorded from its answer when the queue's or the user's `monitor` setting says so
    for the calls it receives. Its answer is drawn on its own (`ring_of`)."""
    plan = chosen(planner(call.id, party.number, None, ring_of(call)), call.choices, keys)
    return Reached(dst=party, context=context, fallback=fallback,
                   plan=msgspec.structs.replace(plan, no_answer_seconds=ring_time),
                   user_id=party.user_id if party.user_id is not None else call.user_id,
                   record=record or (user is not None and records(user, "in", context)), **more)  # fmt: skip


def ring_of(call: Call) -> int:
    """Which ring of the call a party rung now is, for the simulator's draw: 0 (the call's own draw)
    for the first destination a call reaches as it is placed; the call's version for any reached
    later, so that each later ring (a queue's next agent, the same agent again) draws on its own."""
    return 0 if call.version <= 1 else call.version


def answering(call: Call, party: Party, planner: Planner, context: str, onward: tuple[float, Target] | None = None,
              **more: Any) -> Reached:  # fmt: skip
    """A destination of the platform's own that answers at once (voicemail, a conference room, an IVR,
    a queue); with `onward` (seconds, target), it sends the caller on to the target after that time."""
    plan = msgspec.structs.replace(planner(call.id, party.number, "answer"), ring_seconds=0.0)
    fallback = None
    if onward is not None:
        plan, fallback = msgspec.structs.replace(plan, talk_seconds=onward[0], onward=True), onward[1]
    return Reached(**{"dst": party, "context": context, "fallback": fallback, "plan": plan, "user_id": call.user_id,
                      **more})  # fmt: skip


def turning_away(call: Call, party: Party, planner: Planner, context: str, outcome: str) -> Reached:
    """A destination of the platform's own that turns the caller away (`outcome`: why, as a plan's);
    the call is nobody's there."""
    plan = msgspec.structs.replace(planner(call.id, party.number, outcome), ring_seconds=0.0)
    return Reached(dst=party, context=context, fallback=None, plan=plan, user_id=None)


def platform_party(kind: str, record: Mapping[str, Any], number: Any = None) -> Party:
    """The party of an IVR, queue or conference: `<kind>:<id>`, its number, name and the platform's client."""
    return Party(number=str(number or record.get("number") or record["id"]), id=f"{kind}:{record['id']}",
                 name=record.get("name"), ua=f"telephony-{kind}", codec="PCMA")  # fmt: skip


def chosen(plan: Plan, choices: Mapping[str, Any], keys: list[str]) -> Plan:
    """The plan with the request's simulated answer for the first of `keys` it names."""
    for key in keys:
        choice = choices.get(key.lstrip("+")) if key else None
        if choice is None:
            continue
        if isinstance(choice, int | float) and not isinstance(choice, bool):
            return msgspec.structs.replace(plan, outcome="answer", ring_seconds=float(choice))
        return msgspec.structs.replace(plan, outcome=CHOICES[str(choice)], ring_seconds=1.0)
    return plan


def first_answering(call: Call, keys: list[str]) -> str:
    """Of destinations rung together, the one whose simulated answer comes first (else the first)."""
    answering_ = [(float(call.choices[k.lstrip("+")]), n, k) for n, k in enumerate(keys)
                  if isinstance(call.choices.get(k.lstrip("+")), int | float)]  # fmt: skip
    return min(answering_)[2] if answering_ else keys[0]


def number(written: str) -> str:
    """An extension as it is; any other number in E.164 with its `+` (a user's follow-me or
    network-unavailable number, as the operator wrote it: separators are dropped)."""
    digits = phone.digits(written)
    return digits if len(digits) <= 6 else phone.e164(digits)


def seconds(value: Any, default: int) -> float:
    """A setting in whole seconds between one and an hour; `default` when it is not a number."""
    try:
        return float(max(1, min(int(value), 3600)))
    except (TypeError, ValueError):
        return float(default)
