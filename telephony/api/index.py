"""`GET /`: where a newcomer finds the rest. A browser is sent to the dashboard; a client that asks for
JSON gets the links, as paths on this server, which a proxy in front leaves right (the API under both
versions, the dashboard, the API docs, the OpenAPI document, health)."""

from __future__ import annotations

import msgspec
from aiohttp import web

from ..keys import SETTINGS
from .access import OPEN
from .responses import json_response
from .route_table import Route
from .shapes import Shape

DASHBOARD = "/_telephony/dashboard"


class IndexLinks(msgspec.Struct, kw_only=True):
    api_v1_1: str
    api_v1_2: str
    dashboard: str
    docs: str
    openapi: str
    health: str


class Index(msgspec.Struct, kw_only=True):
    name: str
    links: IndexLinks


def links(service: str, base: str = "") -> dict[str, str]:
    """Where everything is: paths on this server, or URLs on the server at `base` (`http://host:port`)."""
    return {"api_v1_1": f"{base}/v1.1/{service}", "api_v1_2": f"{base}/v1.2/{service}",
            "dashboard": base + DASHBOARD, "docs": f"{base}/_telephony/docs",
            "openapi": f"{base}/_telephony/openapi.json", "health": f"{base}/_telephony/health"}  # fmt: skip


async def index(request: web.Request) -> web.Response:
    """A browser (it accepts HTML) to the dashboard (302); any other client, the links as JSON."""
    if "text/html" in request.headers.get("Accept", ""):
        raise web.HTTPFound(DASHBOARD)
    return json_response({"name": "telephony", "links": links(request.app[SETTINGS].api.service)})


ROUTES = [Route("GET", "/", index, OPEN, origin="control", shape=Shape(Index, "bare", tag="control"))]
