"""The call engine: the simulator that drives live calls in clock time, and what the handlers use.

The simulator keeps one timer per live call (`call:<id>`) at the due time of its next step, read
from the live-calls projection. It is set in one place: after every commit that changed a call
(`follow_commit`, a follower of the log's commits, which runs before the commit's callers are
answered and after the in-memory projections), whoever recorded it (a request, a step). When the
timer falls due the step is taken in a decision on the call's folded stream, which records nothing
when the call has moved on. Timers are derived from the live calls at every start, so a call that
was live when the server stopped goes on where it was: a step that fell due meanwhile is taken at
once, at the clock time of the start. Moving the clock runs every due step of every call in order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..clock import Clock
from ..config import Simulator
from ..domain.calls import rules
from ..domain.calls.call import Call, Plan, stream_of
from ..domain.calls.simulation import draw_plan, next_step
from ..domain.events.calls import CallEvent, CallPlaced
from ..eventlog import EventLog, Metadata, RecordedEvent
from ..reactors.scheduler import Job, Timers
from . import commands, placing
from .decisions import Command, Engine
from .destinations import Planner
from .live import LiveCalls
from .parties import Registrations

SIMULATOR = Metadata(source="simulator")


class CallSimulator:
    """The timers of the live calls' next steps, and the steps they take."""

    def __init__(self, live: LiveCalls, engine: Engine, event_log: EventLog, scheduler: Timers,
                 clock: Clock) -> None:  # fmt: skip
        self._live = live
        self.engine = engine
        self._log = event_log
        self._scheduler = scheduler
        self._clock = clock

    async def follow_commit(self, events: list[RecordedEvent], head: int) -> None:
        """After a commit: the timer of every call it changed follows the call."""
        for call_id in dict.fromkeys(e.event.id for e in events if isinstance(e.event, CallEvent)):
            self.follow(call_id)

    def follow(self, call_id: int) -> None:
        """Set (or drop) the timer of a call's next step, from its live state."""
        key = _key(call_id)
        call = self._live.calls.get(call_id)
        step = next_step(call) if call is not None else None
        if step is None:
            self._scheduler.cancel(key)
        elif self._scheduler.due(key) != step.due:
            self._scheduler.at(step.due, key, self._job(call_id))

    def timers(self) -> Iterator[tuple[float, str, Job]]:
        """The timer of every live call's next step, derived from the live calls at every start."""
        for call in self._live.calls.values():
            if (step := next_step(call)) is not None:
                yield step.due, _key(call.id), self._job(call.id)

    def _job(self, call_id: int) -> Job:
        async def take_step() -> None:
            recorded = []
            try:
                recorded = await self._log.transact(commands.step(call_id, self._clock.time, self.engine), SIMULATOR)
            finally:
                if not recorded:  # nothing recorded (moved on, or it failed): the timer follows the call as it is
                    self.follow(call_id)

        return take_step


def planner(settings: Simulator) -> Planner:
    """The simulator's plan of a call, drawn from the settings (an outcome forced when one is known)."""

    def plan(call_id: int, number: str | None, outcome: str | None, ring: int = 0) -> Plan:
        return draw_plan(settings, call_id, number, outcome=outcome, ring=ring)

    return plan


def _key(call_id: int) -> str:
    return f"call:{call_id}"


@dataclass
class Calls:
    """What the calls handlers use: the live calls, the simulator, the log and the clock."""

    settings: Simulator
    live: LiveCalls
    simulator: CallSimulator
    event_log: EventLog
    clock: Clock
    registrations: Registrations

    async def place(self, placed: placing.Placing, meta: Metadata) -> Call:
        decision = placing.place(placed, self.simulator.engine, self.clock.time, self.settings.webcalls_per_minute)
        await self.event_log.transact(decision, meta)
        return decision.result

    async def place_inbound(self, inbound: placing.Inbound, meta: Metadata) -> Call:
        decision = placing.place_inbound(inbound, self.simulator.engine, self.clock.time)
        await self.event_log.transact(decision, meta)
        return decision.result

    async def press(self, call_id: int, keys: str, meta: Metadata) -> Call:
        """The caller's keys: the answer is the call it goes on in (a new one once an IVR answered)."""
        decision = commands.press(call_id, keys, self.simulator.engine, self.clock.time)
        await self.event_log.transact(decision, meta)
        return decision.result

    async def by_client(self, call_id: int, contact: str, outcome: str, meta: Metadata) -> Call | None:
        """What a real SIP client rung for a call does (`commands.by_client`): the call after it, or None."""
        decision = commands.by_client(call_id, contact, outcome, self.clock.time, self.simulator.engine)
        await self.event_log.transact(decision, meta)
        return decision.result

    async def control(self, call_id: int, customer_id: int, command: Command, meta: Metadata,
                      transfer: commands.Transfer | None = None) -> tuple[Call, Call | None]:  # fmt: skip
        """Run a command (and a transfer) on a live call: the call after it, and a transfer's child."""
        decision = commands.control(call_id, customer_id, command, self.clock.time, self.simulator.engine, transfer)
        await self.event_log.transact(decision, meta)
        return decision.result

    async def hang_up(self, call_id: int, customer_id: int, user_id: int, meta: Metadata) -> None:
        """The user hangs up a customer's live call (`DELETE /calls/{id}`, a softphone's CANCEL or BYE),
        as its own side when it is a party of the call."""
        await self.control(call_id, customer_id, rules.hang_up_for(user_id), meta)

    async def events(self, call_id: int, customer_id: int) -> list[RecordedEvent] | None:
        """A customer's call's events, live or ended; None for anyone else's."""
        recorded = await self.event_log.read_stream(stream_of(call_id))
        placed = recorded[0].event if recorded else None
        if not isinstance(placed, CallPlaced) or placed.customer_id != customer_id:
            return None
        return recorded

    async def known(self, call_id: int, customer_id: int) -> bool:
        return self.live.get(call_id, customer_id) is not None or await self.events(call_id, customer_id) is not None
