"""Fault rules as pure rules: what a rule matches, whether a match fires, what the firings do, and
the state the rule's events fold to.

A rule (`fault_rule.FaultRule`) is for API requests (a `path` pattern after the version prefix, and a
method) or for webhook deliveries (a webhook's name). When several match, each takes its turn, oldest
first (`turn`): it counts the match, draws when it has a probability, and acts when it fires; one whose
effect answers (a status, a dropped connection or POST) ends the turn. A draw is a number from the
seed, the rule's id and the match's number, so the same requests in the same order fire the same way,
replays and restarts included. A rule is spent after `count` firings and expires `expires_in` seconds
(clock time) after it was added.

Its events (`domain.events.faults`) are on the stream `fault-<id>`; `evolve` folds them.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import msgspec

from ..clock import wire_time
from ..fault_rule import FaultRule
from .events import Event
from .events.faults import FaultAdded, FaultMatched, FaultRemoved

EFFECT_NAMES = {"status": "status", "latency_ms": "latency", "drop": "drop", "slow_body": "slow_body",
                "delay_ms": "delay", "duplicate": "duplicate"}  # fmt: skip
"""The name a firing records for each effect field."""
ANSWERING = frozenset({"status", "drop"})
"""Effects that answer for the request (or delivery): newer rules do not see it."""


def stream_of(fault_id: int) -> str:
    return f"fault-{fault_id}"


@dataclass(frozen=True)
class Fault:
    """A rule in force: what it is, where it came from (`api`, `config`), when it was added (clock
    time) and how often it matched and fired."""

    id: int
    rule: FaultRule
    source: str
    created_at: float
    matched: int = 0
    fired: int = 0

    @property
    def expires_at(self) -> float | None:
        return None if self.rule.expires_in is None else self.created_at + self.rule.expires_in

    def active(self, now: float) -> bool:
        """Neither spent (`count` firings) nor expired."""
        spent = self.rule.count is not None and self.fired >= self.rule.count
        expired = self.expires_at is not None and now >= self.expires_at
        return not (spent or expired)

    @property
    def effect(self) -> str:
        return self.rule.effects[0]

    def shown(self, now: float) -> dict[str, Any]:
        """The rule as the API shows it."""
        expires_at = self.expires_at
        return {"id": self.id, **msgspec.structs.asdict(self.rule),
                "expires_at": None if expires_at is None else wire_time(expires_at),
                "created_at": wire_time(self.created_at), "source": self.source, "matched": self.matched,
                "fired": self.fired, "active": self.active(now)}  # fmt: skip


# --- matching --------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str, within: str | None) -> re.Pattern[str]:
    """A pattern as a regular expression: `**` any characters, `*` any but `within` (any when None)."""
    star = ".*" if within is None else f"[^{re.escape(within)}]*"
    return re.compile(".*".join(re.escape(part).replace(r"\*", star) for part in pattern.split("**")))


def matches_request(rule: FaultRule, method: str, path: str) -> bool:
    """Whether an API rule matches a request (`path` after the version prefix, without its query)."""
    if rule.path is None or (rule.method is not None and rule.method != method):
        return False
    return _compiled(rule.path, "/").fullmatch(path) is not None


def matches_webhook(rule: FaultRule, name: str) -> bool:
    """Whether a webhook rule matches a delivery to the webhook named `name`."""
    return rule.webhook is not None and _compiled(rule.webhook, None).fullmatch(name) is not None


def draw(seed: int, fault_id: int, match: int) -> float:
    """The draw of a rule's `match`-th match, in [0, 1): the same for the same seed, rule and match."""
    return random.Random(f"{seed}:fault:{fault_id}:{match}").random()


# --- a turn ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Match:
    """One rule's part in a turn: its counts with this match, and the effect it acts with (None: spared)."""

    fault: Fault
    matched: int
    fired: int
    effect: str | None

    def recorded(self, at: float) -> FaultMatched:
        """Its `fault.matched` event."""
        effect = None if self.effect is None else EFFECT_NAMES[self.effect]
        return FaultMatched(id=self.fault.id, at=at, matched=self.matched, fired=self.fired, effect=effect)


def turn(candidates: Iterable[Fault], seed: int) -> list[Match]:
    """The matching active rules' turn on one request or delivery, oldest first, until one answers."""
    taken = []
    for fault in sorted(candidates, key=lambda f: f.id):
        number = fault.matched + 1
        fires = fault.rule.probability is None or draw(seed, fault.id, number) < fault.rule.probability
        taken.append(Match(fault, number, fault.fired + fires, fault.effect if fires else None))
        if fires and fault.effect in ANSWERING:
            break
    return taken


@dataclass(frozen=True)
class Effects:
    """What a turn does to one request or delivery: waits add up; the first answering effect wins."""

    status: int | None = None
    retry_after: int | None = None
    drop: bool = False
    latency_ms: int = 0
    slow_body: int = 0
    delay_ms: int = 0
    duplicate: bool = False
    by: tuple[int, ...] = ()
    """The rules that fired."""


def effects(taken: Iterable[Match]) -> Effects:
    found = Effects()
    for match in taken:
        rule = match.fault.rule
        if match.effect is None:
            continue
        found = replace(found, by=(*found.by, match.fault.id))
        if match.effect == "status":
            found = replace(found, status=rule.status, retry_after=rule.retry_after)
        elif match.effect == "drop":
            found = replace(found, drop=True)
        elif match.effect == "duplicate":
            found = replace(found, duplicate=True)
        else:  # a wait: they add up
            found = replace(found, **{match.effect: getattr(found, match.effect) + getattr(rule, match.effect)})
    return found


# --- events ------------------------------------------------------------------------------------------


def evolve(faults: Mapping[int, Fault], event: Event) -> dict[int, Fault]:
    """The rules in force after one of their events."""
    out = dict(faults)
    match event:
        case FaultAdded():
            out[event.id] = Fault(event.id, event.rule, event.source, event.at)
        case FaultRemoved():
            out.pop(event.id, None)
        case FaultMatched() if (fault := out.get(event.id)) is not None:
            out[fault.id] = replace(fault, matched=max(fault.matched, event.matched),
                                    fired=max(fault.fired, event.fired))  # fmt: skip
    return out
