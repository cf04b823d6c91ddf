"""What the event stream sends for each event of the log, and to whom.

A call's event is sent as the webhook events it makes (`webhooks.call_events`, given the call folded
up to the event before it), an inbound SMS's record as `sms.received` (`webhooks.inbound_sms`): the
same bodies, byte for byte, as the deliveries of those events. The other SMS events and the webhook
deliveries' events are sent under the log's type with the event's data. A call's event that makes no
webhook event is not sent (its log type could be taken for a webhook event's name: the caller's own
phone ringing is a `call.ringing` of the log, but not the webhook event `call.ringing`).

Each message names the customer it belongs to: the one its event's data names, else the call's, else
the one the first event of its stream names (a delivery's attempts, an SMS's status).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import msgspec

from .. import webhooks
from ..domain.calls.call import Call
from ..domain.calls.fold import fold
from ..domain.events import Event, data_of, tag_of
from ..domain.events.calls import CallEvent
from ..domain.events.messaging import SMS, SmsCreated
from ..domain.events.webhooks import DeliveryAttempted, DeliveryQueued
from ..eventlog import EventLog, RecordedEvent

STREAMED: tuple[type[Event], ...] = (*webhooks.CHANGES, SmsCreated, SMS.updated, DeliveryQueued, DeliveryAttempted)
TYPES = sorted(tag_of(cls) for cls in STREAMED)
"""The log's types the stream sends messages for."""
REMEMBERED = 1024
"""Calls (as folded) and streams' customers remembered, the most recently used."""


@dataclass(frozen=True)
class Message:
    position: int
    name: str
    data: str
    customer_id: int | None

    def encoded(self) -> bytes:
        return f"id: {self.position}\nevent: {self.name}\ndata: {self.data}\n\n".encode()


class Messages:
    """The messages of the log's events, in order; remembers the calls it folded and the customers of
    the streams it met, so a call's next event is folded on from where it was."""

    types: list[str] = TYPES

    def __init__(self, event_log: EventLog) -> None:
        self._log = event_log
        self._calls: OrderedDict[str, tuple[int, Call]] = OrderedDict()
        self._owners: OrderedDict[str, int | None] = OrderedDict()

    async def of(self, event: RecordedEvent) -> list[Message]:
        match event.event:
            case CallEvent() as changed:
                after, made = webhooks.call_events(event.position, changed, await self._call_before(event, changed))
                _remember(self._calls, event.stream, (event.version, after))
                return [Message(event.position, m.name, m.body, after.customer_id or None) for m in made]
            case SmsCreated() as sms if (inbound := webhooks.inbound_sms(event.position, sms)) is not None:
                return [Message(event.position, inbound.name, inbound.body, sms.customer_id)]
        data = data_of(event.event)
        customer_id = data.get("customer_id") or await self.owner(event.stream)
        return [Message(event.position, event.type, msgspec.json.encode(data).decode(), customer_id)]

    async def _call_before(self, event: RecordedEvent, changed: CallEvent) -> Call:
        """The call as it was before `event`: folded on from the last event met, or from its stream."""
        kept = self._calls.get(event.stream)
        if kept is not None and kept[0] == event.version - 1:
            return kept[1]
        earlier = (await self._log.read_stream(event.stream))[: event.version - 1]
        return fold(changed.id, [e.event for e in earlier])  # type: ignore[misc]

    async def owner(self, stream: str) -> int | None:
        """The customer the first event of a stream names."""
        if stream not in self._owners:
            first = await self._log.read_stream(stream)
            _remember(self._owners, stream, data_of(first[0].event).get("customer_id") if first else None)
        return self._owners[stream]


def _remember(kept: OrderedDict, key: str, value: object) -> None:
    kept[key] = value
    kept.move_to_end(key)
    if len(kept) > REMEMBERED:
        kept.popitem(last=False)
