"""Operator endpoints under `/_telephony/`, beside the spec: health is open, the rest need the key."""

from __future__ import annotations

import msgspec
from aiohttp import web

from .. import control_key
from ..clock import LATEST, parse_wire_time, wire_time
from ..keys import CLOCK, CONTROL_KEY_DIGEST, EVENT_LOG, MEMORY, REACTORS, SCHEDULER
from ..projections.clock import clock_moved
from .context import meta_of
from .errors import BadRequest, Unauthorized
from .responses import json_response
from .routing import Route
from .wire import read_json

CONTROL_HEADER = "X-Control-Key"
CLOCK_FORMS = {"set": "a UTC time, YYYY-MM-DD HH:MM:SS, or a date, YYYY-MM-DD", "advance": "a number of seconds"}


class ClockMove(msgspec.Struct, kw_only=True):
    advance: float | None = None
    set: str | None = None


async def require_control_key(request: web.Request) -> None:
    if not control_key.matches(request.headers.get(CONTROL_HEADER), request.app[CONTROL_KEY_DIGEST]):
        raise Unauthorized(f"A valid {CONTROL_HEADER} header is required")


async def health(request: web.Request) -> web.Response:
    """`ok` (200), or `degraded` (503) while a reactor fails or an in-memory projection has failed."""
    event_log, reactors = request.app[EVENT_LOG], request.app[REACTORS]
    broken = {**event_log.follower_failures, **request.app[MEMORY].failures}
    degraded = bool(broken or reactors.failing)
    body = {"status": "degraded" if degraded else "ok", "position": event_log.position,
            "reactors": reactors.health(), "failed_projections": broken}  # fmt: skip
    return json_response(body, status=503 if degraded else 200)


def control_route(method: str, path: str, handler, *, open_: bool = False) -> Route:
    return Route(method, "/_telephony" + path, handler, auth=not open_, origin="control")


ROUTES = [control_route("GET", "/health", health, open_=True)]


async def read_clock(request: web.Request) -> web.Response:
    clock = request.app[CLOCK]
    return json_response({"data": {"now": wire_time(clock.now()), "epoch": clock.time()}})


async def move_clock(request: web.Request) -> web.Response:
    """Moves the clock forward (`advance` seconds or `set` to a time) and runs what became due."""
    clock = request.app[CLOCK]
    body = await read_json(request, ClockMove)
    field = "set" if body.set is not None else "advance"
    try:
        if body.set is not None:
            target = parse_wire_time(body.set).timestamp()
        elif body.advance is not None:
            target = clock.time() + body.advance
        else:
            raise BadRequest.field(None, 'Send {"advance": SECONDS} or {"set": "YYYY-MM-DD HH:MM:SS"}')
    except (ValueError, OverflowError):
        raise BadRequest.field(field, f"Expected {CLOCK_FORMS[field]}") from None
    if not clock.time() <= target <= LATEST:
        message = "the clock only moves forward" if target < clock.time() else f"the clock stops at {wire_time(LATEST)}"
        raise BadRequest.field(field, message)
    ran = await request.app[SCHEDULER].advance_to(target)
    await request.app[EVENT_LOG].append([clock_moved(clock.offset, clock.time())], meta_of(request))
    return json_response({"data": {"now": wire_time(clock.now()), "epoch": clock.time(), "jobs_run": ran}})


ROUTES += [control_route("GET", "/clock", read_clock), control_route("POST", "/clock", move_clock)]


async def verify_memory(request: web.Request) -> web.Response:
    """Folds every compared in-memory projection afresh from the log and compares it with the live one."""
    memory = request.app[MEMORY]
    difference = await memory.verify(request.app[EVENT_LOG])
    compared = [p.name for p in memory.compared]
    body = {"position": memory.position, "compared": compared, "problem": str(difference) if difference else None}
    return json_response({"data": body})


ROUTES += [control_route("POST", "/verify", verify_memory)]
