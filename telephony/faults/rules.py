"""The fault rules in force, folded in memory from their events (`fault.added`, `.removed`, `.matched`):
each rule with its counts, and the highest id ever given (ids are never given again)."""

from __future__ import annotations

from ..domain import faults
from ..domain.events.faults import FAULT_EVENTS, FaultAdded
from ..domain.faults import Fault
from ..eventlog import RecordedEvent
from ..projections.memory import MemoryProjection


class FaultRules(MemoryProjection):
    name = "fault_rules"
    handles = frozenset(FAULT_EVENTS)
    kept_as = tuple[int, list[Fault]]

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.faults: dict[int, Fault] = {}
        self.last_id = 0
        self._sorted()

    def apply(self, event: RecordedEvent) -> None:
        self.faults = faults.evolve(self.faults, event.event)
        if isinstance(event.event, FaultAdded):
            self.last_id = max(self.last_id, event.event.id)
        self._sorted()

    def _sorted(self) -> None:
        """The rules oldest first, for API requests and for webhook deliveries apart."""
        ordered = sorted(self.faults.values(), key=lambda f: f.id)
        self.for_requests = [f for f in ordered if f.rule.path is not None]
        self.for_deliveries = [f for f in ordered if f.rule.webhook is not None]

    def state(self) -> tuple[int, dict[int, Fault]]:
        return self.last_id, self.faults

    def snapshot(self) -> tuple[int, list[Fault]]:
        return self.last_id, list(self.faults.values())

    def restore(self, kept: tuple[int, list[Fault]]) -> None:
        self.last_id, self.faults = kept[0], {f.id: f for f in kept[1]}
        self._sorted()
