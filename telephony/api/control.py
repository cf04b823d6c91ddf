"""Operator endpoints under `/_telephony/`, beside the spec: health is open, the rest need the key."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from aiohttp import web

from .. import control_key
from ..clock import LATEST, parse_wire_time, wire_time
from ..keys import CLOCK, CONTROL_KEY_DIGEST, DUTIES, EVENT_LOG, MEMORY, REACTORS, SCHEDULER, SHARED_CLOCK
from ..projections.clock import clock_moved
from .access import CONTROL, OPEN
from .context import meta_of
from .errors import BadRequest, Unauthorized
from .responses import json_response
from .route_table import Route
from .shapes import Envelope, Shape
from .wire import read_json

CONTROL_HEADER = "X-Control-Key"
CLOCK_FORMS = {"set": "a UTC time, YYYY-MM-DD HH:MM:SS, or a date, YYYY-MM-DD", "advance": "a number of seconds"}
WHEN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}( [0-9]{2}:[0-9]{2}:[0-9]{2})?$"


SETTLE = "let the reactors catch up with what each timer records before the next one runs, and before the answer"


class ClockMove(msgspec.Struct, kw_only=True):
    """`advance` seconds, or `set` to a time (UTC); one of them. `settle` waits for the reactors on the way."""

    advance: Annotated[float, msgspec.Meta(ge=0, description="seconds to move forward")] | None = None
    set: Annotated[str, msgspec.Meta(pattern=WHEN, description=CLOCK_FORMS["set"])] | None = None
    settle: Annotated[bool, msgspec.Meta(description=SETTLE)] = False


class ReactorHealth(msgspec.Struct, kw_only=True):
    state: str
    position: int
    failures: int
    last_error: str | None
    retry_at: str | None


class Health(msgspec.Struct, kw_only=True):
    """`ok`, or `degraded` (503) while the log takes no appends, a reactor fails or an in-memory
    projection has failed."""

    status: Literal["ok", "degraded"]
    position: int
    writing: bool
    clock: str
    reactors: dict[str, ReactorHealth]
    failed_projections: dict[str, str]
    leases: list[str] = msgspec.field(default_factory=list)
    """The leases this process holds (timer owners and reactors): every one on SQLite; on a shared
    PostgreSQL log, those it acts for (the others' reactors show `standby`)."""


class ClockReading(msgspec.Struct, kw_only=True):
    now: str
    epoch: float


class ClockMoved(ClockReading, kw_only=True):
    jobs_run: int


class Verified(msgspec.Struct, kw_only=True):
    position: int
    compared: list[str]
    problem: str | None


async def require_control_key(request: web.Request) -> None:
    if not control_key.matches(request.headers.get(CONTROL_HEADER), request.app[CONTROL_KEY_DIGEST]):
        raise Unauthorized(f"A valid {CONTROL_HEADER} header is required")


async def health(request: web.Request) -> web.Response:
    """`ok` (200), or `degraded` (503) while the log takes no appends, a reactor fails or an in-memory
    projection has failed."""
    event_log, reactors = request.app[EVENT_LOG], request.app[REACTORS]
    broken = {**event_log.follower_failures, **request.app[MEMORY].failures}
    degraded = bool(broken or reactors.failing or not event_log.writing)
    body = {"status": "degraded" if degraded else "ok", "position": event_log.position,
            "writing": event_log.writing, "clock": wire_time(request.app[CLOCK].now()),
            "reactors": reactors.health(), "failed_projections": broken,
            "leases": request.app[DUTIES].held}  # fmt: skip
    return json_response(body, status=503 if degraded else 200)


def control_route(method: str, path: str, handler, shape: Shape, *, open_: bool = False) -> Route:
    """An operator route under `/_telephony`: it needs the control key unless `open_`."""
    return Route(method, "/_telephony" + path, handler, OPEN if open_ else CONTROL, origin="control", shape=shape)


def control_shape(answer: Any = None, envelope: Envelope = "data", **kwargs: Any) -> Shape:
    """An operator route's shape: answers are `{data}` unless told otherwise, filed under `control`."""
    return Shape(answer, envelope, tag="control", **kwargs)


ROUTES = [control_route("GET", "/health", health, control_shape(Health, "bare", also={503: Health}), open_=True)]


async def read_clock(request: web.Request) -> web.Response:
    clock = request.app[CLOCK]
    return json_response({"data": {"now": wire_time(clock.now()), "epoch": clock.time()}})


async def move_clock(request: web.Request) -> web.Response:
    """Moves the clock forward (`advance` seconds or `set` to a time) and runs what became due."""
    clock = request.app[CLOCK]
    body = await read_json(request, ClockMove)
    field, now = ("set" if body.set is not None else "advance"), clock.time()  # one reading: a flowing clock goes on
    try:
        if body.set is not None:
            target = parse_wire_time(body.set).timestamp()
        elif body.advance is not None:
            target = now + body.advance
        else:
            raise BadRequest.field(None, 'Send {"advance": SECONDS} or {"set": "YYYY-MM-DD HH:MM:SS"}')
    except (ValueError, OverflowError):
        raise BadRequest.field(field, f"Expected {CLOCK_FORMS[field]}") from None
    if not now <= target <= LATEST:
        message = "the clock only moves forward" if target < now else f"the clock stops at {wire_time(LATEST)}"
        raise BadRequest.field(field, message)
    ran = await (settled_move(request.app, target) if body.settle else request.app[SCHEDULER].advance_to(target))
    recorded = await request.app[EVENT_LOG].append([clock_moved(clock.offset, clock.time())], meta_of(request))
    if SHARED_CLOCK in request.app:  # other processes hold leases: their timers due on the way run too
        await request.app[SHARED_CLOCK].everywhere(recorded[-1].position)
    return json_response({"data": {"now": wire_time(clock.now()), "epoch": clock.time(), "jobs_run": ran}})


async def settled_move(app: web.Application, target: float) -> int:
    """Move the clock to `target` one due time at a time, the reactors catching up with what the timers
    recorded (and with what they record themselves) before the next: each reaction sees the clock of
    what it reacts to, and the log's order does not depend on how fast the reactors are. A failing
    reactor is not waited for. Returns how many timers ran."""
    scheduler, reactors, event_log, clock = app[SCHEDULER], app[REACTORS], app[EVENT_LOG], app[CLOCK]
    ran = 0
    while True:
        await reactors.settled(lambda: event_log.position)
        due = scheduler.next_due()
        if due is not None and due <= target:
            ran += await scheduler.advance_to(due)
        elif clock.time() < target:
            ran += await scheduler.advance_to(target)
        else:
            return ran


ROUTES += [
    control_route("GET", "/clock", read_clock, control_shape(ClockReading)),
    control_route("POST", "/clock", move_clock, control_shape(ClockMoved, body=ClockMove, errors=(400,))),
]


async def verify_memory(request: web.Request) -> web.Response:
    """Folds every compared in-memory projection afresh from the log and compares it with the live one."""
    memory = request.app[MEMORY]
    difference = await memory.verify(request.app[EVENT_LOG])
    compared = [p.name for p in memory.compared]
    body = {"position": memory.position, "compared": compared, "problem": str(difference) if difference else None}
    return json_response({"data": body})


ROUTES += [control_route("POST", "/verify", verify_memory, control_shape(Verified))]
