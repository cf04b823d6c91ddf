"""Request ids and error rendering for every route, known or not; and the layers a request pays for
only when they apply to it (`Conditional`)."""

from __future__ import annotations

import itertools
import logging
import re
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Protocol

from aiohttp import web

from ..domain.errors import DomainError
from ..eventlog import ConcurrencyError, LogClosed
from ..keys import REQUEST_ID
from ..logs import request_id
from . import positions
from .errors import ApiError, error_response, from_conflict, from_domain

log = logging.getLogger(__name__)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Options = Callable[[web.Request, Handler], Awaitable[web.StreamResponse]]
REQUEST_ID_HEADER = "X-Request-Id"
_VALID_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
_HTTP_MESSAGES = {
    404: "Resource not found",
    405: "Method not allowed",
    413: "Request body is too large",
}


class Middleware(Protocol):
    def __call__(self, request: web.Request, handler: Handler) -> Awaitable[web.StreamResponse]: ...


@dataclass(frozen=True)
class Conditional:
    """A middleware that runs for a request only when `applies(request)` says so: a request it does not
    apply to pays that one check, not a layer (each layer costs every request a coroutine)."""

    applies: Callable[[web.Request], bool]
    middleware: Middleware


def frame(options: Options | None = None, within: Sequence[Conditional] = ()):
    """The one middleware around every route, known or not: the request's id, and every failure
    rendered as `{message, errors}` JSON, never HTML, never a traceback. `options` answers OPTIONS
    requests (the CORS layer's, which tells a preflight from a plain one). `within` runs, in its order,
    around the handler, each layer only for the requests it applies to.

    The caller's X-Request-Id is taken when it is sane; otherwise one is made from a random per-app
    prefix and a counter: unique, and cheaper than reading the system's random source each time. The
    answer carries it (a streamed answer, whose headers go out before the handler returns, is
    stamped by `stamp_request_id`). One middleware rather than several: each layer costs every request a coroutine.
    """
    prefix, counter = uuid.uuid4().hex[:12], itertools.count(1)
    innermost_first = tuple(reversed(within))

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        incoming = request.headers.get(REQUEST_ID_HEADER)
        rid = incoming if incoming and _VALID_ID.match(incoming) else f"{prefix}-{next(counter):x}"
        request[REQUEST_ID] = rid
        token = request_id.set(rid)
        try:
            if options is not None and request.method == "OPTIONS":
                response = await options(request, handler)
            else:
                for layer in innermost_first:
                    if layer.applies(request):
                        handler = partial(layer.middleware, handler=handler)
                response = await positions.reached(request) or await handler(request)
                positions.stamp(request, response)
        except Exception as exc:
            response = _failure(request, exc)
        finally:
            request_id.reset(token)
        if not response.prepared:
            response.headers[REQUEST_ID_HEADER] = rid
        return response

    return middleware


def stamp_request_id(request: web.Request, response: web.StreamResponse) -> None:
    """An answer whose headers go out before its handler returns (a streamed one) carries its
    request's id too: called before it is prepared."""
    rid = request.get(REQUEST_ID)
    if rid is not None:
        response.headers[REQUEST_ID_HEADER] = rid


def _failure(request: web.Request, exc: Exception) -> web.StreamResponse:
    """A failure as the API's error body (a redirect is not one: it goes on up)."""
    if isinstance(exc, ApiError):
        return exc.response()
    if isinstance(exc, DomainError):
        return from_domain(exc).response()
    if isinstance(exc, ConcurrencyError):
        return from_conflict(exc).response()
    if isinstance(exc, LogClosed):
        log.error("%s %s: the event log takes no appends", request.method, request.path)
        return error_response(503, "The service cannot record changes right now; try again later")
    if isinstance(exc, web.HTTPException):
        if exc.status < 400:
            raise exc
        headers = {k: v for k, v in exc.headers.items() if k.lower() == "allow"}
        said = exc.text if exc.text and not exc.text.startswith(f"{exc.status}: ") else None
        message = _HTTP_MESSAGES.get(exc.status) or said or exc.reason
        return error_response(exc.status, message, headers=headers)
    log.error("unhandled error on %s %s", request.method, request.path, exc_info=exc)
    return error_response(500, "Internal server error")
