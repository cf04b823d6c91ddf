"""Timers on clock time: one-shot (`at`) and periodic (`every`) jobs, keyed so they can be cancelled.

Timers sit in one heap ordered by their due time on the injected clock. APScheduler's
AsyncIOScheduler holds a single job, the alarm, set at the real time when the earliest timer falls
due; a virtual clock needs no alarm, since its time passes only when it is moved.

Moving the clock (`advance_to`) runs every timer due on the way in due order, and moves the clock to
each one's due time first, so a job sees the clock as it was when the job fell due; a timer the clock
has passed already (overdue, or a flowing clock went on meanwhile) runs at the clock's time, since the
clock never goes back. A move and the alarm's run take turns (one lock). A periodic job
that missed several periods runs at most twice per move (its first due time and its last one),
as APScheduler's `coalesce` does. When the alarm finds several timers due at once (real time ran
past them), they run together, so their owners' appends share commits. A job that fails is logged
and never stops the others. Stopping takes no more timers and lets the jobs under way finish: their
appends, and what follows the log's commits, are still open then.

The scheduler keeps nothing that matters: owners add their timers, and the sources the wiring
attaches (`derive`) add theirs again from projections at each start.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from ..clock import LATEST, Clock

log = logging.getLogger(__name__)
Job = Callable[[], Awaitable[object]]
Source = Callable[[], Iterable[tuple[float, str, Job]]]
"""Timers derived from projections at start: (due, key, job) triples."""
ALARM = "telephony-alarm"


class Timers(Protocol):
    """What a timer's owner uses of the scheduler."""

    def at(self, when: float, key: str, job: Job) -> None: ...

    def cancel(self, key: str) -> bool: ...

    def due(self, key: str) -> float | None: ...

    def now(self) -> float: ...


@dataclass(order=True, slots=True)
class _Timer:
    due: float
    order: int
    key: str = field(compare=False)
    job: Job = field(compare=False)
    every: float | None = field(compare=False, default=None)
    cancelled: bool = field(compare=False, default=False)


class Scheduler:
    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._heap: list[_Timer] = []
        self._timers: dict[str, _Timer] = {}
        self._order = itertools.count()
        self._sources: list[Source] = []
        self._aps = AsyncIOScheduler(timezone=UTC)
        self._alarm_due: float | None = None
        self._rearm_pending = False
        self._running = asyncio.Lock()
        self._stopping = False
        self._alarm_runs: set[asyncio.Future[None]] = set()

    # --- what owners call --------------------------------------------------------------------------

    def at(self, when: float, key: str, job: Job) -> None:
        """Run `job` once when the clock reaches `when`; a timer of the same key is replaced."""
        self._add(_Timer(when, next(self._order), key, job))

    def every(self, seconds: float, key: str, job: Job) -> None:
        """Run `job` every `seconds` of clock time, the first time `seconds` from now."""
        if not seconds > 0:
            raise ValueError("a periodic job needs a positive period")
        self._add(_Timer(self._clock.time() + seconds, next(self._order), key, job, every=seconds))

    def cancel(self, key: str) -> bool:
        """Forget the timer of `key`; False when there was none."""
        timer = self._timers.pop(key, None)
        if timer is None:
            return False
        timer.cancelled = True
        if len(self._heap) > 64 and len(self._timers) < len(self._heap) // 2:
            self._heap = [t for t in self._heap if not t.cancelled]
            heapq.heapify(self._heap)
        return True

    def due(self, key: str) -> float | None:
        timer = self._timers.get(key)
        return timer.due if timer is not None else None

    def now(self) -> float:
        return self._clock.time()

    def next_due(self) -> float | None:
        """When the earliest timer falls due; None when there is none."""
        while self._heap and self._heap[0].cancelled:
            heapq.heappop(self._heap)
        return self._heap[0].due if self._heap else None

    @property
    def pending(self) -> int:
        return len(self._timers)

    def derive(self, source: Source) -> None:
        """Add the timers `source` derives from projections now, and again at every start."""
        self._sources.append(source)
        if self._aps.running:
            self.add_from(source)

    @property
    def sources(self) -> tuple[Source, ...]:
        """What derives timers at every start, in the order it was attached."""
        return tuple(self._sources)

    # --- life --------------------------------------------------------------------------------------

    def start(self) -> None:
        self._stopping = False
        for source in self._sources:
            self.add_from(source)
        self._aps.start()
        self._rearm()

    async def stop(self) -> None:
        """No alarm fires any more, and the jobs running now finish first (their appends and what follows
        the log's commits are still open); no more are taken."""
        self._stopping = True
        if self._aps.running:
            self._aps.shutdown(wait=False)
        await asyncio.gather(*self._alarm_runs, return_exceptions=True)
        async with self._running:
            self._heap.clear()
            self._timers.clear()

    # --- running what is due -----------------------------------------------------------------------

    async def run_due(self) -> int:
        """Run every timer due by the clock's now; returns how many ran. The timers due together run
        together (their owners' appends then share commits), then those they made due, and so on."""
        async with self._running:
            ran = 0
            while not self._stopping and (due := self._all_due(self._clock.time())):
                await asyncio.gather(*(self._run(timer, self._clock.time()) for timer in due))
                ran += len(due)
        self._rearm_soon()
        return ran

    async def advance_to(self, target: float) -> int:
        """Move the clock to `target`, running each timer due on the way at its own due time; one the
        clock has passed already (overdue, or a flowing clock went on meanwhile) runs at the clock's time."""
        async with self._running:
            ran = 0
            while not self._stopping and (timer := self._pop_due(target)) is not None:
                self._clock.reach(timer.due)
                await self._run(timer, target)
                ran += 1
            self._clock.reach(target)
            self._alarm_due = None  # the clock moved: the alarm's real time is stale
            self._rearm_soon()
            return ran

    # --- inside ------------------------------------------------------------------------------------

    def _add(self, timer: _Timer) -> None:
        old = self._timers.get(timer.key)
        if old is not None:
            old.cancelled = True
        self._timers[timer.key] = timer
        heapq.heappush(self._heap, timer)
        if self._alarm_due is None or timer.due < self._alarm_due:
            self._rearm_soon()

    def add_from(self, source: Source) -> None:
        """Add the timers `source` derives now (a lease taken over derives its duty's again)."""
        for when, key, job in source():
            self.at(when, key, job)

    def _all_due(self, horizon: float) -> list[_Timer]:
        due = []
        while (timer := self._pop_due(horizon)) is not None:
            due.append(timer)
        return due

    def _pop_due(self, horizon: float) -> _Timer | None:
        heap = self._heap
        while heap and heap[0].cancelled:
            heapq.heappop(heap)
        if not heap or heap[0].due > horizon:
            return None
        timer = heapq.heappop(heap)
        if timer.every is None:
            del self._timers[timer.key]
        return timer

    async def _run(self, timer: _Timer, horizon: float) -> None:
        if timer.every is not None:
            following = timer.due + timer.every
            if following <= horizon:
                following = max(following, timer.due + (horizon - timer.due) // timer.every * timer.every)
            timer.due, timer.order = following, next(self._order)
            heapq.heappush(self._heap, timer)
        try:
            await timer.job()
        except Exception:
            log.exception("scheduled job %s failed", timer.key)
        self._rearm_soon()

    def _rearm_soon(self) -> None:
        """Set the alarm once per turn of the loop, however many timers were added in it."""
        if self._rearm_pending or self._clock.is_virtual:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._rearm_pending = True
        loop.call_soon(self._rearm)

    def _rearm(self) -> None:
        self._rearm_pending = False
        if self._clock.is_virtual or not self._aps.running or self._running.locked():
            return  # a run under way sets the alarm again when it ends
        while self._heap and self._heap[0].cancelled:
            heapq.heappop(self._heap)
        due = self._heap[0].due if self._heap else None
        if due == self._alarm_due:
            return
        self._alarm_due = due
        if due is None:
            if self._aps.get_job(ALARM) is not None:
                self._aps.remove_job(ALARM)
            return
        real = datetime.fromtimestamp(min(max(due - self._clock.offset, 0), LATEST), UTC)
        self._aps.add_job(self._on_alarm, "date", run_date=real, id=ALARM, replace_existing=True,
                          misfire_grace_time=None, max_instances=2)  # fmt: skip

    async def _on_alarm(self) -> None:
        """The alarm rang. It may be set again (and ring) while this run is still finishing: the second
        instance waits for the run's lock, so an alarm is never skipped and no timer waits for ever."""
        self._alarm_due = None
        if self._aps.running:
            run = asyncio.ensure_future(self._alarm_run())
            self._alarm_runs.add(run)
            run.add_done_callback(self._alarm_runs.discard)
            # APScheduler's shutdown cancels this job: its run goes on to its end (`stop` waits for it), and
            # the job ends quietly rather than as a failure
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(run)

    async def _alarm_run(self) -> None:
        await self.run_due()
        self._rearm()
