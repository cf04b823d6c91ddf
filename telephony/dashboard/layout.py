"""The dashboard's page shell: the HTML around every page, its headers, its own stylesheet and script.

Every answer carries the headers that keep a page in its own tab and origin (`headers`): `X-Frame-Options:
DENY`, a Content-Security-Policy that lets load only this origin's stylesheet and script (`static/`,
served by `asset`, each on a route of its own), lets the script reach only this origin (its event
stream, its pages) and forms post only to this origin, `X-Content-Type-Options: nosniff`,
`Referrer-Policy: no-referrer` and `Cache-Control: no-store` (a page holds CSRF tokens, and once a
signing secret). Every value is escaped where it is written.
"""

from __future__ import annotations

import functools
from html import escape
from importlib import resources

from aiohttp import web

BASE = "/_telephony/dashboard"
ASSETS = {"dashboard.css": "text/css", "dashboard.js": "text/javascript", "favicon.svg": "image/svg+xml"}
"""The files of `static/`, the only ones served, with their media types (the icon: a browser asks
every page for one, and logs a missing one as an error)."""
NAV = (("", "Wallboard"), ("/webhooks", "Webhooks"))


@functools.cache
def headers() -> dict[str, str]:
    """The headers of every dashboard answer, its redirects included."""
    policy = ("default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self'; "
              "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")  # fmt: skip
    return {"Content-Security-Policy": policy, "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}  # fmt: skip


def page(title: str, body: str, status: int = 200, *, here: str | None = None, live: str = "",
         logout: str = "") -> web.Response:  # fmt: skip
    """A whole page: `here` is the navigation entry it is (None: no navigation, before a login); `live`
    the attributes that make the script follow the event stream; `logout` the session's CSRF token."""
    nav = _nav(here, logout) if here is not None else ""
    html = (f'<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport '
            f'content="width=device-width, initial-scale=1"><title>{escape(title)} · telephony</title>'
            f'<link rel=icon href="{BASE}/static/favicon.svg" type="image/svg+xml">'
            f'<link rel=stylesheet href="{BASE}/static/dashboard.css"><script defer src="{BASE}/static/dashboard.js">'
            f'</script></head><body><a class=skip href="#main">Skip to the content</a>{nav}'
            f'<main id=main{live}>{body}</main></body></html>')  # fmt: skip
    return web.Response(text=html, content_type="text/html", status=status)


def _nav(here: str, csrf: str) -> str:
    links = "".join(f'<li><a href="{BASE}{path}"{" aria-current=page" if path == here else ""}>{name}</a></li>'
                    for path, name in NAV)  # fmt: skip
    out = (f'<form method=post action="{BASE}/logout">{csrf_field(csrf)}<button class=quiet>Log out</button></form>'
           if csrf else "")  # fmt: skip
    return (f'<header class=top><p class=brand>telephony</p><nav aria-label="Dashboard"><ul>{links}</ul></nav>'
            f"{out}</header>")  # fmt: skip


def csrf_field(csrf: str) -> str:
    return f'<input type=hidden name=csrf value="{escape(csrf)}">'


def problem(status: int, title: str, message: str) -> web.Response:
    """A page saying what went wrong (an unknown call, a stale form), with the way back."""
    return page(title, f'<h1>{escape(title)}</h1><p class=bad role=alert>{escape(message)}</p><p><a href="{BASE}">'
                       "Back to the wallboard</a></p>", status)  # fmt: skip


def outcome(said: str, bad: bool, secret: tuple[str, str] | None = None) -> str:
    """What the last form did, shown on the page it was redirected to (a signing secret, once)."""
    html = f'<p class="note {"bad" if bad else "good"}" role=status>{escape(said)}</p>' if said else ""
    if secret:
        html += (f"<p class=secret>The signing secret of <b>{escape(secret[0])}</b>, shown this once: "
                 f"<code>{escape(secret[1])}</code></p>")  # fmt: skip
    return html


def login(said: str) -> str:
    return f"""<section class="card narrow" aria-labelledby=login-title><h1 id=login-title>Dashboard</h1>
<p>Log in with a root or admin user's email and password.</p>{said}
<form method=post action="{BASE}/login" class=stacked><label>Email <input name=email type=email autocomplete=username
required></label><label>Password <input name=password type=password autocomplete=current-password required></label>
<button>Log in</button></form></section>"""


async def asset(request: web.Request) -> web.Response:
    """One of the dashboard's own static files: its stylesheet, its script and its icon (no other file)."""
    name = request.path.rpartition("/")[2]
    text = resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")
    return web.Response(text=text, content_type=ASSETS[name], charset="utf-8")
