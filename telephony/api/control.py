"""Operator endpoints under `/_telephony/`, beside the spec: health is open, the rest need the key."""

from __future__ import annotations

import msgspec
from aiohttp import web

from .. import control_key
from ..clock import parse_wire_time, wire_time
from ..keys import CLOCK, CONTROL_KEY_DIGEST, EVENT_LOG, SCHEDULER
from .errors import BadRequest, Unauthorized
from .responses import json_response
from .routing import Route
from .wire import read_json

CONTROL_HEADER = "X-Control-Key"


class ClockMove(msgspec.Struct, kw_only=True):
    advance: float | None = None
    set: str | None = None


async def require_control_key(request: web.Request) -> None:
    if not control_key.matches(request.headers.get(CONTROL_HEADER), request.app[CONTROL_KEY_DIGEST]):
        raise Unauthorized(f"A valid {CONTROL_HEADER} header is required")


async def health(request: web.Request) -> web.Response:
    return json_response({"status": "ok", "position": request.app[EVENT_LOG].position})


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
    try:
        if body.set is not None:
            clock.set_to(parse_wire_time(body.set))
        elif body.advance is not None:
            clock.advance(body.advance)
        else:
            raise BadRequest.field(None, 'Send {"advance": SECONDS} or {"set": "YYYY-MM-DD HH:MM:SS"}')
    except ValueError as exc:
        raise BadRequest.field("set" if body.set is not None else "advance", str(exc)) from None
    ran = await request.app[SCHEDULER].run_due()
    return json_response({"data": {"now": wire_time(clock.now()), "epoch": clock.time(), "jobs_run": ran}})


ROUTES += [control_route("GET", "/clock", read_clock), control_route("POST", "/clock", move_clock)]
