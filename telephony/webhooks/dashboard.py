"""The dashboard: a small server-rendered site to configure a customer's webhooks and see deliveries.

`/_telephony/dashboard` asks a root or admin user's email and password, then keeps a session
(`sessions`: a cookie, CSRF tokens, Post/Redirect/Get with the outcome shown after the redirect). The
pages (`pages`) list the webhooks (add one with a free name, its URL and event types; edit one by
name; enable, disable or delete it), the recent deliveries with each attempt's time (redeliver one),
and for a call its flow: its states on a time line with each event's deliveries. A failure is an
HTML page, never the API's JSON.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from aiohttp import web

from ..accounts import checked_login, customer_name_of
from ..api.context import meta_of
from ..api.errors import ApiError, from_domain
from ..api.route_table import Route
from ..api.shapes import Shape
from ..collections import parse, properties
from ..documents import listing
from ..domain.errors import DomainError
from ..domain.validation import problem
from ..keys import ACCOUNTS, PRINCIPAL, READER, SETTINGS, WEBHOOKS
from . import pages, sessions
from .configuration import WebhookCreate, WebhookPatch, shown
from .pages import BASE
from .sessions import COOKIE, Stale

RECENT = 20
LABELS = {"name": "Name", "url": "URL", "events": "Event types", "enabled": "Enabled"}
NO_EVENTS = "Choose at least one event type."
Handler = Callable[[web.Request], Awaitable[web.Response]]


def _said(exc: DomainError | msgspec.ValidationError, type_: Any) -> str:
    """A refusal in the form's words: each problem after the label of the field it concerns."""
    found = exc.problems if isinstance(exc, DomainError) else [problem(exc, type_)]
    return "; ".join(f"{LABELS.get(field.partition('[')[0], field)}: {message}" if field else message
                     for field, message in found)  # fmt: skip


async def dashboard(request: web.Request) -> web.Response:
    token = await sessions.session(request)
    if token is None:
        return sessions.shown(request, "Log in", pages.login)
    who = request[PRINCIPAL]
    reader = request.app[READER]
    name = await customer_name_of(reader, who.customer_id) or str(who.customer_id)
    hooks = [shown(hook) for hook in await _latest(request, "webhook", who.customer_id, 500, "name")]
    sent = await _latest(request, "delivery", who.customer_id, RECENT, "id", descending=True)
    guard = sessions.csrf(token)
    return sessions.shown(request, "Webhooks", lambda said: pages.overview(name, guard, hooks, sent, said),
                          who.token_id)  # fmt: skip


async def login(request: web.Request) -> web.Response:
    form = await request.post()
    accounts = request.app[ACCOUNTS]
    try:
        found = await checked_login(accounts, str(form.get("email", "")), str(form.get("password", "")),
                                    request.remote)  # fmt: skip
    except ApiError as exc:
        return sessions.back(request, exc.message, bad=True)
    account = accounts.index.accounts.get(found.user_id)
    if account is None or not (account.is_root or "ROLE_ADMIN" in account.roles):
        return sessions.back(request, "Only root and admin users configure webhooks.", bad=True)
    meta = msgspec.structs.replace(meta_of(request), user_id=found.user_id, customer_id=found.customer_id,
                                   token_kind="password")  # fmt: skip
    issued = await accounts.issue(found.user_id, found.customer_id, "login", meta,
                                  inactivity=accounts.inactivity_for("v1.2"))  # fmt: skip
    response = sessions.back(request)
    response.set_cookie(COOKIE, issued.token, httponly=True, samesite="Strict", path=BASE,
                        secure=request.secure)  # fmt: skip
    return response


async def logout(request: web.Request) -> web.Response:
    token = await sessions.session(request)
    if token is not None:
        await sessions.form(request, token)
        who = request[PRINCIPAL]
        await request.app[ACCOUNTS].revoke([who.token_id], "logout", meta_of(request))
    response = sessions.back(request)
    response.del_cookie(COOKIE, path=BASE)
    return response


async def add_webhook(request: web.Request) -> web.Response:
    token = await sessions.session(request)
    if token is None:
        return sessions.back(request)
    form = await sessions.form(request, token)
    body = {"name": form.get("name", ""), "url": form.get("url", ""), "events": form.getall("events", [])}
    if not body["events"]:
        return sessions.back(request, NO_EVENTS, bad=True)
    try:
        made = await request.app[WEBHOOKS].create(request[PRINCIPAL].customer_id,
                                                  msgspec.convert(body, WebhookCreate), meta_of(request))  # fmt: skip
    except (DomainError, msgspec.ValidationError) as exc:
        return sessions.back(request, _said(exc, WebhookCreate), bad=True)
    return sessions.back(request, f"Webhook {made['name']} added.", secret=(made["name"], made["secret"]))


async def edit_webhook(request: web.Request) -> web.Response:
    token = await sessions.session(request)
    if token is None:
        return sessions.back(request)
    form, name = await sessions.form(request, token), request.match_info["name"]
    body = {"url": form.get("url", ""), "events": form.getall("events", []), "enabled": form.get("enabled") == "on"}
    if not body["events"]:
        return sessions.back(request, NO_EVENTS, bad=True)
    try:
        patch = msgspec.structs.asdict(msgspec.convert(body, WebhookPatch))
        changes = {key: value for key, value in patch.items() if value is not msgspec.UNSET}
        await request.app[WEBHOOKS].change(request[PRINCIPAL].customer_id, name, changes, meta_of(request))
    except (DomainError, msgspec.ValidationError) as exc:
        return sessions.back(request, f"Webhook {name}: {_said(exc, WebhookPatch)}", bad=True)
    return sessions.back(request, f"Webhook {name} saved.")


async def delete_webhook(request: web.Request) -> web.Response:
    token = await sessions.session(request)
    if token is None:
        return sessions.back(request)
    await sessions.form(request, token)
    name = request.match_info["name"]
    try:
        await request.app[WEBHOOKS].delete(request[PRINCIPAL].customer_id, name, meta_of(request))
    except DomainError as exc:
        return sessions.back(request, exc.message, bad=True)
    return sessions.back(request, f"Webhook {name} deleted.")


BACK = re.compile(r"calls/[0-9]{1,18}")
"""Where a redelivery may send the browser back to, besides the overview: a call's flow."""


async def redeliver(request: web.Request) -> web.Response:
    """The delivery's event queued again to its webhook: a new delivery, which the sender sends."""
    token = await sessions.session(request)
    if token is None:
        return sessions.back(request)
    form, delivery_id = await sessions.form(request, token), int(request.match_info["id"])
    back = str(form.get("back", ""))
    to = f"{BASE}/{back}" if BACK.fullmatch(back) else BASE
    try:
        again = await request.app[WEBHOOKS].redeliver(request[PRINCIPAL].customer_id, delivery_id, meta_of(request))
    except DomainError as exc:
        return sessions.back(request, exc.message, bad=True, to=to)
    return sessions.back(request, f"Delivery {delivery_id} queued again, as delivery {again['id']}.", to=to)


CALL_ID = re.compile(r"[0-9]{1,18}")


async def find_call(request: web.Request) -> web.Response:
    """The call box: the flow of the call it names."""
    if await sessions.session(request) is None:
        return sessions.back(request)
    call = request.query.get("call", "").strip()
    if not CALL_ID.fullmatch(call):
        return pages.problem(404, "Call not found", f"Call {call} not found.")
    return web.Response(status=303, headers={"Location": f"{BASE}/calls/{call}"})


async def call_flow(request: web.Request) -> web.Response:
    token = await sessions.session(request)
    if token is None:
        return sessions.back(request)
    who, call = request[PRINCIPAL], request.match_info["id"]
    found = await request.app[WEBHOOKS].call_flow(int(call), who.customer_id) if CALL_ID.fullmatch(call) else None
    if found is None:
        return pages.problem(404, "Call not found", f"Call {call} not found.")
    guard = sessions.csrf(token)
    return sessions.shown(request, f"Call {call}", lambda said: pages.flow(int(call), found, guard, said),
                          who.token_id)  # fmt: skip


async def _latest(request: web.Request, kind: str, customer_id: int, limit: int, sort: str,
                  descending: bool = False) -> list[dict[str, Any]]:  # fmt: skip
    query = {"limit": str(limit), "sort": sort, "dir": "DESC" if descending else "ASC"}
    q = parse(query, properties(Shaped), default_limit=limit, max_limit=request.app[SETTINGS].api.max_page_size)
    return (await listing.page(request.app[READER], kind, listing.owned_having(customer_id), q)).documents()


class Shaped(msgspec.Struct):
    """The properties the dashboard's lists sort by."""

    id: int
    name: str


def _guarded(handler: Handler) -> Handler:
    """A dashboard handler whose every answer carries the pages' headers, and whose failures are pages."""

    async def guarded(request: web.Request) -> web.Response:
        try:
            response = await handler(request)
        except Stale:
            response = pages.problem(403, "This form is stale", "This form is stale: reload the page and try again.")
        except (ApiError, DomainError) as exc:
            error = exc if isinstance(exc, ApiError) else from_domain(exc)
            response = pages.problem(error.status, "Not done", error.message)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            response = pages.problem(exc.status, exc.reason, exc.text or exc.reason)
        response.headers.update(pages.headers())
        return response

    guarded.__name__ = handler.__name__
    return guarded


def _route(method: str, path: str, handler: Handler) -> Route:
    shape = Shape(envelope="file", media="text/html", errors=(403, 404), tag="webhooks")
    return Route(method, BASE + path, _guarded(handler), auth=False, origin="telephony", shape=shape)


NAMED = "/webhooks/{name:[^/]+}"
ROUTES = [
    _route("GET", "", dashboard),
    _route("POST", "/login", login),
    _route("POST", "/logout", logout),
    _route("POST", "/webhooks", add_webhook),
    _route("POST", NAMED, edit_webhook),
    _route("POST", "/delete/{name:[^/]+}", delete_webhook),
    _route("POST", r"/redeliver/{id:\d{1,18}}", redeliver),
    _route("GET", "/calls", find_call),
    _route("GET", "/calls/{id:[^/]+}", call_flow),
]
