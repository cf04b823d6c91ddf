"""The webhooks pages: the webhooks of the customer (edit, enable, delete, add one), their recent
deliveries with each attempt's time (redeliver one), and a call's flow: where it was routed, its
states on a time line and each of its events with every delivery and attempt, each redeliverable.
Forms are plain posts; the page's script asks before a form marked `data-confirm` deletes something.
Every value is escaped.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape
from typing import Any
from urllib.parse import quote

from ..clock import wire_time
from ..domain.webhooks import SELECTABLE
from .hops import Hop
from .layout import BASE, csrf_field

TIMES = "<p class=hint>Times are the server's clock, UTC.</p>"


def overview(customer: str, csrf: str, hooks: list[dict[str, Any]], sent: list[dict[str, Any]],
             waiting: dict[int, int], said: str) -> str:  # fmt: skip
    """The webhooks page; `waiting`: the delivery each pending one waits behind, by id."""
    rows = "".join(_webhook_row(hook, csrf) for hook in hooks) or "<tr><td colspan=3>No webhook yet.</td></tr>"
    deliveries = "".join(_delivery_row(d, waiting.get(d["id"]), csrf) for d in sent) or (
        "<tr><td colspan=9>No delivery yet.</td></tr>")  # fmt: skip
    return f"""<h1>Webhooks of {escape(customer)}</h1>{said}
<section class=card aria-labelledby=hooks-title><h2 id=hooks-title>Webhooks</h2><div class=scroll><table>
<thead><tr><th scope=col>Name</th><th scope=col>URL, events, enabled</th>
<th scope=col><span class=sr>Actions</span></th></tr></thead><tbody>{rows}</tbody>
</table></div></section>
<section class=card aria-labelledby=add-title><h2 id=add-title>Add a webhook</h2>
<form method=post action="{BASE}/webhooks" class=stacked>{csrf_field(csrf)}
<label>Name <input name=name required></label><label>URL <input name=url type=url required></label>
<fieldset class=choices><legend>Event types</legend>{_choices([])}</fieldset><button>Add webhook</button></form>
</section>
<section class=card aria-labelledby=sent-title><h2 id=sent-title>Recent deliveries</h2>{TIMES}
<div class=scroll data-region=deliveries aria-live=polite><table class=deliveries><thead><tr><th scope=col>Delivery</th>
<th scope=col>Queued</th><th scope=col>Webhook</th><th scope=col>Event</th><th scope=col>Call</th>
<th scope=col>Status</th><th scope=col>Attempts</th><th scope=col>Next attempt</th>
<th scope=col><span class=sr>Actions</span></th></tr></thead><tbody>{deliveries}</tbody></table></div>
<form method=get action="{BASE}/calls" class=row><label>Call flow of call <input name=call size=12 inputmode=numeric
required></label> <button>Show</button></form></section>"""


def _choices(chosen: Iterable[str], form: str = "") -> str:
    owner, chosen = (f' form="{escape(form)}"' if form else ""), set(chosen)
    return " ".join(f'<label class=check><input type=checkbox name=events value="{t}"{owner}'
                    f'{" checked" if t in chosen else ""}> {t}</label>' for t in SELECTABLE)  # fmt: skip


def _webhook_row(hook: dict[str, Any], csrf: str) -> str:
    """A webhook's row; its inputs belong to the row's form (`form=`), which a table cell holds. The URL,
    the events and whether it is enabled share a cell, and since when it fails is said under its name,
    so that its actions stay in view on a phone."""
    form, name = f"edit-{hook['id']}", escape(hook["name"])
    enabled = " checked" if hook["enabled"] else ""
    url = (f'<input name=url type=url size=40 form="{form}" value="{escape(hook["url"])}" '
           f'aria-label="URL of {name}">')  # fmt: skip
    failing = " ".join(v for v in (hook.get("failing_since"), hook.get("disabled_reason")) if v)
    failing = f"<p class=failing>failing since {escape(failing)}</p>" if failing else ""
    named = quote(hook["name"], safe="")
    action, delete = escape(f"{BASE}/webhooks/{named}"), escape(f"{BASE}/delete/{named}")
    confirm = escape(f"Delete the webhook {hook['name']}? Its receiver gets nothing more.")
    return (f"<tr><th scope=row>{name}{failing}</th><td>{url}<br>{_choices(hook['events'], form)}<br>"
            f'<label class=check><input type=checkbox name=enabled form="{form}"{enabled} aria-label="{name} enabled">'
            " enabled</label></td>"
            f'<td class=actions><form class=inline method=post action="{action}" id="{form}">'
            f'{csrf_field(csrf)}<button aria-label="Save {name}">Save</button></form> <form class=inline method=post '
            f'action="{delete}" data-confirm="{confirm}">{csrf_field(csrf)}<button class=danger '
            f'aria-label="Delete {name}">Delete</button></form></td></tr>')  # fmt: skip


def _attempts(delivery: dict[str, Any]) -> str:
    """Each attempt: its time, the HTTP status (or none), the latency, the error."""
    items = "".join(f"<li>{escape(a['at'])}: {a['status'] or 'no answer'} in {a['latency_ms']} ms"
                    f"{escape(', ' + a['error']) if a.get('error') else ''}</li>"
                    for a in delivery.get("history") or [])  # fmt: skip
    return f"<ol class=attempts>{items}</ol>" if items else "not yet"


def _redeliver(delivery: dict[str, Any], csrf: str, back: str = "") -> str:
    """The button that queues the delivery's event again, to the same webhook (a new delivery)."""
    number = int(delivery["id"])
    return (f'<form class=inline method=post action="{BASE}/redeliver/{number}">'
            f'{csrf_field(csrf)}<input type=hidden name=back value="{escape(back)}">'
            f'<button aria-label="Redeliver delivery {number}">Redeliver</button></form>')  # fmt: skip


def _status(delivery: dict[str, Any]) -> str:
    status = escape(delivery["status"])
    return f'<td><span class="badge {status}">{status}</span></td>'


def _delivery_row(delivery: dict[str, Any], behind: int | None, csrf: str) -> str:
    """A delivery's row; one waiting behind another of its lane (a failing one, being retried) is sent
    after it, whatever time it was queued at."""
    call = delivery.get("call_id")
    next_at = f"after delivery {behind}" if behind is not None else delivery.get("next_at") or ""
    link = f'<a href="{BASE}/calls/{int(call)}">{int(call)}</a>' if call is not None else ""
    return (f"<tr><td>{int(delivery['id'])}</td><td>{escape(delivery['created_at'])}</td>"
            f"<td>{escape(delivery['webhook'])}</td><td>{escape(delivery['event_name'])}</td><td>{link}</td>"
            f"{_status(delivery)}<td>{_attempts(delivery)}</td><td>{escape(next_at)}</td>"
            f"<td>{_redeliver(delivery, csrf)}</td></tr>")  # fmt: skip


def flow(call_id: int, found: dict[str, Any], routing: list[Hop], csrf: str, said: str) -> str:
    """A call's flow: where it was routed (`hops`), its states on a time line, and each event with its
    deliveries and their attempts."""
    states = "".join(f'<li><span class="state {escape(s["state"])}">{escape(s["state"])}</span> '
                     f"<time>{escape(s['at'])}</time></li>" for s in found["states"])  # fmt: skip
    events = "".join(_event_rows(event, csrf, f"calls/{call_id}") for event in found["events"])
    return f"""<p><a href="{BASE}">Back to the wallboard</a></p><h1>Call flow of call {call_id}</h1>{said}{TIMES}
<section class=card aria-labelledby=hops-title><h2 id=hops-title>Routing</h2>
<ol class=hops data-region=hops aria-live=polite>{_hops(call_id, routing)}</ol></section>
<section class=card aria-labelledby=line-title><h2 id=line-title>States</h2>
<ol class=timeline data-region=timeline aria-live=polite>{states}</ol></section>
<section class=card aria-labelledby=events-title><h2 id=events-title>Events and their deliveries</h2>
<div class=scroll data-region=events aria-live=polite><table><thead><tr><th scope=col>Event</th><th scope=col>Time</th>
<th scope=col>Delivery</th><th scope=col>Queued</th><th scope=col>Webhook</th><th scope=col>Status</th>
<th scope=col>Attempts</th><th scope=col><span class=sr>Actions</span></th></tr></thead><tbody>{events}</tbody>
</table></div></section>"""


def _hops(call_id: int, routing: list[Hop]) -> str:
    """Each hop: when, what kind of destination and which, what came of it, and the call it was in
    when the caller went through more than one (a link to that call's flow)."""
    several = len({hop.call_id for hop in routing}) > 1
    items = []
    for hop in routing:
        call = ""
        if several:
            call = (f' <a class=call href="{BASE}/calls/{hop.call_id}">call {hop.call_id}</a>'
                    if hop.call_id != call_id else f" <span class=call>call {hop.call_id}</span>")  # fmt: skip
        outcome = f" <span class=outcome>{escape(hop.outcome)}</span>" if hop.outcome else ""
        items.append(f"<li><time>{wire_time(hop.at)}</time> <b>{escape(hop.kind)}</b> {escape(hop.name)}{outcome}"
                     f"{call}</li>")  # fmt: skip
    return "".join(items) or "<li class=empty>No routing: the call went where it was placed.</li>"


def _event_rows(event: dict[str, Any], csrf: str, back: str) -> str:
    head = f"<td>{escape(event['event_name'])}</td><td>{escape(event['event_time'])}</td>"
    if not event["deliveries"]:
        return f"<tr>{head}<td colspan=6>no webhook subscribed</td></tr>"
    return "".join(f"<tr class=delivery>{head}<td>{int(d['id'])}</td><td>{escape(d['created_at'])}</td>"
                   f"<td>{escape(d['webhook'])}</td>{_status(d)}<td>{_attempts(d)}</td>"
                   f"<td>{_redeliver(d, csrf, back)}</td></tr>" for d in event["deliveries"])  # fmt: skip
