"""The call engine: the simulator that drives live calls in clock time, and what the handlers use.

The simulator is a reactor: on every call event it sets the call's one timer (`call:<id>`) at the
due time of its next step, from the live-calls projection; when the timer falls due it takes the
step in a decision on the call's folded stream, which records nothing when the call has moved on.
Timers are derived from the live calls at every start, so a call that was live when the server
stopped goes on where it was: a step that fell due meanwhile is taken at once, at the clock time
of the start. A step's job also sets the following timer itself before it returns, so moving the
clock runs every due step of every call in time order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..clock import Clock
from ..config import Simulator
from ..domain import calls as rules
from ..domain.calls import Call, Plan
from ..domain.errors import Invalid
from ..eventlog import EventLog, Metadata, RecordedEvent
from ..reactors.reactor import Reaction, Reactor
from ..reactors.scheduler import Job, Scheduler
from . import decisions
from .destinations import Planner
from .live import LiveCalls
from .parties import Registrations

SIMULATOR = Metadata(source="simulator")
RATE_EXCEEDED = "Maximum per minute call rate exceeded"


class CallSimulator(Reactor):
    name = "call-simulator"
    handles = rules.CALL_TYPES

    def __init__(self, live: LiveCalls, engine: decisions.Engine, event_log: EventLog, scheduler: Scheduler,
                 clock: Clock) -> None:  # fmt: skip
        self._live = live
        self.engine = engine
        self._log = event_log
        self._scheduler = scheduler
        self._clock = clock

    async def react(self, event: RecordedEvent) -> Reaction:
        self.follow(event.data["id"])
        return None

    def follow(self, call_id: int) -> None:
        """Set (or drop) the timer of a call's next step, from its live state."""
        key = _key(call_id)
        call = self._live.calls.get(call_id)
        step = rules.next_step(call) if call is not None else None
        if step is None:
            self._scheduler.cancel(key)
        elif self._scheduler.due(key) != step.due:
            self._scheduler.at(step.due, key, self._job(call_id))

    def timers(self) -> Iterator[tuple[float, str, Job]]:
        """The timer of every live call's next step, derived from the live calls at every start."""
        for call in self._live.calls.values():
            if (step := rules.next_step(call)) is not None:
                yield step.due, _key(call.id), self._job(call.id)

    def _job(self, call_id: int) -> Job:
        async def take_step() -> None:
            step = decisions.step(call_id, self._clock.time, self.engine)
            try:
                await self._log.transact(step, SIMULATOR)
            finally:
                self.follow(call_id)  # the next step, or this one again when it could not be recorded
            if step.result is not None and step.result.id != call_id:
                self.follow(step.result.id)  # the new call an answered leg moved its caller to

        return take_step


def planner(settings: Simulator) -> Planner:
    """The simulator's plan of a call, drawn from the settings (an outcome forced when one is known)."""

    def plan(call_id: int, number: str | None, outcome: str | None) -> Plan:
        return rules.draw_plan(settings, call_id, number, outcome=outcome)

    return plan


def _key(call_id: int) -> str:
    return f"call:{call_id}"


@dataclass
class PerMinute:
    """At most `limit` starts per customer in any 60 seconds of clock time."""

    clock: Clock
    limit: int
    _starts: dict[int, deque[float]] = field(default_factory=dict)

    def take(self, customer_id: int) -> None:
        now = self.clock.time()
        starts = self._starts.setdefault(customer_id, deque())
        while starts and starts[0] <= now - 60:
            starts.popleft()
        if len(starts) >= self.limit:
            raise Invalid(RATE_EXCEEDED)
        starts.append(now)


@dataclass
class Calls:
    """What the calls handlers use: the live calls, the simulator, the log and the clock."""

    settings: Simulator
    live: LiveCalls
    simulator: CallSimulator
    event_log: EventLog
    clock: Clock
    webcalls: PerMinute
    registrations: Registrations

    async def place(self, placing: decisions.Placing, meta: Metadata) -> Call:
        decision = decisions.place(placing, self.simulator.engine, self.clock.time)
        await self.event_log.transact(decision, meta)
        self.simulator.follow(decision.result.id)
        return decision.result

    async def place_inbound(self, inbound: decisions.Inbound, meta: Metadata) -> Call:
        decision = decisions.place_inbound(inbound, self.simulator.engine, self.clock.time)
        await self.event_log.transact(decision, meta)
        self.simulator.follow(decision.result.id)
        return decision.result

    async def press(self, call_id: int, keys: str, meta: Metadata) -> Call:
        """The caller's keys: the answer is the call it goes on in (a new one once an IVR answered)."""
        decision = decisions.press(call_id, keys, self.simulator.engine, self.clock.time)
        await self.event_log.transact(decision, meta)
        self.simulator.follow(call_id)
        self.simulator.follow(decision.result.id)
        return decision.result

    async def control(self, call_id: int, customer_id: int, command: decisions.Command, meta: Metadata,
                      transfer: decisions.Transfer | None = None) -> tuple[Call, Call | None]:  # fmt: skip
        """Run a command (and a transfer) on a live call: the call after it, and a transfer's child."""
        decision = decisions.control(call_id, customer_id, command, self.clock.time, self.simulator.engine, transfer)
        await self.event_log.transact(decision, meta)
        after, child = decision.result
        self.simulator.follow(call_id)
        if child is not None:
            self.simulator.follow(child.id)
        return after, child

    async def events(self, call_id: int, customer_id: int) -> list[tuple[str, dict]] | None:
        """A customer's call's events as (type, data), live or ended; None for anyone else's."""
        recorded = await self.event_log.read_stream(rules.stream_of(call_id))
        if not recorded or recorded[0].data.get("customer_id") != customer_id:
            return None
        return [(event.type, event.data) for event in recorded]

    async def known(self, call_id: int, customer_id: int) -> bool:
        return self.live.get(call_id, customer_id) is not None or await self.events(call_id, customer_id) is not None
