"""Fault rules as the app uses them: added and removed as events, and matched against API requests
(`middleware`) and webhook deliveries (the sender asks `for_delivery`), each match recorded.

A match is decided at once, on the event loop, from the rules' counts as the log has them or as the
matches decided before it left them (`_counts`: those not yet committed), so requests side by side
never fire a `count` rule more often than its count; the `fault.matched` events are then recorded
before the request or the delivery goes on.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from ..clock import Clock
from ..domain import faults
from ..domain.errors import Unknown
from ..domain.events.faults import FaultAdded, FaultRemoved
from ..domain.faults import Effects, Fault
from ..eventlog import NO_STREAM, EventLog, Metadata, NewEvent
from ..fault_rule import FaultRule
from .rules import FaultRules

CONFIGURED = Metadata(source="config")
FAULTS = Metadata(source="faults")


class Faults:
    def __init__(self, rules: FaultRules, event_log: EventLog, clock: Clock, seed: int) -> None:
        """`seed` is the simulator's: the draws of probabilities follow it."""
        self.rules, self._log, self._clock, self._seed = rules, event_log, clock, seed
        self._counts: dict[int, tuple[int, int]] = {}
        """Each rule's (matched, fired) as the latest match decided left them, committed or not."""
        self._adding = asyncio.Lock()

    # --- the rules -----------------------------------------------------------------------------------

    def listed(self) -> list[dict[str, Any]]:
        now = self._clock.time()
        return [self._counted(f).shown(now) for f in sorted(self.rules.faults.values(), key=lambda f: f.id)]

    async def add(self, rule: FaultRule, meta: Metadata, source: str = "api") -> dict[str, Any]:
        """A new rule, under the next id (one at a time: ids follow the log)."""
        async with self._adding:
            fault_id, now = self.rules.last_id + 1, self._clock.time()
            added = FaultAdded(id=fault_id, at=now, source=source, rule=rule)
            event = NewEvent(stream=faults.stream_of(fault_id), event=added, expected_version=NO_STREAM)
            await self._log.append([event], meta)
        return self.rules.faults[fault_id].shown(now)

    async def remove(self, fault_ids: Iterable[int], meta: Metadata) -> None:
        """Remove rules; `Unknown` (nothing removed) when one is not there."""
        fault_ids = list(fault_ids)
        for fault_id in fault_ids:
            if fault_id not in self.rules.faults:
                raise Unknown(f"Fault {fault_id} not found")
        now = self._clock.time()
        await self._log.append([NewEvent(stream=faults.stream_of(i), event=FaultRemoved(id=i, at=now))
                                for i in fault_ids], meta)  # fmt: skip

    async def configure(self, rules: Sequence[FaultRule]) -> None:
        """Bring the rules from the configuration in line with `[faults] rules`: a configured rule that is
        there already stays (with its counts), a new one is added, one no longer configured is removed."""
        left = {f.id: f for f in self.rules.faults.values() if f.source == "config"}
        for rule in rules:
            kept = next((f for f in sorted(left.values(), key=lambda f: f.id) if f.rule == rule), None)
            if kept is not None:
                del left[kept.id]
            else:
                await self.add(rule, CONFIGURED, "config")
        if left:
            await self.remove(list(left), CONFIGURED)

    # --- matching ------------------------------------------------------------------------------------

    async def for_request(self, method: str, path: str, meta: Metadata) -> Effects | None:
        """What the rules do to an API request (`path` after the version prefix); None when none matches."""
        matching = [f for f in self.rules.for_requests if faults.matches_request(f.rule, method, path)]
        return await self._take(matching, meta) if matching else None

    async def for_delivery(self, webhook: str) -> Effects | None:
        """What the rules do to a delivery to the webhook named `webhook`; None when none matches."""
        matching = [f for f in self.rules.for_deliveries if faults.matches_webhook(f.rule, webhook)]
        return await self._take(matching, FAULTS) if matching else None

    async def _take(self, matching: list[Fault], meta: Metadata) -> Effects | None:
        now = self._clock.time()
        taken = faults.turn([f for f in map(self._counted, matching) if f.active(now)], self._seed)
        if not taken:
            return None
        for match in taken:
            self._counts[match.fault.id] = (match.matched, match.fired)
        await self._log.append([NewEvent(stream=faults.stream_of(m.fault.id), event=m.recorded(now))
                                for m in taken], meta)  # fmt: skip
        return faults.effects(taken)

    def _counted(self, fault: Fault) -> Fault:
        """A rule with the counts of the latest match decided (the log may not have it yet)."""
        matched, fired = self._counts.get(fault.id, (0, 0))
        if matched <= fault.matched:
            return fault
        return dataclasses.replace(fault, matched=matched, fired=max(fired, fault.fired))
