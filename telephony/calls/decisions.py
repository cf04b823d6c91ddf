"""What call decisions share: the engine they use beside the transaction, a call folded from its
stream, and the events a decision records on a call's stream.

Each decision (`placing`, `commands`) is a function the writer runs inside its transaction: the call
is folded from its stream there, so commands from the API and steps of the simulator are taken one
after another on the state as it is. The rules' events are recorded by `on_stream`, which adds what
only the transaction knows: the tariffs of a call's chargeable legs, how long the balance pays for
it, and its ending's records and price (`records.ended`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import msgspec

from ..domain.billing import Leg
from ..domain.calls.call import Call, stream_of
from ..domain.calls.fold import evolve, fold
from ..domain.calls.rules import existing
from ..domain.events.calls import CallAnswered, CallEnded, CallEvent, CallPlaced, CallRouted, Price
from ..eventlog import NewEvent, store
from . import records
from .destinations import Floor, Planner
from .parties import charged_legs

FIRST_CALL_ID = 1
Command = Callable[[Call, float], list[CallEvent]]
"""The events of a command on a call at a clock time."""
Now = Callable[[], float]
"""The clock, read inside the transaction: a call's events never go back in time."""


class Pricing(Protocol):
    """What calls cost (`billing`): asked inside the transaction."""

    def price(self, conn: sqlite3.Connection, customer_id: int, legs: Sequence[Leg], at: float
              ) -> tuple[Price, list[NewEvent]]: ...  # fmt: skip

    def payable(self, conn: sqlite3.Connection, customer_id: int, legs: Sequence[Leg]) -> None: ...

    def paid_seconds(self, conn: sqlite3.Connection, customer_id: int, legs: Sequence[Leg]) -> float | None: ...

    def tariffs(self, conn: sqlite3.Connection, customer_id: int, legs: Sequence[Leg]) -> dict[str, dict[str, str]]: ...


@dataclass(frozen=True)
class Engine:
    """What call decisions use beside the transaction: the simulator's planner, the floor, the prices."""

    planner: Planner
    floor: Floor
    pricing: Pricing


def folded(conn: sqlite3.Connection, call_id: int) -> Call:
    """A call as its stream has it now (ended or not)."""
    return fold(call_id, store.stream_events(conn, stream_of(call_id)))  # type: ignore[arg-type]


def call_of(conn: sqlite3.Connection, call_id: int, customer_id: int | None = None) -> Call:
    """A live call (of `customer_id`, when given), folded from its stream: 404 once it ended."""
    return existing(folded(conn, call_id), customer_id)


def on_stream(conn: sqlite3.Connection, call: Call, events: list[CallEvent], engine: Engine
              ) -> tuple[list[NewEvent], Call]:  # fmt: skip
    """The events to record on the call's stream, at the version it was folded at: a placed or routed
    call with the tariffs of its chargeable legs, an answer that connects the call with how long the
    balance pays for it, an ending with its records and price (and the events charging the
    customer); and the call after them."""
    recorded: list[NewEvent] = []
    for event in events:
        charges: list[NewEvent] = []
        match event:
            case CallEnded():
                event, charges = records.ended(conn, call, event, engine.pricing)
            case CallAnswered():
                event = _paid(conn, call, event, engine)
            case CallPlaced() | CallRouted():
                event = _tariffed(conn, call, event, engine)
        recorded.append(NewEvent(stream=stream_of(call.id), event=event, expected_version=call.version))
        recorded.extend(charges)
        call = evolve(call, event)
    return recorded, call


def _tariffed(conn: sqlite3.Connection, call: Call, event: CallPlaced | CallRouted, engine: Engine
              ) -> CallPlaced | CallRouted:  # fmt: skip
    """A call that reaches a destination records the tariffs of its chargeable legs (when it has any)."""
    reached = evolve(call, event)
    tariffs = engine.pricing.tariffs(conn, reached.customer_id, charged_legs(reached))
    return msgspec.structs.replace(event, tariffs=tariffs) if tariffs else event


def _paid(conn: sqlite3.Connection, call: Call, event: CallAnswered, engine: Engine) -> CallAnswered:
    """An answer that connects a chargeable call says until when the balance pays for it (enforced);
    one on a call already connected (an agent answering a queue's caller) leaves that as it was."""
    connected = evolve(call, event)
    if connected.connected_at is None or call.connected_at is not None:
        return event
    paid = engine.pricing.paid_seconds(conn, call.customer_id, charged_legs(connected))
    return event if paid is None else msgspec.structs.replace(event, paid_until=event.at + paid)
