"""Routing rules: what a customer's rules decide about a call before it reaches its destination.

Rules of a direction (1 inbound, read before the number's target; 2 outbound, read when a user's
call is placed) are taken in `pos` order (rules without `pos` last, then by id); the first whose
`source` (numbers or user ids; empty: any caller), `destination` (numbers; empty: any) and
`time_interval` (`[from, to]` in minutes of the UTC day, across midnight when from > to; empty: any
time) all match decides: `allow` lets the call on, `block` rejects it, `hangup` ends it, and a
redirect sends it to the rule's `target_type`/`target_id` instead (`redirect`, or an action naming
the kind: `user`, `voicemail`, `ringgroup`, `ivr`, `queue`, `conference`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..documents import reads
from ..domain import phone
from ..domain.calls.call import Target
from ..domain.calls.rules import CAUSES
from ..eventlog.connection import Connection
from .destinations import target

INBOUND, OUTBOUND = 1, 2
"""Routing rule `direction` codes (the `routing_direction` dictionary)."""
ENDINGS = {"block": "call rejected", "hangup": CAUSES["answer"]}
"""The cause a rule's action ends the call with."""
REDIRECTS = ("redirect", "user", "voicemail", "ringgroup", "ivr", "queue", "conference")
"""The actions that send the call to the rule's destination."""


@dataclass(frozen=True)
class Ruling:
    """What a rule decided: the call ends with `ending`, or goes to `target` instead."""

    ending: str | None = None
    target: Target | None = None


def ruling(conn: Connection, customer_id: int, direction: int, callers: list[str], dialled: str,
           at: float) -> Ruling | None:  # fmt: skip
    """The ruling of the first rule of `direction` that matches the call; None when the call goes on
    as it is (no rule matches, or the first that does allows it)."""
    every = reads.every_document(conn, "routingrule", customer_id)
    of_direction = [r for r in every if r.get("direction") == direction]
    minute = int(at // 60 % 1440)
    for rule in sorted(of_direction, key=lambda r: (r.get("pos") is None, r.get("pos") or 0, r["id"])):
        if _among(rule.get("source"), callers) and _among(rule.get("destination"), [dialled]) and _within(
                rule.get("time_interval"), minute):  # fmt: skip
            return _decided(rule)
    return None


def _decided(rule: dict[str, Any]) -> Ruling | None:
    action = str(rule.get("action"))
    if action in ENDINGS:
        return Ruling(ending=ENDINGS[action])
    if action in REDIRECTS:
        return Ruling(target=target(rule.get("target_type"), rule.get("target_id")))
    return None


def _among(listed: Any, names: list[str]) -> bool:
    if not listed:
        return True
    items = {phone.digits(str(item)) for item in (listed if isinstance(listed, list) else [listed])}
    return any(phone.digits(name) in items for name in names if name)


def _within(interval: Any, minute: int) -> bool:
    if not isinstance(interval, list) or len(interval) != 2:
        return True
    start, end = interval
    return start <= minute <= end if start <= end else (minute >= start or minute <= end)
