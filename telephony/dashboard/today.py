"""Today's counts of the wallboard: per customer and day (UTC, the clock's), the calls that ended
answered or missed, and how long the answered ones waited.

A call is answered when it was connected (a queue that answered its caller counts, as the platform
counts it: no `call.missed`), missed otherwise. Its wait runs from its start to the answer of the side
it reached last (a queue's agent, not the queue that held the caller), so a queue's waiting time is in
it. The days before the last two are let go: the wallboard shows today only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..domain.calls.call import Call
from ..domain.events.calls import CallEnded
from ..eventlog import RecordedEvent
from ..projections.memory import MemoryProjection

DAY = 86400
KEPT_DAYS = 2


@dataclass(frozen=True)
class Counts:
    answered: int = 0
    missed: int = 0
    waited: float = 0.0
    """Seconds the answered calls waited, in all."""

    @property
    def average_wait(self) -> float | None:
        return self.waited / self.answered if self.answered else None

    def plus(self, call: Call) -> Counts:
        if call.connected_at is None:
            return Counts(self.answered, self.missed + 1, self.waited)
        answer = call.dst_answered_at if call.dst_answered_at is not None else call.connected_at
        return Counts(self.answered + 1, self.missed, self.waited + max(0.0, answer - call.placed_at))


class TodayCounts(MemoryProjection):
    name = "dashboard_today"
    handles = frozenset({CallEnded})
    kept_as = list[tuple[int, int, int, int, float]]

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.counts: dict[tuple[int, int], Counts] = {}

    def apply(self, event: RecordedEvent) -> None:
        match event.event:
            case CallEnded(final=Call() as final, at=at):
                day = int(at // DAY)
                key = (final.customer_id, day)
                if key not in self.counts and any(kept < day - KEPT_DAYS + 1 for _, kept in self.counts):
                    self.counts = {k: v for k, v in self.counts.items() if k[1] > day - KEPT_DAYS}
                self.counts[key] = self.counts.get(key, Counts()).plus(final)

    def of(self, customer_id: int, now: float) -> Counts:
        """A customer's counts of the day `now` falls in."""
        return self.counts.get((customer_id, int(now // DAY)), Counts())

    def state(self) -> Any:
        return dict(self.counts)

    def snapshot(self) -> list[tuple[int, int, int, int, float]]:
        return [(customer, day, c.answered, c.missed, c.waited) for (customer, day), c in self.counts.items()]

    def restore(self, kept: list[tuple[int, int, int, int, float]]) -> None:
        self.counts = {(customer, day): Counts(answered, missed, waited)
                       for customer, day, answered, missed, waited in kept}  # fmt: skip
