"""Where a call goes, read from the PBX configuration inside the writer's transaction.

A number (DDI) names its target (`target_type`, `target_id`). A user rings its first registered
client for its `ring_time` (`fm_init_ring_time` when it forwards), then its follow-me targets when
`fm` is on (only for calls straight to the user with `fm_only_direct`), then its final destination
(`final_dst_type`/`final_dst_id`); a user on do-not-disturb, busy (`cw` off and on a call) or with no
registered client is skipped (one with no client rings its network-unavailable number `nun` first,
when set, for `nun_ring_time`). A ring group rings its members all at once (the first to answer
takes the call) or one after another (hunt), for its `ring_time`, then its final destination. An
IVR answers and plays its menu: a key whose action names the next destination (`<letter>:<id>`)
sends the caller there; no key, or a key that does nothing, plays the menu again, `repeats` times in
all, then the caller goes to the IVR's final destination. Queues are `queueing`'s. Voicemail
answers at once and records the caller's message; a conference room answers at once, after the
caller keys its PIN when it has one; hang-up ends the call. Simulated answers named in the request
(`choices`, by user id or number) win over the simulator's draw.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..documents import reads
from ..domain.calls.call import Call, Party, Reached, Target
from ..domain.calls.menu import Menu, heard
from ..domain.calls.rules import CAUSES
from ..eventlog.connection import Connection
from .destinations import (
    REJECTED,
    Route,
    Routing,
    answering,
    clients,
    final,
    first_answering,
    number,
    platform_party,
    ringable,
    ringing,
    seconds,
    target,
)
from .parties import NETWORK_CODEC, NETWORK_UA, display_name
from .queueing import queue

NO_ROUTE = "no route destination"
STRATEGIES = {1: "A", 2: "H", 3: "M"}
"""Ring group `strategy` codes (the `ringgroup_strategy` dictionary) as follow-me letters."""
KINDS = {"U": "user", "V": "user", "F": "user", "R": "ringgroup", "I": "ivr", "Q": "queue", "C": "conference"}
"""The destinations by letter, and the kind of record each names (F: a user's follow-me)."""
MOST_HOPS = 16


@dataclass(frozen=True)
class Hop:
    """The next destination of a call (`routed`: what `rules.route` records), or its ending cause."""

    routed: Reached | None = None
    ending: str | None = None
    through: Reached | None = None
    """A destination the call is routed to first: a queue that answers the caller as it joins, before
    `routed` rings an agent; or one that turned the caller away, when the call then ends (`ending`
    is the destination's reason), so that the call's record names it."""


def target_of(ddi: Mapping[str, Any]) -> Target | None:
    """A number's target as a `final_dst_type` letter (its `target_type` code renamed) and id."""
    return target(ddi.get("target_type"), ddi.get("target_id"))


def hop(r: Routing, to: Target | None, hops: int = 0) -> Hop:
    """Where the call goes for `to`, following skipped destinations on to the next."""
    if to is None or hops > MOST_HOPS:
        return Hop(ending=NO_ROUTE)
    if to.type == "H":
        return Hop(ending=CAUSES["answer"])
    if to == REJECTED:
        return Hop(ending=CAUSES["reject"])
    if to.type not in KINDS or to.id is None:
        return Hop(ending=NO_ROUTE)
    found = reads.documents(r.conn, KINDS[to.type], [to.id], r.call.customer_id).get(to.id)
    if found is None:
        return Hop(ending=NO_ROUTE)
    routed, onward = DESTINATIONS[to.type](r, found, to)
    if onward is None:
        return Hop(routed=dataclasses.replace(routed, through=None), through=routed.through) if routed else (
            Hop(ending=NO_ROUTE))  # fmt: skip
    after = hop(dataclasses.replace(r, direct=False), onward, hops + 1)
    if routed is None or after.routed is not None or after.through is not None:
        return after
    return Hop(ending=CAUSES[routed.plan.outcome], through=routed)  # turned away, then the call ends


def _user_context(call: Call) -> str:
    """A user rung on an inbound call is on a PSTN call; on a call of a user of the customer, a local one."""
    return "PSTN_CALL" if call.destination == "in" else "USER_LOCAL"


def _user(r: Routing, user: dict[str, Any], to: Target) -> Route:
    forwards = bool(user.get("fm") and user.get("fm_targets")) and (r.direct or not user.get("fm_only_direct"))
    after = Target(type="F", id=user["id"]) if forwards else final(user, user["id"])
    party = ringable(r.conn, r.call, user, r.floor)
    reachable = not clients(r.conn, user["id"]) and not user.get("dnd")
    if party is None and user.get("nun") and reachable and (r.direct or not user.get("nun_only_direct")):
        nun = Party(number=number(str(user["nun"])), ua=NETWORK_UA, codec=NETWORK_CODEC, name=display_name(user))
        return ringing(r.call, nun, r.planner, seconds(user.get("nun_ring_time"), 20), "PSTN_CALL", after,
                       [nun.number or ""]), None  # fmt: skip
    if party is None:
        return None, after
    ring_time = seconds(user.get("ring_time"), 20)
    if forwards and isinstance(user.get("fm_init_ring_time"), int) and user["fm_init_ring_time"] > 0:
        ring_time = seconds(user["fm_init_ring_time"], 20)  # 0, the default, keeps the user's ring time
    keys = [str(user["id"]), party.number or ""]
    return ringing(r.call, party, r.planner, ring_time, _user_context(r.call), after, keys, user), None


def _follow_me(r: Routing, user: dict[str, Any], to: Target) -> Route:
    """The user's follow-me numbers: all at once (A) or one after another (H, M), each for `fm_ring_time`."""
    numbers = [str(n) for n in user.get("fm_targets") or []]
    if to.step >= len(numbers) or (user.get("fm_strategy") == "A" and to.step > 0):
        return None, final(user, user["id"], prefix="fm_")
    called = numbers[to.step] if user.get("fm_strategy") != "A" else first_answering(r.call, numbers)
    party = Party(number=number(called), ua=NETWORK_UA, codec=NETWORK_CODEC, name=display_name(user))
    following = Target(type="F", id=user["id"], step=to.step + 1)
    return ringing(r.call, party, r.planner, seconds(user.get("fm_ring_time"), 20), "FOLLOW_ME", following,
                   [called]), None  # fmt: skip


def _ring_group(r: Routing, group: dict[str, Any], to: Target) -> Route:
    """Ring all members at once (the first to answer takes the call) or hunt through them."""
    members = list(reads.documents(r.conn, "user", list(group.get("users") or []), r.call.customer_id).values())
    reachable = [(u, p) for u in members if (p := ringable(r.conn, r.call, u, r.floor)) is not None]
    ring_time = seconds(group.get("ring_time"), 20)
    if STRATEGIES.get(group.get("strategy") or 1, "A") == "A":
        if to.step > 0 or not reachable:
            return None, final(group)
        keyed = {str(u["id"]): (u, p) for u, p in reachable}
        first = first_answering(r.call, list(keyed))
        user, party = keyed[first]
        following = Target(type="R", id=group["id"], step=1)
        return ringing(r.call, party, r.planner, ring_time, "RINGGROUP", following, [first], user), None
    if to.step >= len(reachable):
        return None, final(group)
    user, party = reachable[to.step]
    following = Target(type="R", id=group["id"], step=to.step + 1)
    return ringing(r.call, party, r.planner, ring_time, "RINGGROUP", following, [str(user["id"])], user), None


def _ivr(r: Routing, ivr: dict[str, Any], to: Target) -> Route:
    """The IVR answers and plays its menu (`domain.calls.menu`): the first of the caller's keys that
    does something is where the caller goes on to (in a new call); a key that does nothing plays the
    menu again; after its last play, the IVR's final destination."""
    onward, wait, used = heard(menu_of(ivr), r.call.digits, r.call.digits_used,
                               lambda key: key_target(r.conn, r.call, ivr, key))  # fmt: skip
    party = platform_party("ivr", ivr)
    return answering(r.call, party, r.planner, "IVR", (wait, onward or final(ivr)), digits_used=used), None


def _conference(r: Routing, room: dict[str, Any], to: Target) -> Route:
    """A conference room answers at once (context `CONFERENCE`); with a PIN (`pin_pstn`, else `pin`),
    the caller's next keys must be it, or the call is rejected. Callers in one room talk together
    until each leaves (its talk time, or when it hangs up)."""
    pin = room.get("pin_pstn") or room.get("pin")
    used = r.call.digits_used
    if pin:
        if used >= len(r.call.digits) or r.call.digits[used][0] != str(pin):
            return None, REJECTED
        used += 1
    party = platform_party("conference", room, room.get("confno_pstn") or room.get("confno"))
    return answering(r.call, party, r.planner, "CONFERENCE", digits_used=used), None


def _voicemail(r: Routing, user: dict[str, Any], to: Target) -> Route:
    """The user's voicemail answers at once; the caller's message lasts the simulator's talk time."""
    party = Party(number=user.get("ext") or str(user["id"]), id=f"voicemail:{user['id']}",
                  name=f"Voicemail of {display_name(user) or user['id']}", ua="telephony-voicemail",
                  codec="PCMA", user_id=user["id"])  # fmt: skip
    return answering(r.call, party, r.planner, "VOICEMAIL", user_id=user["id"]), None


DESTINATIONS: Mapping[str, Callable[[Routing, dict[str, Any], Target], Route]] = {
    "U": _user, "V": _voicemail, "F": _follow_me, "R": _ring_group, "I": _ivr, "Q": queue, "C": _conference,
}  # fmt: skip

KEYS = {"0": "zero", "1": "one", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
        "8": "eight", "9": "nine", "*": "star", "#": "hash"}  # fmt: skip
"""A key of the phone pad and the IVR field naming its action."""


def key_target(conn: Connection, call: Call, ivr: Mapping[str, Any], key: str) -> Target | None:
    """Where a key pressed in an IVR sends the call: its action, or the extension dialled (with
    `ext_dialing`); None when the key does nothing."""
    if key in KEYS:
        return _action(ivr.get(KEYS[key]))
    return _extension(conn, call, key) if ivr.get("ext_dialing") else None


def menu_of(ivr: Mapping[str, Any]) -> Menu:
    """An IVR's menu: `timeout` seconds a play waits for a key (5 by default), `repeats` plays (one at least)."""
    return Menu(timeout=seconds(ivr.get("timeout"), 5), plays=max(1, int(ivr.get("repeats") or 1)))


def ivr_of(conn: Connection, call: Call) -> dict[str, Any] | None:
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


def _extension(conn: Connection, call: Call, digits: str) -> Target | None:
    """A caller dialling an extension from an IVR reaches that user."""
    users = reads.every_document(conn, "user", call.customer_id, ext=digits)
    return Target(type="U", id=users[0]["id"]) if users else None
