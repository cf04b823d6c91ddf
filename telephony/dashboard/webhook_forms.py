"""The webhooks pages' handlers: the webhooks and recent deliveries, the forms that change them (add,
edit, enable or disable, delete, redeliver) and a call's flow (its routing hops read from the log,
`hops`), and the dashboard's log in and out.

Log in asks a root or admin user's email and password, then keeps a session (`session`: a cookie, CSRF
tokens, Post/Redirect/Get with the outcome shown after the redirect). A failure is an HTML page,
never the API's JSON (`routes.guarded`).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from aiohttp import web

from ..accounts import checked_login
from ..api import nul
from ..api.context import meta_of
from ..api.errors import ApiError
from ..domain.errors import DomainError
from ..domain.validation import problem
from ..keys import ACCOUNTS, CALLS, MEMORY, PRINCIPAL, WEBHOOKS
from ..webhooks import PendingDeliveries, WebhookCreate, WebhookPatch, webhook_shown
from . import layout, recent, session, webhook_pages
from .hops import hops, read_chain
from .layout import BASE
from .session import COOKIE

RECENT = 20
LABELS = {"name": "Name", "url": "URL", "events": "Event types", "enabled": "Enabled"}
NO_EVENTS = "Choose at least one event type."
PAGE = f"{BASE}/webhooks"


def _said(exc: DomainError | msgspec.ValidationError, type_: Any) -> str:
    """A refusal in the form's words: each problem after the label of the field it concerns."""
    found = exc.problems if isinstance(exc, DomainError) else [problem(exc, type_)]
    return "; ".join(f"{LABELS.get(field.partition('[')[0], field)}: {message}" if field else message
                     for field, message in found)  # fmt: skip


async def webhooks_page(request: web.Request) -> web.Response:
    if (opened := await session.opened(request)) is None:
        return session.shown(request, "Log in", layout.login)
    token, name = opened
    customer_id = request[PRINCIPAL].customer_id
    hooks = [webhook_shown(hook) for hook in await recent.documents(request, "webhook", customer_id, 500, "name")]
    sent = await recent.documents(request, "delivery", customer_id, RECENT, "id", descending=True)
    lanes = request.app[MEMORY][PendingDeliveries]
    waiting = {
        d["id"]: ahead for d in sent if d["status"] == "pending" and (ahead := lanes.behind(d["id"])) is not None
    }
    guard = session.csrf(token)
    return session.shown(
        request,
        "Webhooks",
        lambda said: webhook_pages.overview(name, guard, hooks, sent, waiting, said),
        token,
        here="/webhooks",
        live=live(PAGE),
    )


async def login(request: web.Request) -> web.Response:
    form = await nul.posted(request)
    accounts = request.app[ACCOUNTS]
    try:
        found = await checked_login(accounts, str(form.get("email", "")), str(form.get("password", "")),
                                    request.remote)  # fmt: skip
    except ApiError as exc:
        return session.back(request, exc.message, bad=True)
    account = accounts.index.accounts.get(found.user_id)
    if account is None or not (account.is_root or "ROLE_ADMIN" in account.roles):
        return session.back(request, "Only root and admin users use the dashboard.", bad=True)
    meta = msgspec.structs.replace(meta_of(request), user_id=found.user_id, customer_id=found.customer_id,
                                   token_kind="password")  # fmt: skip
    issued = await accounts.issue(found.user_id, found.customer_id, "login", meta,
                                  inactivity=accounts.inactivity_for("v1.2"))  # fmt: skip
    response = session.back(request)
    response.set_cookie(COOKIE, issued.token, httponly=True, samesite="Strict", path=BASE,
                        secure=request.secure)  # fmt: skip
    return response


async def logout(request: web.Request) -> web.Response:
    token = await session.session(request)
    if token is not None:
        await session.form(request, token)
        who = request[PRINCIPAL]
        await request.app[ACCOUNTS].revoke([who.token_id], "logout", meta_of(request))
    response = session.back(request)
    response.del_cookie(COOKIE, path=BASE)
    return response


async def add_webhook(request: web.Request) -> web.Response:
    token = await session.session(request)
    if token is None:
        return session.back(request)
    form = await session.form(request, token)
    body = {"name": form.get("name", ""), "url": form.get("url", ""), "events": form.getall("events", [])}
    if not body["events"]:
        return session.back(request, NO_EVENTS, bad=True, to=PAGE)
    try:
        made = await request.app[WEBHOOKS].create(request[PRINCIPAL].customer_id,
                                                  msgspec.convert(body, WebhookCreate), meta_of(request))  # fmt: skip
    except (DomainError, msgspec.ValidationError) as exc:
        return session.back(request, _said(exc, WebhookCreate), bad=True, to=PAGE)
    return session.back(request, f"Webhook {made['name']} added.", secret=(made["name"], made["secret"]), to=PAGE)


async def edit_webhook(request: web.Request) -> web.Response:
    token = await session.session(request)
    if token is None:
        return session.back(request)
    form, name = await session.form(request, token), request.match_info["name"]
    body = {"url": form.get("url", ""), "events": form.getall("events", []), "enabled": form.get("enabled") == "on"}
    if not body["events"]:
        return session.back(request, NO_EVENTS, bad=True, to=PAGE)
    try:
        patch = msgspec.structs.asdict(msgspec.convert(body, WebhookPatch))
        changes = {key: value for key, value in patch.items() if value is not msgspec.UNSET}
        await request.app[WEBHOOKS].change(request[PRINCIPAL].customer_id, name, changes, meta_of(request))
    except (DomainError, msgspec.ValidationError) as exc:
        return session.back(request, f"Webhook {name}: {_said(exc, WebhookPatch)}", bad=True, to=PAGE)
    return session.back(request, f"Webhook {name} saved.", to=PAGE)


async def delete_webhook(request: web.Request) -> web.Response:
    token = await session.session(request)
    if token is None:
        return session.back(request)
    await session.form(request, token)
    name = request.match_info["name"]
    try:
        await request.app[WEBHOOKS].delete(request[PRINCIPAL].customer_id, name, meta_of(request))
    except DomainError as exc:
        return session.back(request, exc.message, bad=True, to=PAGE)
    return session.back(request, f"Webhook {name} deleted.", to=PAGE)


BACK = re.compile(r"calls/[0-9]{1,18}")
"""Where a redelivery may send the browser back to, besides the webhooks page: a call's flow."""


async def redeliver(request: web.Request) -> web.Response:
    """The delivery's event queued again to its webhook: a new delivery, which the sender sends."""
    token = await session.session(request)
    if token is None:
        return session.back(request)
    form, delivery_id = await session.form(request, token), int(request.match_info["id"])
    back = str(form.get("back", ""))
    to = f"{BASE}/{back}" if BACK.fullmatch(back) else PAGE
    try:
        again = await request.app[WEBHOOKS].redeliver(request[PRINCIPAL].customer_id, delivery_id, meta_of(request))
    except DomainError as exc:
        return session.back(request, exc.message, bad=True, to=to)
    return session.back(request, f"Delivery {delivery_id} queued again, as delivery {again['id']}.", to=to)


CALL_ID = re.compile(r"[0-9]{1,18}")


async def find_call(request: web.Request) -> web.Response:
    """The call box: the flow of the call it names."""
    if await session.session(request) is None:
        return session.back(request)
    call = request.query.get("call", "").strip()
    if not CALL_ID.fullmatch(call):
        return layout.problem(404, "Call not found", f"Call {call} not found.")
    return web.Response(status=303, headers={"Location": f"{BASE}/calls/{call}"})


async def call_flow(request: web.Request) -> web.Response:
    token = await session.session(request)
    if token is None:
        return session.back(request)
    who, call = request[PRINCIPAL], request.match_info["id"]
    found = await request.app[WEBHOOKS].call_flow(int(call), who.customer_id) if CALL_ID.fullmatch(call) else None
    if found is None:
        return layout.problem(404, "Call not found", f"Call {call} not found.")
    guard = session.csrf(token)
    page = f"{BASE}/calls/{call}"
    routing = hops(await read_chain(request.app[CALLS].events, int(call), who.customer_id))
    return session.shown(
        request,
        f"Call {call}",
        lambda said: webhook_pages.flow(int(call), found, routing, guard, said),
        token,
        here="/calls",
        live=live(page),
    )


def live(page: str) -> str:
    """The attributes of a page's `main` that have the script follow the event stream and refresh the
    page's live regions (`data-region`) from `page`."""
    return f' data-stream="{BASE}/stream" data-refresh="{page}"'
