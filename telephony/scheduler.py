"""Periodic work on APScheduler, in step with the injectable clock.

Jobs run on real time through APScheduler's AsyncIOScheduler. When the clock is moved forward
(`POST /_telephony/clock`), `run_due` runs every job that became due in clock time, in due order,
so tests and demos see expiries and schedules happen without waiting.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from .clock import Clock

log = logging.getLogger(__name__)
Job = Callable[[], Awaitable[object]]


@dataclass
class _Periodic:
    name: str
    every: float
    job: Job
    due: float


class Scheduler:
    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._jobs: list[_Periodic] = []
        self._aps = AsyncIOScheduler(timezone="UTC")

    def every(self, seconds: float, job: Job, name: str) -> None:
        self._jobs.append(_Periodic(name, seconds, job, self._clock.time() + seconds))

    def start(self) -> None:
        for periodic in self._jobs:
            self._aps.add_job(self._run, "interval", seconds=periodic.every, args=[periodic], id=periodic.name,
                              coalesce=True, max_instances=1, misfire_grace_time=None)  # fmt: skip
        self._aps.start()

    def shutdown(self) -> None:
        if self._aps.running:
            self._aps.shutdown(wait=False)

    async def run_due(self) -> int:
        """Run every job due by the clock's now, earliest first; returns how many ran."""
        ran = 0
        now = self._clock.time()
        for periodic in sorted((p for p in self._jobs if p.due <= now), key=lambda p: p.due):
            await self._run(periodic)
            ran += 1
        return ran

    async def _run(self, periodic: _Periodic) -> None:
        periodic.due = self._clock.time() + periodic.every
        try:
            await periodic.job()
        except Exception:
            log.exception("scheduled job %s failed", periodic.name)
