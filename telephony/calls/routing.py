"""Where an inbound call goes, read from the PBX configuration inside the writer's transaction.

A number (DDI) names its target (`target_type`, `target_id`). A user rings its first registered
client for its `ring_time`, then the call goes to the user's final destination
(`final_dst_type`/`final_dst_id`); a user on do-not-disturb or with no registered client is skipped
straight to it. Voicemail answers at once and records the caller's message; hang-up ends the call.
Simulated answers named in the request (`choices`, by user id or number) win over the simulator's
draw. Ring groups, queues, IVRs and conferences are not routed yet: a call reaching one ends with
"no route destination".
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from ..accounts import clients_of
from ..documents import reads
from ..domain import calls as rules
from ..domain.calls import Call, Party, Plan, Target
from ..domain.dictionaries import FINAL_DST_TYPE, TARGET_TYPE
from .parties import display_name, user_party

NO_ROUTE = "no route destination"
Planner = Callable[[int, str | None, str | None], Plan]
CHOICES = {"busy": "busy", "reject": "reject", "never": "no_answer"}
"""A simulated answer other than a number of seconds, as the plan's outcome."""


@dataclass(frozen=True)
class Hop:
    """The next destination of a call (`routed`: what `rules.route` records), or its ending cause."""

    routed: dict[str, Any] | None = None
    ending: str | None = None


def target_of(ddi: Mapping[str, Any]) -> Target | None:
    """A number's target as a `final_dst_type` letter (its `target_type` code renamed) and id."""
    code = ddi.get("target_type")
    if code is None:
        return None
    return Target(type=str(FINAL_DST_TYPE.to_code(TARGET_TYPE.to_name(code))), id=ddi.get("target_id"))


class _Clients:
    """The registered clients of users, folded from their streams inside the transaction."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def of(self, user_id: int) -> list[Any]:
        return list(clients_of(self._conn, user_id).registrations.values())


def hop(conn: sqlite3.Connection, call: Call, target: Target | None, planner: Planner, hops: int = 0) -> Hop:
    """Where the call goes for `target`, following skipped users to their final destinations."""
    if target is None or hops > 8:
        return Hop(ending=NO_ROUTE)
    if target.type == "H":
        return Hop(ending=rules.CAUSES["answer"])
    if target.type not in ("U", "V") or target.id is None:
        return Hop(ending=NO_ROUTE)
    user = reads.documents(conn, "user", [target.id], call.customer_id).get(target.id)
    if user is None:
        return Hop(ending=NO_ROUTE)
    if target.type == "V":
        return Hop(routed=_voicemail(call, user, planner))
    clients = _Clients(conn)
    final = Target(type=user.get("final_dst_type") or "H", id=user.get("final_dst_id"))
    if final.type == "V" and final.id is None:
        final = Target(type="V", id=user["id"])
    if user.get("dnd") or not clients.of(user["id"]):
        return hop(conn, call, final, planner, hops + 1)
    party = user_party(user, clients, required=False)
    plan = _chosen(planner(call.id, party.number, None), call.choices, [str(user["id"]), party.number or ""])
    ring_time = _seconds(user.get("ring_time"), 20)
    routed = {"dst": msgspec.to_builtins(party), "plan": msgspec.to_builtins(msgspec.structs.replace(
        plan, no_answer_seconds=ring_time)), "context": "PSTN_CALL", "fallback": msgspec.to_builtins(final),
        "user_id": user["id"]}  # fmt: skip
    return Hop(routed=routed)


def _voicemail(call: Call, user: Mapping[str, Any], planner: Planner) -> dict[str, Any]:
    """The user's voicemail answers at once; the caller's message lasts the simulator's talk time."""
    party = Party(number=user.get("ext") or str(user["id"]), id=f"voicemail:{user['id']}",
                  name=f"Voicemail of {display_name(user) or user['id']}", ua="telephony-voicemail",
                  codec="PCMA", user_id=user["id"])  # fmt: skip
    plan = msgspec.structs.replace(planner(call.id, party.number, "answer"), ring_seconds=0.0)
    return {"dst": msgspec.to_builtins(party), "plan": msgspec.to_builtins(plan), "context": "VOICEMAIL",
            "fallback": None, "user_id": user["id"]}  # fmt: skip


def _chosen(plan: Plan, choices: Mapping[str, Any], keys: list[str]) -> Plan:
    """The plan with the request's simulated answer for the first of `keys` it names."""
    for key in keys:
        choice = choices.get(key.lstrip("+")) if key else None
        if choice is None:
            continue
        if isinstance(choice, int | float) and not isinstance(choice, bool):
            return msgspec.structs.replace(plan, outcome="answer", ring_seconds=float(choice))
        return msgspec.structs.replace(plan, outcome=CHOICES[str(choice)], ring_seconds=1.0)
    return plan


def _seconds(value: Any, default: int) -> float:
    try:
        return float(max(1, min(int(value), 3600)))
    except (TypeError, ValueError):
        return float(default)
