"""Reactors for the contract tests, one of each kind, and a log to run them on."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from telephony.domain.events import EVENTS, Event
from telephony.eventlog import EventLog, NewEvent, RecordedEvent
from telephony.reactors.reactor import Reaction, Reactor

HAPPENED, ECHOED = "thing.happened", "thing.echoed"


class ThingHappened(Event, tag=HAPPENED):
    n: int


class ThingEchoed(Event, tag=ECHOED):
    of: int
    n: int


THINGS = EVENTS.with_types(ThingHappened, ThingEchoed)
"""The app's events and the contract tests' own."""


def happened(n: int) -> NewEvent:
    return NewEvent(stream=f"thing-{n % 5}", event=ThingHappened(n=n))


class Echo(Reactor):
    """A process reactor: appends one `thing.echoed` for each `thing.happened`."""

    name = "echo"
    handles = frozenset({ThingHappened})
    from_beginning = True

    def __init__(self) -> None:
        self.broken_at: int | None = None
        self.seen: list[int] = []

    async def react(self, event: RecordedEvent) -> Reaction:
        assert isinstance(event.event, ThingHappened)
        n = event.event.n
        if self.broken_at is not None and n >= self.broken_at:
            raise RuntimeError(f"cannot echo {n}")
        self.seen.append(event.position)
        return [NewEvent(stream="echoes", event=ThingEchoed(of=event.position, n=n))]


class DecidingEcho(Echo):
    """The same, deciding inside the writer's transaction (a reaction that reads state)."""

    name = "deciding-echo"

    async def react(self, event: RecordedEvent) -> Reaction:
        events = await super().react(event)

        def decide(conn: sqlite3.Connection) -> Sequence[NewEvent]:
            assert conn.execute("SELECT count(*) FROM events WHERE position = ?", (event.position,)).fetchone()[0]
            return events  # type: ignore[return-value]

        return decide


class Outside(Echo):
    """An outside-effect reactor: does something beyond the log (here, a list), then records it."""

    name = "outside"

    def __init__(self) -> None:
        super().__init__()
        self.delivered: list[int] = []

    async def react(self, event: RecordedEvent) -> Reaction:
        events = await super().react(event)
        self.delivered.append(event.position)  # the effect, at least once
        return events


KINDS = (Echo, DecidingEcho, Outside)


async def echoes(log: EventLog) -> list[int]:
    """The `n` of each event echoed, in log order."""
    return [e.event.n for e in await log.read(types=[ECHOED])]  # type: ignore[attr-defined]


async def happenings(log: EventLog) -> list[int]:
    """The positions of the events to echo."""
    return [e.position for e in await log.read(types=[HAPPENED])]
