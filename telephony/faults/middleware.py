"""Fault rules on API requests: the middleware that matches each request under `/v1.1/<service>` and
`/v1.2/<service>` (by method and by its path after that prefix) and makes it fail as the rules say.

In the order a turn's effects come: the latencies added up (real time: a client's timeouts are real),
then the answer: a status with the platform's error body (and `Retry-After`), or a connection closed
with no answer at all, before the request is handled; or the request is handled and its answer's body
trickles out over `slow_body` milliseconds. With no rule for API requests the middleware does not run:
a request costs one check (`Conditional`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from aiohttp import web

from ..api.context import meta_of
from ..api.errors import error_response
from ..api.middlewares import Conditional, stamp_request_id
from ..api.route_table import VERSIONS, version_prefix
from ..keys import FAULTS

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
MESSAGES = {500: "Internal server error", 502: "Bad gateway", 503: "Service unavailable",
            429: "Too many requests"}  # fmt: skip
PIECES = 10
"""A slow body arrives in this many pieces (fewer for a body with fewer bytes)."""


def _ruled(request: web.Request) -> bool:
    """Whether any fault rule is for API requests."""
    return bool(request.app[FAULTS].rules.for_requests)


def api_faults(service: str) -> Conditional:
    """The middleware, for the API under `/v1.x/<service>`, while a rule is for API requests."""
    prefixes = tuple(version_prefix(version, service) for version in VERSIONS)

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        faults = request.app[FAULTS]
        path = next((request.path[len(p) :] for p in prefixes if request.path.startswith(p + "/")), None)
        found = None if path is None else await faults.for_request(request.method, path, meta_of(request))
        if found is None:
            return await handler(request)
        if found.latency_ms:
            await asyncio.sleep(found.latency_ms / 1000)
        if found.drop:
            if request.transport is not None:
                request.transport.close()
            raise asyncio.CancelledError  # aiohttp's way out for a request whose connection is gone
        if found.status is not None:
            retry = {"Retry-After": str(found.retry_after)} if found.retry_after is not None else None
            return error_response(found.status, MESSAGES[found.status], headers=retry)
        response = await handler(request)
        return await _trickled(request, response, found.slow_body) if found.slow_body else response

    return Conditional(_ruled, middleware)


async def _trickled(request: web.Request, response: web.StreamResponse, millis: int) -> web.StreamResponse:
    """The answer, its status and headers at once, its body in pieces over `millis` milliseconds (an
    answer already streamed, with no body, or without its body in memory goes as it is)."""
    if (not isinstance(response, web.Response) or response.prepared or not isinstance(response.body, bytes)
            or not response.body or request.method == "HEAD"):  # fmt: skip
        return response
    body = response.body
    slow = web.StreamResponse(status=response.status, reason=response.reason, headers=response.headers)
    slow.content_length = len(body)
    stamp_request_id(request, slow)
    await slow.prepare(request)
    size = -(-len(body) // PIECES)
    pieces = [body[start : start + size] for start in range(0, len(body), size)]
    for piece in pieces:
        await asyncio.sleep(millis / 1000 / len(pieces))
        await slow.write(piece)
    await slow.write_eof()
    return slow
