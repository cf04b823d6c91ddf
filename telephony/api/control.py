"""Operator endpoints under `/_telephony/`, beside the spec: health is open, the rest need the key."""

from __future__ import annotations

from aiohttp import web

from .. import control_key
from ..keys import CONTROL_KEY_DIGEST, EVENT_LOG
from .errors import Unauthorized
from .routing import Route
from .wire import json_response

CONTROL_HEADER = "X-Control-Key"


async def require_control_key(request: web.Request) -> None:
    if not control_key.matches(request.headers.get(CONTROL_HEADER), request.app[CONTROL_KEY_DIGEST]):
        raise Unauthorized(f"A valid {CONTROL_HEADER} header is required")


async def health(request: web.Request) -> web.Response:
    return json_response({"status": "ok", "position": request.app[EVENT_LOG].position})


def control_route(method: str, path: str, handler, *, open_: bool = False) -> Route:
    return Route(method, "/_telephony" + path, handler, auth=not open_, origin="control")


ROUTES = [control_route("GET", "/health", health, open_=True)]
