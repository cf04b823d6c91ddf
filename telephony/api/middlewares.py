"""Request ids and error rendering for every route, known or not."""

from __future__ import annotations

import itertools
import logging
import re
import uuid

from aiohttp import web

from ..domain.errors import DomainError
from ..eventlog import ConcurrencyError, LogClosed
from ..keys import REQUEST_ID
from ..logs import request_id
from .errors import ApiError, error_response, from_conflict, from_domain

log = logging.getLogger(__name__)
REQUEST_ID_HEADER = "X-Request-Id"
_VALID_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
_HTTP_MESSAGES = {
    404: "Resource not found",
    405: "Method not allowed",
    413: "Request body is too large",
}


def request_ids():
    """Take the caller's X-Request-Id when it is sane, otherwise make one (`stamp_request_id` echoes it).

    Made ids are a random per-app prefix and a counter: unique, and cheaper than reading the
    system's random source on every request.
    """
    prefix, counter = uuid.uuid4().hex[:12], itertools.count(1)

    @web.middleware
    async def middleware(request: web.Request, handler) -> web.StreamResponse:
        incoming = request.headers.get(REQUEST_ID_HEADER, "")
        rid = incoming if incoming and _VALID_ID.match(incoming) else f"{prefix}-{next(counter):x}"
        request[REQUEST_ID] = rid
        token = request_id.set(rid)
        try:
            return await handler(request)
        finally:
            request_id.reset(token)

    return middleware


async def stamp_request_id(request: web.Request, response: web.StreamResponse) -> None:
    """Every answer carries its request's id, a streamed one too (its headers go before the handler
    returns), and an exception's."""
    rid = request.get(REQUEST_ID)
    if rid is not None:
        response.headers[REQUEST_ID_HEADER] = rid


@web.middleware
async def errors(request: web.Request, handler) -> web.StreamResponse:
    """Render every failure as `{message, errors}` JSON, never HTML, never a traceback."""
    try:
        return await handler(request)
    except ApiError as exc:
        return exc.response()
    except DomainError as exc:
        return from_domain(exc).response()
    except ConcurrencyError as exc:
        return from_conflict(exc).response()
    except LogClosed:
        log.error("%s %s: the event log takes no appends", request.method, request.path)
        return error_response(503, "The service cannot record changes right now; try again later")
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        headers = {k: v for k, v in exc.headers.items() if k.lower() == "allow"}
        said = exc.text if exc.text and not exc.text.startswith(f"{exc.status}: ") else None
        message = _HTTP_MESSAGES.get(exc.status) or said or exc.reason
        return error_response(exc.status, message, headers=headers)
    except Exception:
        log.exception("unhandled error on %s %s", request.method, request.path)
        return error_response(500, "Internal server error")
