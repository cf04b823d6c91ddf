"""The dashboard's routes: the wallboard, its agent buttons and its event stream, the webhooks pages,
log in and out, and the page's own stylesheet and script; every answer carries the pages' headers,
and every failure is a page (`guarded`), never the API's JSON."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from aiohttp import web

from ..api.access import OPEN
from ..api.context import meta_of
from ..api.errors import ApiError, from_domain
from ..api.route_table import Route
from ..api.shapes import Shape
from ..clock import wire_time
from ..domain.errors import DomainError
from ..keys import CLOCK, EVENT_LOG, PRINCIPAL
from ..registry import agent_logged
from . import changes, layout, session, wallboard_pages
from .floor import floor_of
from .layout import BASE
from .session import Stale
from .webhook_forms import (
    add_webhook,
    call_flow,
    delete_webhook,
    edit_webhook,
    find_call,
    live,
    login,
    logout,
    redeliver,
    webhooks_page,
)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
ID = re.compile(r"[0-9]{1,18}")


async def wallboard(request: web.Request) -> web.Response:
    if (opened := await session.opened(request)) is None:
        return session.shown(request, "Log in", layout.login)
    token, name = opened
    floor, guard = await floor_of(request, request[PRINCIPAL].customer_id), session.csrf(token)
    return session.shown(request, "Wallboard", lambda said: wallboard_pages.wallboard(name, guard, floor, said), token,
                         here="", live=live(BASE))  # fmt: skip


async def log_agent(request: web.Request) -> web.Response:
    """An agent (`user`) logged in to or out of a queue (`queue`; `status` `in` or `out`), as
    `PATCH /queues/{id}` does."""
    token = await session.session(request)
    if token is None:
        return session.back(request)
    form = await session.form(request, token)
    queue, user, status = str(form.get("queue", "")), str(form.get("user", "")), form.get("status")
    if status not in ("in", "out") or not ID.fullmatch(queue) or not ID.fullmatch(user):
        return session.back(request, "Choose a queue, an agent, and to log the agent in or out.", bad=True)
    queue_id, user_id = int(queue), int(user)
    decision = agent_logged(request[PRINCIPAL].customer_id, queue_id, user_id, status == "in",
                            wire_time(request.app[CLOCK].now()))  # fmt: skip
    try:
        await request.app[EVENT_LOG].transact(decision, meta_of(request))
    except DomainError as exc:
        return session.back(request, exc.message, bad=True)
    said = f"Agent {user_id} logged {status} {'to' if status == 'in' else 'of'} queue {queue_id}."
    return session.back(request, said)


def guarded(handler: Handler) -> Handler:
    """A dashboard handler whose every answer carries the pages' headers, and whose failures are pages."""

    async def guard(request: web.Request) -> web.StreamResponse:
        try:
            response = await handler(request)
        except Stale:
            response = layout.problem(403, "This form is stale", "This form is stale: reload the page and try again.")
        except (ApiError, DomainError) as exc:
            error = exc if isinstance(exc, ApiError) else from_domain(exc)
            response = layout.problem(error.status, "Not done", error.message)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            response = layout.problem(exc.status, exc.reason, exc.text or exc.reason)
        if not response.prepared:  # a stream has sent its headers already (and has them)
            response.headers.update(layout.headers())
        return response

    guard.__name__ = handler.__name__
    return guard


def _route(method: str, path: str, handler: Handler, media: str = "text/html", tag: str = "dashboard",
           errors: tuple[int, ...] = (403, 404)) -> Route:  # fmt: skip
    shape = Shape(envelope="file", media=media, errors=errors, tag=tag)
    return Route(method, BASE + path, guarded(handler), OPEN, origin="telephony", shape=shape)  # its own session


NAMED = "/webhooks/{name:[^/]+}"
ROUTES = [
    _route("GET", "", wallboard),
    _route("GET", "/stream", changes.stream, media="text/event-stream", errors=(401,)),
    _route("POST", "/agents", log_agent),
    *(_route("GET", f"/static/{name}", layout.asset, media=media, errors=()) for name, media in layout.ASSETS.items()),
    _route("POST", "/login", login),
    _route("POST", "/logout", logout),
    _route("GET", "/webhooks", webhooks_page, tag="webhooks"),
    _route("POST", "/webhooks", add_webhook, tag="webhooks"),
    _route("POST", NAMED, edit_webhook, tag="webhooks"),
    _route("POST", "/delete/{name:[^/]+}", delete_webhook, tag="webhooks"),
    _route("POST", r"/redeliver/{id:\d{1,18}}", redeliver, tag="webhooks"),
    _route("GET", "/calls", find_call, tag="webhooks"),
    _route("GET", "/calls/{id:[^/]+}", call_flow, tag="webhooks"),
]
