"""The reactor contract: follow the log from a durable position, react, append what follows.

A reactor (the call simulator, the webhook dispatcher, report runs, invoice closing, mail) reacts
to the events of the types it `handles`. `react(event)` does any outside effect first and returns
what to append: new events, or a decision run inside the writer's transaction that returns them,
or nothing. The runner appends them together with the reactor's new tracking position in one
transaction, so each reaction lands on the log exactly once; outside effects happen at least once
(a crash between the effect and the commit repeats it), so they carry an idempotency id (the
event's position or id).

A runner catches up from its position in chunks read off the writer's thread, then waits for new
commits. The appends of a chunk's reactions go to the writer together, so `react` may see the next
event before the previous reaction is committed: a reaction that decides from state returns a
decision (run in the transaction, after the earlier ones), or the reactor sets `serial` so each
reaction is committed before the next event.

A reaction that raises is logged and retried with exponential backoff on the clock (a moved clock
retries at once); health shows it (the error's class only). Positions that needed no reaction are
recorded lazily (`RECORD_EVERY`, and at stop). Across processes a reactor runs where its lease is
held (`leases`); elsewhere (or once lost) it stands by; whoever takes the lease resumes from its position.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol

from ..clock import Clock, wire_time
from ..domain.events import Event, tags_of
from ..eventlog.connection import Connection
from ..eventlog.records import Metadata, NewEvent, RecordedEvent
from . import tracking
from .leases import Lease, LocalLease, while_held

log = logging.getLogger(__name__)
Decide = Callable[[Connection], Sequence[NewEvent]]
Reaction = Sequence[NewEvent] | Decide | None
RECORD_EVERY = 1000
"""Positions a runner may move past, reacting to nothing, before it records where it is."""
FAILING = ("failing", "failed")


class Reactor:
    """Subclasses set `name` (stable: it keys the tracking position) and `handles` (the event classes;
    None: every type), and implement `react`. `from_beginning` reactors react to the whole log when first
    seen; the others start at its head (a new webhook dispatcher does not replay last year). `lease`: its
    lease's name, when a duty must run in its process (default `name`; `runners` gives the leases)."""

    name: ClassVar[str]
    handles: ClassVar[frozenset[type[Event]] | None] = None
    from_beginning: ClassVar[bool] = False
    serial: ClassVar[bool] = False
    lease: ClassVar[str | None] = None

    async def react(self, event: RecordedEvent) -> Reaction:
        raise NotImplementedError


class Log(Protocol):
    """What a runner needs of the event log."""

    @property
    def position(self) -> int: ...

    def chunks(self, after: int = 0, *, until: int | None = None, types: Sequence[str] | None = None,
               size: int = ...): ...  # fmt: skip

    async def transact(self, decide: Decide, meta: Metadata | None = None) -> list[RecordedEvent]: ...

    async def query(self, work: Callable[[Connection], object]) -> object: ...

    async def wait_beyond(self, position: int) -> None: ...


@dataclass
class Backoff:
    first: float = 1.0
    longest: float = 300.0

    def delay(self, failures: int) -> float:
        return min(self.longest, self.first * 2 ** max(0, failures - 1))


class ReactorRunner:
    """One reactor's task: its position, its state, its failures."""

    def __init__(self, reactor: Reactor, event_log: Log, clock: Clock, *, chunk: int = 500,
                 backoff: Backoff | None = None, lease: Lease | None = None) -> None:  # fmt: skip
        self.reactor, self._lease = reactor, lease or LocalLease(reactor.name)
        self._log, self._clock, self._chunk, self._backoff = event_log, clock, chunk, backoff or Backoff()
        tags = tags_of(reactor.handles)
        self._types = sorted(tags) if tags is not None else None
        self._meta = Metadata(source=f"reactor:{reactor.name}")
        self._position, self._resumed, self._moved = 0, False, asyncio.Event()
        self._start = 0  # where the reactor starts when it is seen the first time (0, or the head when it ran)
        self._recorded = 0  # the position last recorded on the log (with the events of a reaction, or alone)
        self._queued = 0  # the position the last queued append will record
        self._inflight: list[tuple[int, asyncio.Future[list[RecordedEvent]]]] = []
        self.state, self.failures = "starting", 0
        self.last_error: str | None = None
        self.retry_at: float | None = None

    @property
    def name(self) -> str:
        return self.reactor.name

    @property
    def position(self) -> int:
        """The last position the reactor has dealt with (recorded on the log or not yet)."""
        return self._position

    @position.setter
    def position(self, value: int) -> None:
        self._position = value
        self.moved()

    def moved(self) -> None:
        """Wake whoever waits for the reactor: its position or its state changed."""
        moved, self._moved = self._moved, asyncio.Event()
        moved.set()

    async def reached(self, position: int) -> None:
        """Return once the reactor has dealt with every event up to `position`."""
        while self._position < position:
            await self._moved.wait()

    async def settled(self, position: int) -> None:
        """Return once the reactor has dealt with every event up to `position`, or is failing (it retries
        on its own schedule) or standing by (another process acts): nobody should wait for those."""
        while self._position < position and self.state not in (*FAILING, "standby"):
            await self._moved.wait()

    def health(self) -> dict[str, object]:
        retry = wire_time(self.retry_at) if self.retry_at is not None else None
        return {"state": self.state, "position": self.position, "failures": self.failures,
                "last_error": self.last_error, "retry_at": retry}  # fmt: skip

    async def run(self) -> None:
        """Follow the log while the lease is held; stand by while it is not (lost: resume when taken)."""
        while True:
            if not self._lease.held:
                await self._take_lease()
            self._start = 0 if self.reactor.from_beginning else self._log.position
            await while_held(self._lease, self._follow)
            self._resumed = False  # lost: the next taking reads the recorded position again

    async def _take_lease(self) -> None:
        """At start, take the lease at once when it is free: meanwhile the reactor is still starting, and
        a settled clock move waits for it. Held elsewhere (or out of reach), or lost (another process
        takes it over), stand by until it is taken."""
        if self.state == "starting":
            with contextlib.suppress(Exception):  # out of reach: `acquire` tries again
                if await self._lease.try_acquire():
                    return
        self.state = "standby"
        self.moved()
        await self._lease.acquire()

    async def _follow(self) -> None:
        while True:
            try:
                if not self._resumed:
                    await self._resume()
                self.state = "catching up"
                await self._catch_up()
                self.state, self.failures, self.last_error, self.retry_at = "following", 0, None, None
                await self._log.wait_beyond(self.position)
            except asyncio.CancelledError:
                raise
            except tracking.TrackingMoved as moved:
                log.warning("reactor %s: %s; resuming from there", self.name, moved)
                self._resumed = False
            except Exception as exc:
                await self._abandon()
                await self._failed(exc)

    async def stop(self) -> None:
        """Record how far the reactor got, after its task was cancelled (an append under way at that
        moment may have landed: the recorded position is read again first)."""
        if not self._resumed:
            return  # it never learnt where it was: nothing to record
        dealt = self.position
        await self._resume()
        if dealt > self._recorded:
            self._send(dealt, None)
            await self._drain(dealt)

    async def _resume(self) -> None:
        """Read the recorded position (recording the start for a reactor seen the first time)."""
        name, start = self.name, self._start
        recorded: int = await self._log.query(lambda conn: tracking.position(conn, name, default=start))  # type: ignore[assignment]
        self._inflight.clear()
        self.position = self._recorded = self._queued = recorded
        self._resumed = True

    async def _catch_up(self) -> None:
        """React to the tail in chunks; the appends of a chunk's reactions go to the writer together
        (each in its own savepoint, in order), so catching up costs few commits."""
        head = self._log.position
        async for chunk in self._log.chunks(self.position, until=head, types=self._types, size=self._chunk):
            for event in chunk:
                reaction = await self.reactor.react(event)
                if reaction:
                    self._send(event.position, reaction)
                    if self.reactor.serial:
                        await self._drain(event.position)
            await self._drain(chunk[-1].position)
        if head - self._recorded >= RECORD_EVERY:
            self._send(head, None)
        await self._drain(max(self.position, head))

    def _send(self, position: int, reaction: Reaction) -> None:
        """Queue the reaction's events and the tracking position's move to it, as one transaction."""
        name, expected, self._queued = self.name, self._queued, position

        def decide(conn: Connection) -> Sequence[NewEvent]:
            tracking.advance(conn, name, expected, position)
            return reaction(conn) if callable(reaction) else list(reaction or ())

        self._inflight.append((position, asyncio.ensure_future(self._log.transact(decide, self._meta))))

    async def _drain(self, dealt: int) -> None:
        """Wait for the queued appends; then every event up to `dealt` is dealt with. The first
        failure is raised (the appends queued after it fail too: their expected position never came)."""
        inflight, self._inflight = self._inflight, []
        results = await asyncio.gather(*(append for _, append in inflight), return_exceptions=True)
        for (position, _), result in zip(inflight, results, strict=True):
            if isinstance(result, BaseException):
                raise result
            self._recorded = position
        self.position = dealt

    async def _abandon(self) -> None:
        """After a failure: let the queued appends finish, keep what landed, resume after it."""
        with contextlib.suppress(Exception):
            await self._drain(self._recorded)
        self._queued = self.position = self._recorded

    async def _failed(self, exc: Exception) -> None:
        self.failures += 1
        delay = self._backoff.delay(self.failures)
        self.state, self.last_error = "failing", type(exc).__name__  # health is open: details go to the log only
        self.retry_at = self._clock.time() + delay
        self.moved()
        log.exception("reactor %s failed after position %s; retrying in %.1fs", self.name, self.position, delay)
        await self._clock.wait_until(self.retry_at)
