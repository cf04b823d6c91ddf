"""The dashboard: a small server-rendered page to configure a customer's webhooks and see deliveries.

`/_telephony/dashboard` asks a root or admin user's email and password, then keeps the session in
a cookie (HttpOnly, SameSite=Strict, path `/_telephony/dashboard`) holding a login token like the
API's (it idles out as v1.2 tokens do). Every form carries a CSRF token drawn from the session's,
which another site can neither read nor make. The page lists the webhooks (add one with a free name,
its URL and event types; edit one by name; enable or disable it), the recent deliveries, and for a
call its flow: its states on a time line with each event's deliveries and their attempts.
Plain HTML, a few lines of JavaScript, no build step.
"""

from __future__ import annotations

import hashlib
import hmac
from html import escape
from typing import Any
from urllib.parse import quote

import msgspec
from aiohttp import web

from ..accounts import authenticate_token, checked_login, customer_name_of
from ..api.context import authorize, meta_of
from ..api.errors import ApiError
from ..api.routing import Route
from ..api.shapes import Shape
from ..collections import parse, properties
from ..documents import listing
from ..domain.errors import DomainError
from ..domain.webhooks import SELECTABLE
from ..keys import ACCOUNTS, PRINCIPAL, READER, SETTINGS, WEBHOOKS
from .configuration import WebhookCreate

BASE = "/_telephony/dashboard"
COOKIE = "telephony_dashboard"
RECENT = 20
STYLE = """body{font:14px system-ui,sans-serif;margin:2em;max-width:70em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}
.failed,.bad{color:#b00}.delivered{color:#070}.pending{color:#a60}form.inline{display:inline}
.timeline li{display:inline-block;margin-right:1em}.secret{background:#ffd;padding:.5em}"""
SCRIPT = """document.querySelectorAll('form[data-confirm]').forEach(f => f.addEventListener('submit',
  e => { if (!confirm(f.dataset.confirm)) e.preventDefault(); }));"""


def _csrf(token: str) -> str:
    return hmac.new(token.encode(), b"dashboard-csrf", hashlib.sha256).hexdigest()


def _page(title: str, body: str, status: int = 200) -> web.Response:
    html = (f"<!doctype html><html><head><meta charset=utf-8><title>{escape(title)}</title><style>{STYLE}</style>"
            f"</head><body>{body}<script>{SCRIPT}</script></body></html>")  # fmt: skip
    return web.Response(text=html, content_type="text/html", status=status)


def _login_page(problem: str = "") -> web.Response:
    """The login form (again, saying what went wrong: a page of a form answers 200 whatever it says)."""
    said = f'<p class="bad">{escape(problem)}</p>' if problem else ""
    return _page(
        "Log in",
        f"""<h1>Webhooks dashboard</h1>{said}
<form method=post action="{BASE}/login"><p><label>Email <input name=email type=email required></label></p>
<p><label>Password <input name=password type=password required></label></p><p><button>Log in</button></p></form>""",
    )


async def _session(request: web.Request) -> str | None:
    """The session's token, when the cookie holds a live one of a root or admin user."""
    token = request.cookies.get(COOKIE)
    if not token:
        return None
    try:
        await authenticate_token(request, token)
        authorize(request, "settings", write=True)
    except ApiError:
        return None
    return token


async def _form(request: web.Request, token: str) -> Any:
    form = await request.post()
    if not hmac.compare_digest(str(form.get("csrf", "")), _csrf(token)):
        raise web.HTTPForbidden(text="This form is stale: reload the page.")
    return form


def _back(to: str = BASE) -> web.Response:
    """After a form: see the page again (303)."""
    return web.Response(status=303, headers={"Location": to})


async def dashboard(request: web.Request) -> web.Response:
    token = await _session(request)
    if token is None:
        return _login_page()
    return await _overview(request, token)


async def login(request: web.Request) -> web.Response:
    form = await request.post()
    accounts = request.app[ACCOUNTS]
    try:
        found = await checked_login(accounts, str(form.get("email", "")), str(form.get("password", "")),
                                    request.remote)  # fmt: skip
    except ApiError as exc:
        return _login_page(exc.message)
    account = accounts.index.accounts.get(found.user_id)
    if account is None or not (account.is_root or "ROLE_ADMIN" in account.roles):
        return _login_page("Only root and admin users configure webhooks.")
    meta = msgspec.structs.replace(meta_of(request), user_id=found.user_id, customer_id=found.customer_id,
                                   token_kind="password")  # fmt: skip
    issued = await accounts.issue(found.user_id, found.customer_id, "login", meta,
                                  inactivity=accounts.inactivity_for("v1.2"))  # fmt: skip
    response = _back()
    response.set_cookie(COOKIE, issued.token, httponly=True, samesite="Strict", path=BASE,
                        secure=request.secure)  # fmt: skip
    return response


async def logout(request: web.Request) -> web.Response:
    token = await _session(request)
    if token is not None:
        await _form(request, token)
        who = request[PRINCIPAL]
        await request.app[ACCOUNTS].revoke([who.token_id], "logout", meta_of(request))
    response = _back()
    response.del_cookie(COOKIE, path=BASE)
    return response


async def add_webhook(request: web.Request) -> web.Response:
    token = await _session(request)
    if token is None:
        return _back()
    form = await _form(request, token)
    who = request[PRINCIPAL]
    try:
        body = msgspec.convert({"name": form.get("name", ""), "url": form.get("url", ""),
                                "events": form.getall("events", [])}, WebhookCreate)  # fmt: skip
        made = await request.app[WEBHOOKS].create(who.customer_id, body, meta_of(request))
    except (DomainError, msgspec.ValidationError) as exc:
        return await _overview(request, token, problem=_said(exc))
    return await _overview(request, token, secret=(made["name"], made["secret"]))


async def edit_webhook(request: web.Request) -> web.Response:
    token = await _session(request)
    if token is None:
        return _back()
    form = await _form(request, token)
    who, name = request[PRINCIPAL], request.match_info["name"]
    changes = {"url": str(form.get("url", "")), "events": form.getall("events", []),
               "enabled": form.get("enabled") == "on"}  # fmt: skip
    try:
        if not changes["events"]:
            raise DomainError("Choose at least one event type.")
        await request.app[WEBHOOKS].change(who.customer_id, name, changes, meta_of(request))
    except DomainError as exc:
        return await _overview(request, token, problem=_said(exc))
    return _back()


def _said(exc: Exception) -> str:
    return exc.message if isinstance(exc, DomainError) else str(exc)


async def _overview(request: web.Request, token: str, problem: str = "",
                    secret: tuple[str, str] | None = None) -> web.Response:  # fmt: skip
    who = request[PRINCIPAL]
    reader, csrf = request.app[READER], _csrf(token)
    name = await customer_name_of(reader, who.customer_id) or str(who.customer_id)
    hooks = await _latest(request, "webhook", who.customer_id, 500, "name")
    sent = await _latest(request, "delivery", who.customer_id, RECENT, "id", descending=True)
    said = f'<p class="bad">{escape(problem)}</p>' if problem else ""
    if secret:
        said += (f'<p class=secret>The signing secret of <b>{escape(secret[0])}</b>, shown this once: '
                 f"<code>{escape(secret[1])}</code></p>")  # fmt: skip
    rows = "".join(_webhook_row(hook, csrf) for hook in hooks) or "<tr><td colspan=5>No webhook yet.</td></tr>"
    deliveries = "".join(_delivery_row(d) for d in sent) or "<tr><td colspan=6>No delivery yet.</td></tr>"
    return _page("Webhooks", f"""<h1>Webhooks of {escape(name)}</h1>
<form class=inline method=post action="{BASE}/logout"><input type=hidden name=csrf value="{csrf}">
<button>Log out</button></form>{said}
<h2>Webhooks</h2><table><tr><th>Name</th><th>URL and events</th><th>Enabled</th><th>Failing since</th><th></th></tr>
{rows}</table>
<h2>Add a webhook</h2><form method=post action="{BASE}/webhooks"><input type=hidden name=csrf value="{csrf}">
<p><label>Name <input name=name required></label> <label>URL <input name=url type=url size=50 required></label></p>
<p>{_choices([])}</p><p><button>Add webhook</button></p></form>
<h2>Recent deliveries</h2><table><tr><th>Delivery</th><th>Webhook</th><th>Event</th><th>Call</th><th>Status</th>
<th>Attempts</th></tr>{deliveries}</table>
<form method=get action="{BASE}/calls" onsubmit="location.href='{BASE}/calls/'+this.call.value;return false">
<label>Call flow of call <input name=call size=8></label> <button>Show</button></form>""")  # fmt: skip


async def _latest(request: web.Request, kind: str, customer_id: int, limit: int, sort: str,
                  descending: bool = False) -> list[dict[str, Any]]:  # fmt: skip
    query = {"limit": str(limit), "sort": sort, "dir": "DESC" if descending else "ASC"}
    q = parse(query, properties(Shaped), default_limit=limit, max_limit=request.app[SETTINGS].api.max_page_size)
    bodies, _ = await listing.page(request.app[READER], kind, listing.owned_having(customer_id), q)
    return [msgspec.json.decode(body) for body in bodies]


class Shaped(msgspec.Struct):
    """The properties the dashboard's lists sort by."""

    id: int
    name: str


def _choices(chosen: list[str], form: str = "") -> str:
    owner = f' form="{form}"' if form else ""
    return " ".join(f'<label><input type=checkbox name=events value="{t}"{owner}{" checked" if t in chosen else ""}>'
                    f" {t}</label>" for t in SELECTABLE)  # fmt: skip


def _webhook_row(hook: dict[str, Any], csrf: str) -> str:
    """A webhook's row; its inputs belong to the row's form (`form=`), which a table cell holds."""
    form, name = f"edit-{hook['id']}", escape(hook["name"])
    enabled = " checked" if hook["enabled"] else ""
    url = f'<input name=url type=url size=45 form="{form}" value="{escape(hook["url"])}">'
    failing = escape(" ".join(v for v in (hook.get("failing_since"), hook.get("disabled_reason")) if v))
    action = f"{BASE}/webhooks/{quote(hook['name'])}"
    return (f"<tr><td>{name}</td><td>{url}<br>{_choices(hook['events'], form)}</td>"
            f'<td><input type=checkbox name=enabled form="{form}"{enabled}></td><td>{failing}</td>'
            f'<td><form method=post action="{action}" id="{form}"><input type=hidden name=csrf value="{csrf}">'
            f"<button>Save</button></form></td></tr>")  # fmt: skip


def _delivery_row(delivery: dict[str, Any]) -> str:
    call = delivery.get("call_id")
    link = f'<a href="{BASE}/calls/{call}">{call}</a>' if call is not None else ""
    return (f"<tr><td>{delivery['id']}</td><td>{escape(delivery['webhook'])}</td><td>{escape(delivery['event_name'])}"
            f'</td><td>{link}</td><td class="{delivery["status"]}">{delivery["status"]}</td>'
            f"<td>{delivery['attempts']}</td></tr>")  # fmt: skip


async def call_flow(request: web.Request) -> web.Response:
    token = await _session(request)
    if token is None:
        return _back()
    call_id = int(request.match_info["id"])
    flow = await request.app[WEBHOOKS].call_flow(call_id, request[PRINCIPAL].customer_id)
    if flow is None:
        return _page("Call not found", f"<p>Call {call_id} not found. <a href='{BASE}'>Back</a></p>", 404)
    states = "".join(f"<li>{escape(s['state'])} <small>{escape(s['at'])}</small></li>" for s in flow["states"])
    events = "".join(_event_rows(event) for event in flow["events"])
    return _page(f"Call {call_id}", f"""<p><a href="{BASE}">Webhooks</a></p><h1>Call flow of call {call_id}</h1>
<ol class=timeline>{states}</ol><table><tr><th>Event</th><th>Time</th><th>Delivery</th><th>Webhook</th><th>Status</th>
<th>Attempts (HTTP status, latency, error)</th></tr>{events}</table>""")  # fmt: skip


def _event_rows(event: dict[str, Any]) -> str:
    head = f"<td>{escape(event['event_name'])}</td><td>{escape(event['event_time'])}</td>"
    if not event["deliveries"]:
        return f"<tr>{head}<td colspan=4>no webhook subscribed</td></tr>"
    rows = []
    for d in event["deliveries"]:
        tries = "; ".join(f"{a['status'] or '-'} in {a['latency_ms']} ms{' ' + a['error'] if a['error'] else ''}"
                          for a in d.get("history") or []) or "not yet"  # fmt: skip
        rows.append(f'<tr class=delivery>{head}<td>{d["id"]}</td><td>{escape(d["webhook"])}</td>'
                    f'<td class="{d["status"]}">{d["status"]}</td><td>{escape(tries)}</td></tr>')  # fmt: skip
    return "".join(rows)


def _html() -> Shape:
    return Shape(envelope="file", media="text/html", errors=(403,), tag="webhooks")


def _route(method: str, path: str, handler: Any) -> Route:
    return Route(method, BASE + path, handler, auth=False, origin="telephony", shape=_html())


ROUTES = [
    _route("GET", "", dashboard),
    _route("POST", "/login", login),
    _route("POST", "/logout", logout),
    _route("POST", "/webhooks", add_webhook),
    _route("POST", "/webhooks/{name:[^/]+}", edit_webhook),
    _route("GET", r"/calls/{id:\d{1,18}}", call_flow),
]
