"""Where an inbound call goes, read from the PBX configuration inside the writer's transaction.

A number (DDI) names its target (`target_type`, `target_id`), or a ring group or IVR lists it in its
`ddis`. A user rings its first registered client for its `ring_time`, then its follow-me targets
when `fm` is on, then its final destination (`final_dst_type`/`final_dst_id`); a user on
do-not-disturb, busy (`cw` off and on a call) or with no registered client is skipped (one with no
client rings its network-unavailable number `nun` first, when set, for `nun_ring_time`). A ring group
rings its members all at once (the first to answer takes the call) or one after another (hunt), for
its `ring_time`, then its final destination. An IVR takes the caller's next key (its action names
the next destination, `<letter>:<id>`) or, without one, its final destination after `timeout` ×
`repeats`. Voicemail answers at once and records the caller's message; hang-up ends the call.
A queue rings its logged-in, free agents in turn until `max_wait_time`, then its final destination.
Simulated answers named in the request (`choices`, by user id or number) win over the simulator's
draw. A conference room answers at once, after the caller keys its PIN when it has one.
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
from .parties import NETWORK_CODEC, NETWORK_UA, display_name, records, user_party

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
    return _target(ddi.get("target_type"), ddi.get("target_id"))


def _target(code: Any, id_: Any) -> Target | None:
    """A target from a `target_type` code (or a letter) and an id; None when there is none."""
    if code is None:
        return None
    letter = code if isinstance(code, str) and len(code) == 1 else FINAL_DST_TYPE.to_code(TARGET_TYPE.to_name(code))
    return Target(type=str(letter), id=id_ if isinstance(id_, int) else None)


RULE_ENDINGS = {"block": "call rejected", "hangup": rules.CAUSES["answer"]}
"""What an inbound routing rule's action does to the call when it ends it."""


INBOUND, OUTBOUND = 1, 2
"""Routing rule `direction` codes (the `routing_direction` dictionary)."""


def rule_ending(conn: sqlite3.Connection, customer_id: int, direction: int, callers: list[str], dialled: str,
                at: float) -> str | None:  # fmt: skip
    """The cause a routing rule of `direction` ends the call with: the first rule (by `pos`, then id)
    that matches the caller (`source`: numbers or user ids, any of `callers`; empty, any), the number
    dialled (`destination`; empty, any) and the time of day (`time_interval` [from, to] in minutes
    of the UTC day; empty, any) decides; `allow` lets the call on, `block` rejects it, `hangup` ends it."""
    ruling = [r for r in reads.every_document(conn, "routingrule", customer_id) if r.get("direction") == direction]
    minute = int(at // 60 % 1440)
    for rule in sorted(ruling, key=lambda r: (r.get("pos") is None, r.get("pos") or 0, r["id"])):
        if _among(rule.get("source"), callers) and _among(rule.get("destination"), [dialled]) and _within(
                rule.get("time_interval"), minute):  # fmt: skip
            return RULE_ENDINGS.get(str(rule.get("action")))
    return None


def _among(listed: Any, names: list[str]) -> bool:
    if not listed:
        return True
    items = {str(item).lstrip("+") for item in (listed if isinstance(listed, list) else [listed])}
    return any(name.lstrip("+") in items for name in names if name)


def _within(interval: Any, minute: int) -> bool:
    if not isinstance(interval, list) or len(interval) != 2:
        return True
    start, end = interval
    return start <= minute <= end if start <= end else (minute >= start or minute <= end)


def listed_target(conn: sqlite3.Connection, customer_id: int, number: str) -> Target | None:
    """The ring group or IVR that lists `number` in its `ddis`, the spec's way of giving it a target."""
    for kind, letter in (("ringgroup", "R"), ("ivr", "I"), ("queue", "Q"), ("conference", "C")):
        for found in reads.listing_any(conn, kind, customer_id, "ddis", [number, number.lstrip("+")]):
            return Target(type=letter, id=found["id"])
    return None


class _Clients:
    """The registered clients of users, folded from their streams inside the transaction."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def of(self, user_id: int) -> list[Any]:
        return list(clients_of(self._conn, user_id).registrations.values())


QUEUE_RECORDS = (1, 2)
"""Queue `monitor` codes (the `queue_monitor` dictionary) that record inbound calls: all, inbound."""
REJECTED = Target(type="X")
"""Not a destination: the caller is turned away (a wrong conference PIN)."""
Busy = Callable[[Call, int], bool]
"""Whether a user (not counting this call) is on a call now."""
STRATEGIES = {1: "A", 2: "H", 3: "M"}
"""Ring group `strategy` codes (the `ringgroup_strategy` dictionary) as follow-me letters."""


def hop(conn: sqlite3.Connection, call: Call, target: Target | None, planner: Planner, busy: Busy, at: float,
        hops: int = 0) -> Hop:  # fmt: skip
    """Where the call goes for `target`, following skipped destinations on to the next."""
    if target is None or hops > 16:
        return Hop(ending=NO_ROUTE)
    if target.type == "H":
        return Hop(ending=rules.CAUSES["answer"])
    if target == REJECTED:
        return Hop(ending=rules.CAUSES["reject"])
    kinds = {"U": "user", "V": "user", "F": "user", "R": "ringgroup", "I": "ivr", "Q": "queue", "C": "conference"}
    """The destinations routed so far, by letter, and the kind of record each names."""
    if target.type not in kinds or target.id is None:
        return Hop(ending=NO_ROUTE)
    found = reads.documents(conn, kinds[target.type], [target.id], call.customer_id).get(target.id)
    if found is None:
        return Hop(ending=NO_ROUTE)
    if target.type == "V":
        return Hop(routed=_voicemail(call, found, planner))
    next_hop = {"U": _user, "F": _follow_me, "R": _ring_group, "I": _ivr, "Q": _queue, "C": _conference}[target.type]
    routed, skipped_to = next_hop(conn, call, found, target, planner, busy, at)
    return Hop(routed=routed) if routed is not None else hop(conn, call, skipped_to, planner, busy, at, hops + 1)


Route = tuple[dict[str, Any] | None, Target | None]
"""A destination to ring, or where to go instead when there is none."""


def _final(document: Mapping[str, Any], own_voicemail: int | None = None) -> Target:
    final = _target(document.get("final_dst_type"), document.get("final_dst_id")) or Target(type="H")
    return Target(type="V", id=own_voicemail) if final.type == "V" and final.id is None else final


def _ringable(conn: sqlite3.Connection, call: Call, user: Mapping[str, Any], busy: Busy) -> Party | None:
    """A user's side of the call through its first client, unless it is on DND, busy or has none."""
    clients = _Clients(conn)
    if user.get("dnd") or not clients.of(user["id"]) or (not user.get("cw", True) and busy(call, user["id"])):
        return None
    return user_party(user, clients, required=False)


def _ringing(call: Call, party: Party, planner: Planner, ring_time: float, context: str, fallback: Target,
             keys: list[str], user: Mapping[str, Any] | None = None, record: bool = False
             ) -> dict[str, Any]:  # fmt: skip
    """A destination to ring; the call is recorded from its answer when the queue's or the user's
    `monitor` setting says so for inbound calls."""
    plan = _chosen(planner(call.id, party.number, None), call.choices, keys)
    return {"dst": msgspec.to_builtins(party), "context": context, "fallback": msgspec.to_builtins(fallback),
            "plan": msgspec.to_builtins(msgspec.structs.replace(plan, no_answer_seconds=ring_time)),
            "user_id": party.user_id if party.user_id is not None else call.user_id,
            "record": record or (user is not None and records(user, "in", context))}  # fmt: skip


def _user(conn: sqlite3.Connection, call: Call, user: dict[str, Any], target: Target, planner: Planner,
          busy: Busy, at: float) -> Route:  # fmt: skip
    after = Target(type="F", id=user["id"]) if user.get("fm") and user.get("fm_targets") else _final(user, user["id"])
    party = _ringable(conn, call, user, busy)
    if party is None and user.get("nun") and not _Clients(conn).of(user["id"]) and not user.get("dnd"):
        nun = Party(number=_number(str(user["nun"])), ua=NETWORK_UA, codec=NETWORK_CODEC, name=display_name(user))
        return _ringing(call, nun, planner, float(user.get("nun_ring_time") or 20), "PSTN_CALL", after,
                        [nun.number or ""]), None  # fmt: skip
    if party is None:
        return None, after
    ring_time = _seconds(user.get("ring_time"), 20)
    keys = [str(user["id"]), party.number or ""]
    return _ringing(call, party, planner, ring_time, "PSTN_CALL", after, keys, user), None


def _follow_me(conn: sqlite3.Connection, call: Call, user: dict[str, Any], target: Target, planner: Planner,
               busy: Busy, at: float) -> Route:  # fmt: skip
    """The user's follow-me numbers: all at once (A) or one after another (H, M), each for `fm_ring_time`."""
    numbers = [str(n) for n in user.get("fm_targets") or []]
    if target.step >= len(numbers) or (user.get("fm_strategy") == "A" and target.step > 0):
        return None, _final({"final_dst_type": user.get("fm_final_dst_type") or "H",
                             "final_dst_id": user.get("fm_final_dst_id")}, user["id"])  # fmt: skip
    number = numbers[target.step] if user.get("fm_strategy") != "A" else _first_answering(call, numbers)
    party = Party(number=_number(number), ua=NETWORK_UA, codec=NETWORK_CODEC, name=display_name(user))
    following = Target(type="F", id=user["id"], step=target.step + 1)
    return _ringing(call, party, planner, _seconds(user.get("fm_ring_time"), 20), "FOLLOW_ME", following,
                    [number]), None  # fmt: skip


def _ring_group(conn: sqlite3.Connection, call: Call, group: dict[str, Any], target: Target, planner: Planner,
                busy: Busy, at: float) -> Route:  # fmt: skip
    """Ring all members at once (the first to answer takes the call) or hunt through them."""
    members = [u for u in reads.documents(conn, "user", list(group.get("users") or []), call.customer_id).values()]
    ringable = [(u, p) for u in members if (p := _ringable(conn, call, u, busy)) is not None]
    ring_time = _seconds(group.get("ring_time"), 20)
    final = _final(group)
    if STRATEGIES.get(group.get("strategy") or 1, "A") == "A":
        if target.step > 0 or not ringable:
            return None, final
        keys = {str(u["id"]): (u, p) for u, p in ringable}
        first = _first_answering(call, list(keys))
        user, party = keys[first]
        following = Target(type="R", id=group["id"], step=1)
        return _ringing(call, party, planner, ring_time, "RINGGROUP", following, [first], user), None
    if target.step >= len(ringable):
        return None, final
    user, party = ringable[target.step]
    following = Target(type="R", id=group["id"], step=target.step + 1)
    return _ringing(call, party, planner, ring_time, "RINGGROUP", following, [str(user["id"])], user), None


def _queue(conn: sqlite3.Connection, call: Call, queue: dict[str, Any], target: Target, planner: Planner,
           busy: Busy, at: float) -> Route:  # fmt: skip
    """A queue: the caller waits (context `QUEUE`) while its logged-in agents not on a call are rung one after
    another for `ring_time`, the queue checked again every `retry` seconds while none is, until
    `max_wait_time`; then the queue's final destination. With no agent logged in and `join_empty`
    off, the caller goes straight to the final destination."""
    since = target.since if target.since is not None else at
    final = _final(queue)
    members = [m for m in queue.get("users") or [] if isinstance(m, dict) and m.get("status", True)]
    if target.since is None and not members and queue.get("join_empty") is False:
        return None, final
    waited, most = at - since, float(queue.get("max_wait_time") or 300)
    if waited >= most:
        return None, final
    users = reads.documents(conn, "user", [m["id"] for m in members], call.customer_id)
    agents = [(u, p) for m in members if (u := users.get(m["id"])) and not busy(call, u["id"])
              and (p := _ringable(conn, call, u, busy))]  # fmt: skip
    following = Target(type="Q", id=queue["id"], step=target.step + 1, since=since)
    left = most - waited
    if not agents:
        party = Party(number=str(queue.get("number") or queue["id"]), id=f"queue:{queue['id']}",
                      name=queue.get("name"), ua="telephony-queue", codec="PCMA")  # fmt: skip
        wait = min(float(queue.get("retry") or 5), left)
        plan = msgspec.structs.replace(planner(call.id, party.number, "no_answer"), no_answer_seconds=wait)
        return {"dst": msgspec.to_builtins(party), "context": "QUEUE", "fallback": msgspec.to_builtins(following),
                "plan": msgspec.to_builtins(plan), "user_id": call.user_id}, None  # fmt: skip
    user, party = agents[target.step % len(agents)]
    ring_time = min(_seconds(queue.get("ring_time"), 15), left)
    recorded = queue.get("monitor") in QUEUE_RECORDS
    return _ringing(call, party, planner, ring_time, "QUEUE", following, [str(user["id"])], user, recorded), None


def _conference(conn: sqlite3.Connection, call: Call, room: dict[str, Any], target: Target, planner: Planner,
                busy: Busy, at: float) -> Route:  # fmt: skip
    """A conference room answers at once (context `CONFERENCE`); with a PIN (`pin_pstn`, else `pin`),
    the caller's next keys must be it, or the call is rejected. Callers in one room talk together
    until each leaves (its talk time, or when it hangs up)."""
    pin = room.get("pin_pstn") or room.get("pin")
    used = call.digits_used
    if pin:
        if used >= len(call.digits) or call.digits[used][0] != str(pin):
            return None, REJECTED
        used += 1
    number = str(room.get("confno_pstn") or room.get("confno") or room["id"])
    party = Party(number=number, id=f"conference:{room['id']}", name=room.get("name"), ua="telephony-conference",
                  codec="PCMA")  # fmt: skip
    plan = msgspec.structs.replace(planner(call.id, party.number, "answer"), ring_seconds=0.0)
    return {"dst": msgspec.to_builtins(party), "context": "CONFERENCE", "fallback": None,
            "plan": msgspec.to_builtins(plan), "user_id": call.user_id, "digits_used": used}, None  # fmt: skip


def _number(number: str) -> str:
    """An extension as it is; any other number in E.164 with its `+`."""
    return number if len(number.lstrip("+")) <= 6 else "+" + number.lstrip("+")


def _first_answering(call: Call, keys: list[str]) -> str:
    """Of destinations rung together, the one whose simulated answer comes first (else the first)."""
    answering = [(float(call.choices[k.lstrip("+")]), n, k) for n, k in enumerate(keys)
                 if isinstance(call.choices.get(k.lstrip("+")), int | float)]  # fmt: skip
    return min(answering)[2] if answering else keys[0]


def _ivr(conn: sqlite3.Connection, call: Call, ivr: dict[str, Any], target: Target, planner: Planner,
         busy: Busy, at: float) -> Route:  # fmt: skip
    """The IVR waits for the caller's next key; its action is where the call goes, else the final destination."""
    repeats = max(1, int(ivr.get("repeats") or 1))
    wait = _seconds(ivr.get("timeout"), 5) * repeats
    fallback, used = _final(ivr), call.digits_used
    if used < len(call.digits):
        key, wait = call.digits[used]
        fallback, used = key_target(conn, call, ivr, key) or fallback, used + 1
    party = Party(number=str(ivr.get("number") or ivr["id"]), id=f"ivr:{ivr['id']}", name=ivr.get("name"),
                  ua="telephony-ivr", codec="PCMA")  # fmt: skip
    plan = msgspec.structs.replace(planner(call.id, party.number, "no_answer"), no_answer_seconds=wait)
    return {"dst": msgspec.to_builtins(party), "context": "IVR", "fallback": msgspec.to_builtins(fallback),
            "plan": msgspec.to_builtins(plan), "user_id": call.user_id, "digits_used": used}, None  # fmt: skip


KEYS = {"0": "zero", "1": "one", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
        "8": "eight", "9": "nine", "*": "star", "#": "hash"}  # fmt: skip
"""A key of the phone pad and the IVR field naming its action."""


def key_target(conn: sqlite3.Connection, call: Call, ivr: Mapping[str, Any], key: str) -> Target | None:
    """Where a key pressed in an IVR sends the call: its action, or the extension dialled (with
    `ext_dialing`); None when the key does nothing."""
    if key in KEYS:
        return _action(ivr.get(KEYS[key]))
    return _extension(conn, call, key) if ivr.get("ext_dialing") else None


def ivr_of(conn: sqlite3.Connection, call: Call) -> dict[str, Any] | None:
    """The IVR a live call is in, if it is in one."""
    if call.context != "IVR" or not (call.dst.id or "").startswith("ivr:"):
        return None
    ivr_id = int((call.dst.id or "").partition(":")[2])
    return reads.documents(conn, "ivr", [ivr_id], call.customer_id).get(ivr_id)


def _action(action: Any) -> Target | None:
    """An IVR key's action, `<final_dst_type letter>:<id>` (`Q:3`, `U:1000002`, `H`)."""
    if not isinstance(action, str) or not action:
        return None
    letter, _, id_ = action.partition(":")
    return Target(type=letter[:1].upper(), id=int(id_) if id_.isdigit() else None)


def _extension(conn: sqlite3.Connection, call: Call, digits: str) -> Target | None:
    """A caller dialling an extension from an IVR reaches that user."""
    users = reads.having(conn, "user", call.customer_id, "ext", digits)
    return Target(type="U", id=users[0]["id"]) if users else None


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
