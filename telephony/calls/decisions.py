"""What call decisions share: the engine they use beside the transaction, a call folded from its
stream, and the events a decision records on a call's stream.

Each decision (`placing`, `commands`) is a function the writer runs inside its transaction: the call
is folded from its stream there, so commands from the API and steps of the simulator are taken one
after another on the state as it is. The rules' events are recorded by `on_stream`, which adds what
only the transaction knows: the tariffs of a call's chargeable legs, how long the balance pays for
it, and its ending's records and price (`records.ended`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import msgspec

from ..domain.billing import Leg
from ..domain.calls.call import Call, Reached, stream_of
from ..domain.calls.fold import evolve, fold
from ..domain.calls.rules import CLIENT, existing
from ..domain.events.calls import CallAnswered, CallEnded, CallEvent, CallPlaced, CallRouted, Price
from ..domain.types import MAX_CALL_SECONDS
from ..eventlog import NewEvent, store
from ..eventlog.connection import Connection
from . import records
from .destinations import Floor, Planner
from .parties import Client, charged_legs

FIRST_CALL_ID = 1
Clients = Callable[[int], Client | None]
"""A user's real SIP client connected now that rings for it (a browser softphone), or None."""
Command = Callable[[Call, float], list[CallEvent]]
"""The events of a command on a call at a clock time."""
Now = Callable[[], float]
"""The clock, read inside the transaction: a call's events never go back in time."""


class Pricing(Protocol):
    """What calls cost (`billing`): asked inside the transaction."""

    def price(self, conn: Connection, customer_id: int, legs: Sequence[Leg], at: float
              ) -> tuple[Price, list[NewEvent]]: ...  # fmt: skip

    def payable(self, conn: Connection, customer_id: int, legs: Sequence[Leg]) -> None: ...

    def paid_seconds(self, conn: Connection, customer_id: int, legs: Sequence[Leg]) -> float | None: ...

    def tariffs(self, conn: Connection, customer_id: int, legs: Sequence[Leg]) -> dict[str, dict[str, str]]: ...


def no_clients(user_id: int) -> Client | None:
    return None


@dataclass(frozen=True)
class Engine:
    """What call decisions use beside the transaction: the simulator's planner, the floor, the prices,
    and the users' real SIP clients connected now."""

    planner: Planner
    floor: Floor
    pricing: Pricing
    clients: Clients = no_clients


def folded(conn: Connection, call_id: int) -> Call:
    """A call as its stream has it now (ended or not)."""
    return fold(call_id, store.stream_events(conn, stream_of(call_id)))  # type: ignore[arg-type]


def call_of(conn: Connection, call_id: int, customer_id: int | None = None) -> Call:
    """A live call (of `customer_id`, when given), folded from its stream: 404 once it ended."""
    return existing(folded(conn, call_id), customer_id)


def on_stream(conn: Connection, call: Call, events: list[CallEvent], engine: Engine
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


def at_client(reached: Reached, engine: Engine) -> Reached:
    """A user's own side reached while the user has a real SIP client connected rings that client:
    the side is the client's (its user agent and contact), and the client, not the simulator, answers
    or refuses it (the plan's `client` outcome, whatever the simulator drew; it talks until a side
    hangs up, a day at most)."""
    dst, plan = reached.dst, reached.plan
    user_side = dst.user_id is not None and dst.id == str(dst.user_id)  # not the user's voicemail
    if not user_side or (client := engine.clients(dst.user_id or 0)) is None:
        return reached
    at_client = msgspec.structs.replace(dst, ua=client.user_agent, contact=client.contact)
    answers = msgspec.structs.replace(plan, outcome=CLIENT, talk_seconds=float(MAX_CALL_SECONDS))
    return dataclasses.replace(reached, dst=at_client, plan=answers)


def _tariffed(conn: Connection, call: Call, event: CallPlaced | CallRouted, engine: Engine
              ) -> CallPlaced | CallRouted:  # fmt: skip
    """A call that reaches a destination records the tariffs of its chargeable legs (when it has any)."""
    reached = evolve(call, event)
    tariffs = engine.pricing.tariffs(conn, reached.customer_id, charged_legs(reached))
    return msgspec.structs.replace(event, tariffs=tariffs) if tariffs else event


def _paid(conn: Connection, call: Call, event: CallAnswered, engine: Engine) -> CallAnswered:
    """An answer that connects a chargeable call says until when the balance pays for it (enforced);
    one on a call already connected (an agent answering a queue's caller) leaves that as it was."""
    connected = evolve(call, event)
    if connected.connected_at is None or call.connected_at is not None:
        return event
    paid = engine.pricing.paid_seconds(conn, call.customer_id, charged_legs(connected))
    return event if paid is None else msgspec.structs.replace(event, paid_until=event.at + paid)
