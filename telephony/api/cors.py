"""Cross-origin access for browser clients, through aiohttp-cors, on every route."""

from __future__ import annotations

import aiohttp_cors
from aiohttp import web

ALLOWED_METHODS = ("GET", "POST", "PATCH", "DELETE")
ALLOWED_HEADERS = ("Content-Type", "X-Auth-Token", "Authorization", "X-Request-Id", "X-Control-Key")
EXPOSED_HEADERS = ("X-Request-Id", "Content-Length")


def enable(app: web.Application, origins: list[str]) -> None:
    """Answer preflights for every route and tag actual responses with the allowed origin."""
    options = aiohttp_cors.ResourceOptions(
        allow_credentials=False,
        expose_headers=EXPOSED_HEADERS,
        allow_headers=ALLOWED_HEADERS,
        allow_methods=ALLOWED_METHODS,
    )
    cors = aiohttp_cors.setup(app, defaults={origin: options for origin in origins})
    for resource in list(app.router.resources()):
        cors.add(resource)
    app.on_response_prepare.append(_advertise_all_methods)


async def _advertise_all_methods(request: web.Request, response: web.StreamResponse) -> None:
    """A preflight lists every method the API allows, not only the one asked about."""
    if request.method == "OPTIONS" and "Access-Control-Allow-Methods" in response.headers:
        response.headers["Access-Control-Allow-Methods"] = ", ".join(ALLOWED_METHODS)
