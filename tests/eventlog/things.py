"""The event types of the event log's own tests, and the catalogue that reads them with the app's."""

from __future__ import annotations

from typing import Any

import msgspec

from telephony.domain.events import EVENTS, Event
from telephony.domain.events.resources import resource_events


class ThingHappened(Event, tag="thing.happened"):
    n: int = 0
    stream: str = ""


class ThingUndone(Event, tag="thing.undone"):
    n: int = 0
    stream: str = ""


class OtherThing(Event, tag="other.thing"):
    n: int = 0
    stream: str = ""


class Tick(Event, tag="thing.ticked"):
    n: int


class Made(Event):
    """Made of a kind (`a.made`, ...), with values whose JSON form differs from what was written."""

    n: int
    xs: list[Any] = msgspec.field(default_factory=list)
    pair: tuple[str, int] | None = None
    extra: dict[str, Any] = msgspec.field(default_factory=dict)


class AMade(Made, tag="a.made"):
    pass


class BMade(Made, tag="b.made"):
    pass


class CMade(Made, tag="c.made"):
    pass


class CallBilled(Event, tag="thing.billed"):
    """A call's billing, as a test feeds a CDR table from another event than its own."""

    call_id: int
    customer_id: int
    billsec: int


NOTE, MEMO, TASK = resource_events("note"), resource_events("memo"), resource_events("task")
THINGS = EVENTS.with_types(ThingHappened, ThingUndone, OtherThing, Tick, AMade, BMade, CMade, CallBilled, *NOTE.all,
                           *MEMO.all, *TASK.all)  # fmt: skip
"""The app's events and these tests' own."""
