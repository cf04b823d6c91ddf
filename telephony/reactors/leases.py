"""Work that must happen once across processes: a lease per duty, and the duty's timers run only by its holder.

A duty (a reactor, the simulator's steps, token expiry...) has a lease named after it. Every process
follows the log and keeps its projections and its timers; only the lease's holder acts: its
reactor runs, its timers' jobs run (the others' are passed over). When the holder dies another
process takes the lease, derives the duty's timers again from its projections, runs what is due
and resumes the duty's reactor from its tracking position. A step taken twice is ruled out by the
log, not by the lease: each step is a decision folded under the commit lock and appended at the
version it was folded at, and a reaction moves its tracking position with the version it expects.

One process on SQLite holds every lease from its start (`LocalLease`), and nothing is gated: its
owners' timers and hooks are the scheduler's as they were. A PostgreSQL log's leases are advisory
locks (`eventlog.pg_lease`), which can be lost while their process lives (the server restarted, the
session killed): the duty then stops acting at once (its timers' jobs are passed over, its reactor
stands by), `lease <name> lost` is logged, and the process waits for the lease again, taking it over
as any waiting process would (`Duty.keep`, and the reactor's runner).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from .scheduler import Job, Scheduler, Source

log = logging.getLogger(__name__)


class Lease(Protocol):
    """One holder at a time of the lease `name`: this process once `acquire` returned, until `release`."""

    @property
    def name(self) -> str: ...

    @property
    def held(self) -> bool: ...

    async def acquire(self) -> None: ...

    async def try_acquire(self) -> bool: ...

    async def release(self) -> None: ...

    async def lost(self) -> None:
        """Return once the lease, held, is lost while this process lives (at once when it is not held)."""
        ...


TRY_AGAIN = 1.0
"""Real seconds between two tries at a lease whose database could not be reached."""


class LocalLease:
    """A lease nobody else can want: the only process on its log holds it as soon as it asks."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._held = False

    @property
    def held(self) -> bool:
        return self._held

    async def acquire(self) -> None:
        self._held = True

    async def try_acquire(self) -> bool:
        self._held = True
        return True

    async def release(self) -> None:
        self._held = False

    async def lost(self) -> None:
        if self._held:
            await asyncio.get_running_loop().create_future()  # never: nobody else can want it


async def while_held(lease: Lease, work: Callable[[], Awaitable[object]]) -> None:
    """Run `work` until the lease is lost (then cancel it and return), or until cancelled (cancel it too)."""
    acting, lost = asyncio.ensure_future(work()), asyncio.ensure_future(lease.lost())
    try:
        await asyncio.wait((acting, lost), return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (acting, lost):
            task.cancel()
        await asyncio.gather(acting, lost, return_exceptions=True)
    if acting.done() and not acting.cancelled() and (exc := acting.exception()) is not None:
        raise exc


class Duty:
    """One lease and what it gates (`gated`: it can be lost or held elsewhere): timers on the app's
    scheduler, hooks, and what runs when it is taken. A reactor's runner uses it as its lease."""

    def __init__(self, lease: Lease, scheduler: Scheduler, gated: bool) -> None:
        self.lease = lease
        self._scheduler = scheduler
        self._gates = gated
        self._sources: list[Source] = []
        self._on_taken: list[Callable[[], Awaitable[object]]] = []
        self._taking: asyncio.Future[None] | None = None

    @property
    def name(self) -> str:
        return self.lease.name

    @property
    def held(self) -> bool:
        return self.lease.held

    async def acquire(self) -> None:
        """Wait for the lease; whoever else waits for it in this process waits for the same taking (a
        database out of reach is tried again)."""
        if self._taking is None or self._taking.cancelled() or (self._taking.done() and not self.held):
            self._taking = asyncio.ensure_future(self._take())
        await asyncio.shield(self._taking)

    async def _take(self) -> None:
        while True:
            try:
                return await self.lease.acquire()
            except Exception as exc:
                log.warning("lease %s: %s; trying again in %.0fs", self.name, exc, TRY_AGAIN)
                await asyncio.sleep(TRY_AGAIN)

    async def lost(self) -> None:
        await self.lease.lost()

    async def try_acquire(self) -> bool:
        """Take the lease if it is free; False while this process already waits for it (held elsewhere)."""
        if self.held:
            return True
        return (self._taking is None or self._taking.done()) and await self.lease.try_acquire()

    async def release(self) -> None:
        if self._taking is not None:
            self._taking.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._taking
        await self.lease.release()

    def at(self, when: float, key: str, job: Job) -> None:
        self._scheduler.at(when, key, self._gated(job))

    def cancel(self, key: str) -> bool:
        return self._scheduler.cancel(key)

    def due(self, key: str) -> float | None:
        return self._scheduler.due(key)

    def now(self) -> float:
        return self._scheduler.now()

    def derive(self, source: Source) -> None:
        """`source`'s timers, gated, on the scheduler at every start and again when the lease is taken."""
        gated = self._gated_source(source) if self._gates else source
        self._sources.append(gated)
        self._scheduler.derive(gated)

    def when_taken(self, start: Callable[[], Awaitable[object]]) -> None:
        """Run `start` each time this process takes the lease (after the timers are derived again)."""
        self._on_taken.append(start)

    def gate(self, hook: Callable[..., None]) -> Callable[..., None]:
        """`hook` called only while the lease is held (a change hook that may act at once)."""
        if not self._gates:
            return hook

        def if_held(*args: object) -> None:
            if self.lease.held:
                hook(*args)

        return if_held

    async def started(self) -> None:
        """At start, with the lease held: what waits for it (the scheduler has derived the timers)."""
        for start in self._on_taken:
            await start()

    async def take_over(self) -> None:
        """Wait for the lease; then derive the timers again, run what waits for the lease and what the
        last holder left due."""
        await self.acquire()
        log.info("lease %s taken over", self.name)
        for source in self._sources:
            self._scheduler.add_from(source)
        await self.started()
        await self._scheduler.run_due()

    async def keep(self) -> None:
        """Hold the lease for good: wait for it while another holds it, and again once it is lost (its
        jobs are passed over from that moment; the lease says so)."""
        while True:
            if not self.held:
                await self.take_over()
            await self.lost()

    def _gated(self, job: Job) -> Job:
        if not self._gates:
            return job

        async def run_if_held() -> object:
            return await job() if self.lease.held else None

        return run_if_held

    def _gated_source(self, source: Source) -> Source:
        def gated() -> list[tuple[float, str, Job]]:
            return [(when, key, self._gated(job)) for when, key, job in source()]

        return gated


class Duties:
    """The duties of one app by name, each with its lease from `lease_of` (None: local leases, nothing
    gated); taken together, given up together."""

    def __init__(self, scheduler: Scheduler, lease_of: Callable[[str], Lease] | None = None) -> None:
        self._lease_of: Callable[[str], Lease] = lease_of or LocalLease
        self._gated = lease_of is not None
        self._scheduler = scheduler
        self._duties: dict[str, Duty] = {}
        self._tasks: list[asyncio.Task[None]] = []

    def __getitem__(self, name: str) -> Duty:
        if name not in self._duties:
            self._duties[name] = Duty(self._lease_of(name), self._scheduler, self._gated)
        return self._duties[name]

    @property
    def held(self) -> list[str]:
        return sorted(name for name, duty in self._duties.items() if duty.held)

    async def start(self) -> None:
        """Take every lease that is free (a local lease always is), start the scheduler, run what waits
        for the leases held; then keep the leases in the background (`Duty.keep`): wait for the others
        until their holder dies or lets go, and for any that is lost."""
        for duty in self._duties.values():
            await duty.try_acquire()
        self._scheduler.start()
        for duty in self._duties.values():
            if duty.held:
                await duty.started()
        if self._gated:
            loop = asyncio.get_running_loop()
            self._tasks = [loop.create_task(duty.keep(), name=f"lease-{duty.name}") for duty in self._duties.values()]

    async def release(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for duty in self._duties.values():
            with contextlib.suppress(Exception):
                await duty.release()
