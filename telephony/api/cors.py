"""Cross-origin access for browser clients, through aiohttp-cors, on every route.

A preflight on any known path allows every method the API has (real-platform.md: every preflight
must allow GET, POST, PATCH and DELETE), so a browser's view of a path never depends on which method
it asked about first; the request itself then gets the API's own answer (405 with `Allow` for a
method the path does not serve). A preflight for any other method is refused as aiohttp-cors does
(403, saying why). Every answer to an allowed origin carries `Access-Control-Allow-Origin`, errors
outside any route (404, 405) included, so a browser script can read them. An OPTIONS request that
is not a preflight is answered as RFC 9110 says: 204 with the path's methods in `Allow`.

Only a request with an `Origin` pays for any of it: aiohttp-cors's own hook looks its route up on
every answer, so it runs behind one check of that header.
"""

from __future__ import annotations

import aiohttp_cors
from aiohttp import hdrs, web

ALLOWED_METHODS = ("GET", "HEAD", "POST", "PATCH", "DELETE")
ALLOWED_HEADERS = (
    "Content-Type",
    "X-Auth-Token",
    "Authorization",
    "X-Request-Id",
    "X-Control-Key",
    "X-Telephony-Position",
)
EXPOSED_HEADERS = ("X-Request-Id", "Content-Length")


def enable(app: web.Application, origins: list[str]) -> None:
    """Answer preflights for every route and tag actual responses with the allowed origin."""
    options = aiohttp_cors.ResourceOptions(
        allow_credentials=False,
        expose_headers=EXPOSED_HEADERS,
        allow_headers=ALLOWED_HEADERS,
        allow_methods=ALLOWED_METHODS,
    )
    hooks = len(app.on_response_prepare)
    cors = aiohttp_cors.setup(app, defaults={origin: options for origin in origins})
    for resource in list(app.router.resources()):
        cors.add(resource)
    (own_hook,) = app.on_response_prepare[hooks:]
    del app.on_response_prepare[hooks:]
    app.on_response_prepare.append(_tagging(own_hook, frozenset(origins)))


def _tagging(own_hook, origins: frozenset[str]):
    async def tag(request: web.Request, response: web.StreamResponse) -> None:
        """aiohttp-cors's headers for answers of known routes, the allowed origin on every other answer
        too, and every method the API allows on a preflight, not only the one asked about."""
        origin = request.headers.get(hdrs.ORIGIN)
        if origin is None:
            return
        await own_hook(request, response)
        if request.method == "OPTIONS":
            if hdrs.ACCESS_CONTROL_ALLOW_METHODS in response.headers:
                response.headers[hdrs.ACCESS_CONTROL_ALLOW_METHODS] = ", ".join(ALLOWED_METHODS)
            return
        if hdrs.ACCESS_CONTROL_ALLOW_ORIGIN not in response.headers and ("*" in origins or origin in origins):
            response.headers[hdrs.ACCESS_CONTROL_ALLOW_ORIGIN] = origin
            response.headers[hdrs.ACCESS_CONTROL_EXPOSE_HEADERS] = ",".join(EXPOSED_HEADERS)

    return tag


async def plain_options(request: web.Request, handler) -> web.StreamResponse:
    """OPTIONS without `Origin` and `Access-Control-Request-Method` is not a preflight: 204 and `Allow`
    (the frame middleware's answer to OPTIONS)."""
    preflight = hdrs.ORIGIN in request.headers and hdrs.ACCESS_CONTROL_REQUEST_METHOD in request.headers
    if preflight or request.match_info.route.resource is None:
        return await handler(request)
    allowed = {"OPTIONS"}
    for resource in request.app.router.resources():  # a path may match several (`/contacts/{id}`, `/{ids}`)
        allowed |= (await resource.resolve(request))[1]
    return web.Response(status=204, headers={hdrs.ALLOW: ", ".join(sorted(allowed))})
