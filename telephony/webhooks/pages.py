"""The dashboard's pages: server-rendered HTML, every value escaped, no external assets.

Every page carries the headers that keep it in its own tab and origin (`HEADERS`): `X-Frame-Options:
DENY`, a Content-Security-Policy that lets run only the page's own style and script (by their
SHA-256) and lets forms post only to this origin, `X-Content-Type-Options: nosniff`, `Referrer-Policy:
no-referrer` and `Cache-Control: no-store` (a page holds CSRF tokens, and once a signing secret).
Forms are plain posts; the one script asks before a form marked `data-confirm` deletes something.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from collections.abc import Iterable
from html import escape
from typing import Any
from urllib.parse import quote

from aiohttp import web

from ..domain.webhooks import SELECTABLE

BASE = "/_telephony/dashboard"
STYLE = """body{font:14px system-ui,sans-serif;margin:2em;max-width:80em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}
.failed,.bad{color:#b00}.delivered,.good{color:#070}.pending{color:#a60}form.inline{display:inline}
.timeline li{display:inline-block;margin-right:1em}.secret{background:#ffd;padding:.5em}
ol.attempts{margin:0;padding-left:1.5em}small{color:#666}"""
SCRIPT = """document.querySelectorAll('form[data-confirm]').forEach(f => f.addEventListener('submit',
  e => { if (!confirm(f.dataset.confirm)) e.preventDefault(); }));"""


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


@functools.cache
def headers() -> dict[str, str]:
    """The headers of every dashboard answer, its redirects included."""
    policy = (f"default-src 'none'; style-src {_digest(STYLE)}; script-src {_digest(SCRIPT)}; form-action 'self'; "
              "frame-ancestors 'none'; base-uri 'none'")  # fmt: skip
    return {"Content-Security-Policy": policy, "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}  # fmt: skip


def page(title: str, body: str, status: int = 200) -> web.Response:
    html = (f"<!doctype html><html><head><meta charset=utf-8><title>{escape(title)}</title><style>{STYLE}</style>"
            f"</head><body>{body}<script>{SCRIPT}</script></body></html>")  # fmt: skip
    return web.Response(text=html, content_type="text/html", status=status)


def problem(status: int, title: str, message: str) -> web.Response:
    """A page saying what went wrong (an unknown call, a stale form), with the way back."""
    return page(title, f'<h1>{escape(title)}</h1><p class="bad">{escape(message)}</p><p><a href="{BASE}">'
                       "Back to the webhooks</a></p>", status)  # fmt: skip


def outcome(said: str, bad: bool, secret: tuple[str, str] | None = None) -> str:
    """What the last form did, shown on the page it was redirected to (a signing secret, once)."""
    html = f'<p class="{"bad" if bad else "good"}">{escape(said)}</p>' if said else ""
    if secret:
        html += (f"<p class=secret>The signing secret of <b>{escape(secret[0])}</b>, shown this once: "
                 f"<code>{escape(secret[1])}</code></p>")  # fmt: skip
    return html


def login(said: str) -> str:
    return f"""<h1>Webhooks dashboard</h1>{said}
<form method=post action="{BASE}/login"><p><label>Email <input name=email type=email required></label></p>
<p><label>Password <input name=password type=password required></label></p><p><button>Log in</button></p></form>"""


def overview(customer: str, csrf: str, hooks: list[dict[str, Any]], sent: list[dict[str, Any]], said: str) -> str:
    rows = "".join(_webhook_row(hook, csrf) for hook in hooks) or "<tr><td colspan=5>No webhook yet.</td></tr>"
    deliveries = "".join(_delivery_row(d, csrf) for d in sent) or "<tr><td colspan=9>No delivery yet.</td></tr>"
    return f"""<h1>Webhooks of {escape(customer)}</h1>
<form class=inline method=post action="{BASE}/logout">{_csrf(csrf)}<button>Log out</button></form>{said}
<h2>Webhooks</h2><table><tr><th>Name</th><th>URL and events</th><th>Enabled</th><th>Failing since</th><th></th></tr>
{rows}</table>
<h2>Add a webhook</h2><form method=post action="{BASE}/webhooks">{_csrf(csrf)}
<p><label>Name <input name=name required></label> <label>URL <input name=url type=url size=50 required></label></p>
<p>{_choices([])}</p><p><button>Add webhook</button></p></form>
<h2>Recent deliveries</h2><p><small>Times are the server's clock, UTC.</small></p><table><tr><th>Delivery</th>
<th>Queued</th><th>Webhook</th><th>Event</th><th>Call</th><th>Status</th><th>Attempts</th><th>Next attempt</th><th></th>
</tr>{deliveries}</table>
<form method=get action="{BASE}/calls"><label>Call flow of call <input name=call size=12 required></label>
<button>Show</button></form>"""


def _csrf(csrf: str) -> str:
    return f'<input type=hidden name=csrf value="{escape(csrf)}">'


def _choices(chosen: Iterable[str], form: str = "") -> str:
    owner, chosen = (f' form="{escape(form)}"' if form else ""), set(chosen)
    return " ".join(f'<label><input type=checkbox name=events value="{t}"{owner}{" checked" if t in chosen else ""}>'
                    f" {t}</label>" for t in SELECTABLE)  # fmt: skip


def _webhook_row(hook: dict[str, Any], csrf: str) -> str:
    """A webhook's row; its inputs belong to the row's form (`form=`), which a table cell holds."""
    form, name = f"edit-{hook['id']}", escape(hook["name"])
    enabled = " checked" if hook["enabled"] else ""
    url = f'<input name=url type=url size=45 form="{form}" value="{escape(hook["url"])}">'
    failing = escape(" ".join(v for v in (hook.get("failing_since"), hook.get("disabled_reason")) if v))
    named = quote(hook["name"], safe="")
    action, delete = escape(f"{BASE}/webhooks/{named}"), escape(f"{BASE}/delete/{named}")
    confirm = escape(f"Delete the webhook {hook['name']}? Its receiver gets nothing more.")
    return (f"<tr><td>{name}</td><td>{url}<br>{_choices(hook['events'], form)}</td>"
            f'<td><input type=checkbox name=enabled form="{form}"{enabled}></td><td>{failing}</td>'
            f'<td><form class=inline method=post action="{action}" id="{form}">{_csrf(csrf)}<button>Save</button>'
            f'</form> <form class=inline method=post action="{delete}" data-confirm="{confirm}">'
            f"{_csrf(csrf)}<button>Delete</button></form></td></tr>")  # fmt: skip


def _attempts(delivery: dict[str, Any]) -> str:
    """Each attempt: its time, the HTTP status (or none), the latency, the error."""
    items = "".join(f"<li>{escape(a['at'])}: {a['status'] or 'no answer'} in {a['latency_ms']} ms"
                    f"{escape(', ' + a['error']) if a.get('error') else ''}</li>"
                    for a in delivery.get("history") or [])  # fmt: skip
    return f"<ol class=attempts>{items}</ol>" if items else "not yet"


def _redeliver(delivery: dict[str, Any], csrf: str, back: str = "") -> str:
    """The button that queues the delivery's event again, to the same webhook (a new delivery)."""
    return (f'<form class=inline method=post action="{BASE}/redeliver/{int(delivery["id"])}">'
            f'{_csrf(csrf)}<input type=hidden name=back value="{escape(back)}">'
            "<button>Redeliver</button></form>")  # fmt: skip


def _status(delivery: dict[str, Any]) -> str:
    status = escape(delivery["status"])
    return f'<td class="{status}">{status}</td>'


def _delivery_row(delivery: dict[str, Any], csrf: str) -> str:
    call = delivery.get("call_id")
    link = f'<a href="{BASE}/calls/{int(call)}">{int(call)}</a>' if call is not None else ""
    return (f"<tr><td>{int(delivery['id'])}</td><td>{escape(delivery['created_at'])}</td>"
            f"<td>{escape(delivery['webhook'])}</td><td>{escape(delivery['event_name'])}</td><td>{link}</td>"
            f"{_status(delivery)}<td>{_attempts(delivery)}</td><td>{escape(delivery.get('next_at') or '')}</td>"
            f"<td>{_redeliver(delivery, csrf)}</td></tr>")  # fmt: skip


def flow(call_id: int, found: dict[str, Any], csrf: str, said: str) -> str:
    """A call's flow: its states on a time line, and each event with its deliveries and their attempts."""
    states = "".join(f"<li>{escape(s['state'])} <small>{escape(s['at'])}</small></li>" for s in found["states"])
    events = "".join(_event_rows(event, csrf, f"calls/{call_id}") for event in found["events"])
    return f"""<p><a href="{BASE}">Webhooks</a></p><h1>Call flow of call {call_id}</h1>{said}
<p><small>Times are the server's clock, UTC.</small></p><ol class=timeline>{states}</ol>
<table><tr><th>Event</th><th>Time</th><th>Delivery</th><th>Queued</th><th>Webhook</th><th>Status</th><th>Attempts</th>
<th></th></tr>{events}</table>"""


def _event_rows(event: dict[str, Any], csrf: str, back: str) -> str:
    head = f"<td>{escape(event['event_name'])}</td><td>{escape(event['event_time'])}</td>"
    if not event["deliveries"]:
        return f"<tr>{head}<td colspan=6>no webhook subscribed</td></tr>"
    return "".join(f"<tr class=delivery>{head}<td>{int(d['id'])}</td><td>{escape(d['created_at'])}</td>"
                   f"<td>{escape(d['webhook'])}</td>{_status(d)}<td>{_attempts(d)}</td>"
                   f"<td>{_redeliver(d, csrf, back)}</td></tr>" for d in event["deliveries"])  # fmt: skip
