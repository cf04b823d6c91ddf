"""The events of fault rules, on the stream `fault-<id>`; `at` is clock time.

A rule is added (by the API or from `[faults]` in the configuration), matched by requests or
deliveries (each match recorded, so a restart keeps its counts and draws), and removed.
"""

from __future__ import annotations

from ...fault_rule import FaultRule
from .base import Event


class FaultAdded(Event, frozen=True, kw_only=True, tag="fault.added"):
    """A fault rule is in force from now on."""

    id: int
    """The rule's id (its stream is `fault-<id>`)."""
    at: float
    """When it was added (clock time, epoch seconds)."""
    source: str
    """Where it came from: `api` or `config`."""
    rule: FaultRule
    """The rule."""


class FaultRemoved(Event, frozen=True, kw_only=True, tag="fault.removed"):
    """A fault rule is no longer in force."""

    id: int
    """The rule's id."""
    at: float
    """When it was removed (clock time, epoch seconds)."""


class FaultMatched(Event, frozen=True, kw_only=True, tag="fault.matched"):
    """A request or delivery matched a rule: its matches and firings so far, this one counted."""

    id: int
    """The rule's id."""
    at: float
    """When it matched (clock time, epoch seconds)."""
    matched: int
    """Its matches so far."""
    fired: int
    """Its firings so far."""
    effect: str | None
    """What it did (`status`, `latency`, `drop`, `slow_body`, `delay`, `duplicate`); None when its
    probability spared the match."""


FAULT_EVENTS = (FaultAdded, FaultRemoved, FaultMatched)
