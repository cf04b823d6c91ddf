"""The dashboard's event stream: `GET /_telephony/dashboard/stream`, server-sent events that tell an
open page that something it shows has changed, so it reads its live regions again.

It is the event stream's machinery (`stream.Streams`: buffering, heartbeats, the end at shutdown)
with its own source: a session's page hears of its own customer's calls, queues, call records,
webhooks and deliveries, and of every move of the clock (the durations it shows run on it), each as
`event: changed` with `data: {"type": <the log's type>}` and the log position as `id:`, nothing more.
A page that lost its stream (the server restarted) reads its regions again as it reconnects.
"""

from __future__ import annotations

import msgspec
from aiohttp import web

from ..domain.calls.fold import CALL_TYPES
from ..domain.events import data_of, tag_of
from ..domain.events.log import ClockMoved
from ..eventlog import EventLog, RecordedEvent
from ..keys import EVENT_LOG, PRINCIPAL
from ..stream import Message, Messages, View, streamed
from . import session

KINDS = ("queue", "cdr", "webhook", "user")
"""The document kinds whose every change a page may show."""
TYPES = sorted({*(tag_of(cls) for cls in CALL_TYPES), *(f"{kind}.{change}" for kind in KINDS
               for change in ("created", "updated", "deleted")), "webhook.delivery_queued",
               "webhook.delivery_attempted", tag_of(ClockMoved)})  # fmt: skip


class Changes(Messages):
    """A `changed` message for each event of `TYPES`, to its customer's pages; the clock's to `viewer`'s."""

    types = TYPES

    def __init__(self, event_log: EventLog, viewer: int) -> None:
        super().__init__(event_log)
        self._viewer = viewer

    async def of(self, event: RecordedEvent) -> list[Message]:
        if isinstance(event.event, ClockMoved):
            customer_id: int | None = self._viewer
        else:
            customer_id = data_of(event.event).get("customer_id") or await self.owner(event.stream)
        said = msgspec.json.encode({"type": event.type}).decode()
        return [Message(event.position, "changed", said, customer_id)]


async def stream(request: web.Request) -> web.StreamResponse:
    if await session.session(request) is None:
        raise web.HTTPUnauthorized(text="Log in to the dashboard first.")
    customer_id = request[PRINCIPAL].customer_id
    event_log = request.app[EVENT_LOG]
    return await streamed(request, event_log.position, View(customer_id, None), Changes(event_log, customer_id))
