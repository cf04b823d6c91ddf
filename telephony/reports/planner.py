"""Report schedules run for real: each active schedule is a timer on the app's scheduler at its next
run (`domain.reports.next_run`), drawn from the schedule itself, never stored anywhere else.

At start, every schedule's next run after its last one is planned; one that fell due while the
server was down runs once, at once, and says so (`missed`), then the schedule goes on from the
start's time. A change of a schedule (created, changed, paused, deleted) plans it again, through a
reactor that also keeps the schedule's `next_run_at`. A run plans the next after it; a run that
fails (nothing of it is stored) is tried again `RETRY_AFTER` seconds later, and after the last try
the schedule goes on to its next run.
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec

from ..clock import Clock, wire_epoch, wire_time
from ..documents import reads
from ..documents.listing import ReadStore
from ..domain.events.accounts import CustomerDeleted
from ..domain.events.resources import ResourceCleared, ResourceCreated, ResourceDeleted, ResourceUpdated
from ..domain.reports import active, next_run
from ..eventlog import EventLog, Metadata, NewEvent, RecordedEvent
from ..mail import Mailer
from ..reactors.reactor import Reaction, Reactor
from ..reactors.scheduler import Job, Timers
from .runs import KIND, SCHEDULE, ran

SCHEDULED = Metadata(source="reports")
LEASE = "report-runs"
"""The lease of the report runs' timers and of the planner that sets them: they run in one process."""
RETRY_AFTER = (60.0, 300.0, 900.0, 3600.0)
log = logging.getLogger(__name__)


class ReportRuns:
    """The timers of report schedules."""

    def __init__(self, event_log: EventLog, reader: ReadStore, scheduler: Timers, clock: Clock, mailer: Mailer) -> None:
        self._log = event_log
        self._reader = reader
        self._scheduler = scheduler
        self._clock = clock
        self._mailer = mailer
        self._planned: dict[int, int] = {}
        """Schedule id -> its customer, for the schedules with a timer."""

    async def start(self) -> None:
        """Plan every schedule; run once what fell due while the server was down."""
        found = await self._log.query(lambda conn: list(reads.every(conn, KIND)))
        for customer_id, body in found:
            schedule = msgspec.json.decode(body)
            after = (
                wire_epoch(schedule.get("last_run_at")) or wire_epoch(schedule.get("created_at")) or self._clock.time()
            )
            self.plan(customer_id, schedule, after, catch_up=True)

    def plan(self, customer_id: int, schedule: dict[str, Any], after: float | None = None,
             catch_up: bool = False) -> float | None:  # fmt: skip
        """Set the schedule's timer at its next run after `after` (now when not given); None: no run."""
        key, now = _key(schedule["id"]), self._clock.time()
        due = next_run(schedule, now if after is None else after) if active(schedule) else None
        if due is None:
            self._scheduler.cancel(key)
            self._planned.pop(schedule["id"], None)
            return None
        missed = catch_up and due <= now
        self._scheduler.at(now if missed else due, key, self._job(customer_id, schedule["id"], due, missed))
        self._planned[schedule["id"]] = customer_id
        return due

    def drop(self, schedule_id: int) -> None:
        self._scheduler.cancel(_key(schedule_id))
        self._planned.pop(schedule_id, None)

    def drop_customer(self, customer_id: int) -> None:
        for schedule_id in [s for s, c in self._planned.items() if c == customer_id]:
            self.drop(schedule_id)

    def _job(self, customer_id: int, schedule_id: int, due: float, missed: bool, tries: int = 0) -> Job:
        async def run() -> None:
            decision = ran(customer_id, schedule_id, due, missed, self._clock.time, self._mailer.message)
            try:
                await self._log.transact(decision, SCHEDULED)
            except Exception:
                log.exception("report schedule %s: the run due at %s failed (try %d)", schedule_id, due, tries + 1)
                await self._after_failure(customer_id, schedule_id, due, missed, tries)
                return
            if decision.result is not None:
                self.plan(customer_id, decision.result)

        return run

    async def _after_failure(self, customer_id: int, schedule_id: int, due: float, missed: bool, tries: int) -> None:
        """Try the run again later; after the last try, plan the schedule's next run after this one."""
        if tries < len(RETRY_AFTER):
            again = self._clock.time() + RETRY_AFTER[tries]
            self._scheduler.at(again, _key(schedule_id), self._job(customer_id, schedule_id, due, missed, tries + 1))
            return
        found = await self._log.query(lambda conn: reads.documents(conn, KIND, [schedule_id], customer_id))
        if schedule_id in found:
            self.plan(customer_id, found[schedule_id], after=due)


class ReportPlanner(Reactor):
    """Plans a schedule again when it changes, and keeps its `next_run_at`."""

    name = "report-planner"
    lease = LEASE
    handles = frozenset({*SCHEDULE.all, CustomerDeleted})

    def __init__(self, runs: ReportRuns, reader: ReadStore) -> None:
        self._runs = runs
        self._reader = reader

    async def react(self, event: RecordedEvent) -> Reaction:
        match event.event:
            case CustomerDeleted(id=customer_id) | ResourceCleared(customer_id=customer_id):
                self._runs.drop_customer(customer_id)
            case (
                ResourceCreated(id=schedule_id) | ResourceUpdated(id=schedule_id) | ResourceDeleted(id=schedule_id)
            ) if isinstance(schedule_id, int):
                return await self._planned(schedule_id)
        return None

    async def _planned(self, schedule_id: int) -> Reaction:
        """The schedule planned again as it is now, and its `next_run_at` when that moved."""
        owner = await reads.owned_by(self._reader, KIND, schedule_id)
        if owner is None:
            self._runs.drop(schedule_id)
            return None
        customer_id, schedule = owner[0], msgspec.json.decode(owner[1])
        due = self._runs.plan(customer_id, schedule)
        shown = wire_time(due) if due is not None else None
        if schedule.get("next_run_at") == shown:
            return None
        return [NewEvent(stream=f"{KIND}-{schedule_id}",
                         event=SCHEDULE.updated(id=schedule_id, changes={"next_run_at": shown}))]  # fmt: skip


def _key(schedule_id: int) -> str:
    return f"report:{schedule_id}"
