"""The event stream: `GET /_telephony/events/stream`, server-sent events of the log's call, SMS and
webhook delivery events (`messages` says which, and what each is), as they are recorded.

The operator (control key) sees every customer's events, or one's (`customer_id`); a customer's root
or admin user (its API token) its own customer's. `events` filters by name (`call.*,sms.*`). Without
`Last-Event-ID` the stream starts at the log's head when the answer's headers go out; with it, after
that position. Each message is `id:` (the log position), `event:`, `data:` (one line of JSON); a
comment is sent when the stream opens and every `[stream] heartbeat_seconds` of real time while
nothing else is, so proxies keep the connection. `Streams.close` (at shutdown) ends every stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import logging
import re
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass
from typing import Protocol

from aiohttp import web

from ..api.control import CONTROL_HEADER, control_route, control_shape, require_control_key
from ..api.errors import BadRequest, Forbidden
from ..api.middlewares import stamp_request_id
from ..domain import acl
from ..eventlog import EventLog, RecordedEvent
from ..keys import AUTHENTICATE, EVENT_LOG, PRINCIPAL, STREAMS
from .messages import Message, Messages

log = logging.getLogger(__name__)
HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
OPENED, HEARTBEAT = b": stream open\n\n", b": heartbeat\n\n"
LAST_EVENT_ID = "Last-Event-ID"
NAMES = re.compile(r"^[A-Za-z0-9_.*]{1,100}$")
BUFFERED = 256
"""Messages read ahead of a slow client (the log is read no further until it takes them)."""
_END = object()


@dataclass(frozen=True)
class View:
    """What one stream sends: one customer's messages (None: every customer's) of the names matched."""

    customer_id: int | None
    names: re.Pattern[str] | None

    def shows(self, message: Message) -> bool:
        return (self.customer_id is None or message.customer_id == self.customer_id) and (
            self.names is None or self.names.fullmatch(message.name) is not None)  # fmt: skip


class Source(Protocol):
    """What a stream sends for the log's events: the log's types it reads, and each one's messages."""

    @property
    def types(self) -> Sequence[str]: ...

    async def of(self, event: RecordedEvent) -> list[Message]: ...


class Streams:
    """The open event streams of the app: each follows the log in a task of its own; `close` ends them."""

    def __init__(self, event_log: EventLog, heartbeat: float) -> None:
        self._log = event_log
        self._heartbeat = heartbeat
        self._open: set[asyncio.Queue] = set()
        self.closed = False

    def close(self) -> None:
        """End every stream: what it has not sent yet is left for its client to resume."""
        self.closed = True
        for queue in self._open:
            while not queue.empty():
                queue.get_nowait()
            queue.put_nowait(_END)

    async def follow(self, after: int, view: View, source: Source | None = None) -> AsyncGenerator[bytes, None]:
        """The encoded messages after position `after`, and heartbeats, until the stream is closed;
        `source` says which (by default, the webhook events' and SMS and deliveries' of `messages`)."""
        queue: asyncio.Queue = asyncio.Queue(BUFFERED)
        self._open.add(queue)
        reading = asyncio.create_task(self._read(after, view, queue, source or Messages(self._log)))
        try:
            while not self.closed:
                try:
                    item = await asyncio.wait_for(queue.get(), self._heartbeat)
                except TimeoutError:
                    yield HEARTBEAT
                    continue
                if item is _END:
                    return
                yield item
        finally:
            self._open.discard(queue)
            reading.cancel()

    async def _read(self, after: int, view: View, queue: asyncio.Queue, source: Source) -> None:
        try:
            async for event in self._log.subscribe(after, types=source.types):
                for message in await source.of(event):
                    if view.shows(message):
                        await queue.put(message.encoded())
        except Exception:
            log.exception("the event stream stopped reading the log")
            if not self.closed:
                await queue.put(_END)


async def event_stream(request: web.Request) -> web.StreamResponse:
    view = View(await _customer(request), _names(request.query.get("events")))
    head = request.app[EVENT_LOG].position
    after = _after(request.headers.get(LAST_EVENT_ID, "").strip(), head)
    return await streamed(request, after, view)


async def streamed(request: web.Request, after: int, view: View, source: Source | None = None) -> web.StreamResponse:
    """The answer to `request`: the stream of `view` (from `source`) after position `after`, until the
    client goes or the server stops (a HEAD: the headers only, as a GET's)."""
    response = web.StreamResponse(headers=HEADERS)
    stamp_request_id(request, response)
    await response.prepare(request)
    if request.method == "HEAD":
        return response
    with contextlib.suppress(ConnectionError):  # the client went away
        await response.write(OPENED)
        async with contextlib.aclosing(request.app[STREAMS].follow(after, view, source)) as following:
            async for chunk in following:  # the stream stops reading the log as soon as the client goes
                await response.write(chunk)
        await response.write_eof()
    return response


async def _customer(request: web.Request) -> int | None:
    """The customer whose events the caller may see (None: the operator, every customer's)."""
    asked = request.query.get("customer_id")
    if asked is not None and not asked.isdecimal():
        raise BadRequest.field("customer_id", "Expected a customer id")
    if CONTROL_HEADER in request.headers:
        await require_control_key(request)
        return int(asked) if asked is not None else None
    await request.app[AUTHENTICATE](request)
    who = request[PRINCIPAL]
    if not acl.allowed(who.is_root, list(who.roles), "settings", write=True):
        raise Forbidden("Access denied: only root and admin users may follow their customer's events")
    if asked is not None and int(asked) != who.customer_id:
        raise Forbidden("Access denied: a user follows its own customer's events only")
    return who.customer_id


def _names(text: str | None) -> re.Pattern[str] | None:
    """`call.*,sms.*` as one pattern; None (every name) when not given."""
    if text is None:
        return None
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names or not all(NAMES.fullmatch(name) for name in names):
        raise BadRequest.field("events", "Expected event names or patterns such as call.*, separated by commas")
    return re.compile("|".join(fnmatch.translate(name) for name in names))


def _after(text: str, head: int) -> int:
    """The position a stream starts after: `Last-Event-ID`'s, or the head when it is not given."""
    if not text:
        return head
    if not text.isdecimal() or len(text) > 18:
        raise BadRequest.field(LAST_EVENT_ID, "Expected a position in the log (a whole number)")
    if int(text) > head:
        raise BadRequest.field(LAST_EVENT_ID, f"Position {text} is past the end of this log ({head}): another log's?")
    return int(text)


QUERY = {"events": "event names or patterns (`call.*,sms.*`), separated by commas; every event when left out",
         "customer_id": "with the control key: this customer's events only"}  # fmt: skip
ROUTES = [
    control_route("GET", "/events/stream", event_stream, control_shape(
        envelope="file", media="text/event-stream", query=QUERY, errors=(400, 401, 403),
        security=("ControlKey", "XAuthToken", "BasicAuth")), open_=True),
]  # fmt: skip
