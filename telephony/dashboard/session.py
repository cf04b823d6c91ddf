"""The dashboard's session: its cookie, the CSRF token of its forms, and what a form tells the page
it redirects to.

The session is a login token like the API's (it idles out as v1.2 tokens do) in a cookie (HttpOnly,
SameSite=Strict, path `/_telephony/dashboard`), of a root or admin user. Every form carries a CSRF
token drawn from it, which another site can neither read nor make. A form is answered with a 303 to
a page (Post/Redirect/Get: reloading a page never posts again), and what it did rides along in a
one-time cookie sealed under the data dir's key and bound to the session: a new signing secret is
shown once, and is never in clear on the way.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from typing import Any

import msgspec
from aiohttp import web

from ..accounts import authenticate_token, customer_name_of
from ..api import nul
from ..api.errors import ApiError
from ..domain import acl
from ..keys import ACCOUNTS, PRINCIPAL, READER
from . import layout
from .layout import BASE

COOKIE = "telephony_dashboard"
TOLD = "telephony_dashboard_told"
"""The cookie that carries what a form did to the page it redirects to."""


def csrf(token: str) -> str:
    """The CSRF token of a session's forms, drawn from its login token (which only the browser has)."""
    return hmac.new(token.encode(), b"dashboard-csrf", hashlib.sha256).hexdigest()


async def session(request: web.Request) -> str | None:
    """The session's token, when the cookie holds a live one of a root or admin user."""
    token = request.cookies.get(COOKIE)
    if not token:
        return None
    try:
        await authenticate_token(request, token)
    except ApiError:
        return None
    who = request[PRINCIPAL]
    return token if acl.allowed(who.is_root, list(who.roles), "settings", write=True) else None


async def opened(request: web.Request) -> tuple[str, str] | None:
    """The session's token and the name of its customer; None without a session (show the login)."""
    token = await session(request)
    if token is None:
        return None
    customer_id = request[PRINCIPAL].customer_id
    return token, await customer_name_of(request.app[READER], customer_id) or str(customer_id)


async def form(request: web.Request, token: str) -> Any:
    """A form posted with the session's CSRF token; `Stale` otherwise."""
    posted = await nul.posted(request)
    if not hmac.compare_digest(str(posted.get("csrf", "")), csrf(token)):
        raise Stale
    return posted


class Stale(Exception):
    """A form without the session's CSRF token: another site's, or one from before a new login."""


def back(request: web.Request, said: str = "", *, bad: bool = False, secret: tuple[str, str] | None = None,
          to: str = BASE) -> web.Response:  # fmt: skip
    """After a form: see the page again (303), told what the form did."""
    response = web.Response(status=303, headers={"Location": to})
    if said:
        who = request.get(PRINCIPAL)
        told = {"for": who.token_id if who else "", "said": said, "bad": bad, "secret": secret}
        sealed = request.app[ACCOUNTS].sealer.seal(msgspec.json.encode(told).decode())
        response.set_cookie(TOLD, sealed, httponly=True, samesite="Strict", path=BASE, max_age=300,
                            secure=request.secure)  # fmt: skip
    return response


def _heard(request: web.Request, token_id: str) -> str:
    """What the form before told this page, for this session only (`token_id`: its token's id)."""
    sealed = request.cookies.get(TOLD)
    if not sealed:
        return ""
    try:
        told = msgspec.json.decode(request.app[ACCOUNTS].sealer.unseal(sealed))
    except (ValueError, msgspec.DecodeError):
        return ""
    if told.get("for") != token_id:
        return ""
    return layout.outcome(str(told["said"]), bool(told["bad"]), tuple(told["secret"]) if told["secret"] else None)


def shown(request: web.Request, title: str, render: Callable[[str], str], token: str = "", **options: Any
          ) -> web.Response:  # fmt: skip
    """A page, with what the form before it did (`render` places it), once; `options` as `layout.page`
    takes them (a session's page has the navigation and its log-out form). Only a navigation takes
    what the form did: a page's script reading its live regions (`Sec-Fetch-Mode` other than
    `navigate`) leaves it for the page the form leads to."""
    who = request.get(PRINCIPAL)
    if token:
        options = {"logout": csrf(token), **options}
    navigated = request.headers.get("Sec-Fetch-Mode", "navigate") == "navigate"
    response = layout.page(title, render(_heard(request, who.token_id if token and who and navigated else "")),
                           **options)  # fmt: skip
    if TOLD in request.cookies and navigated:
        response.del_cookie(TOLD, path=BASE)
    return response
