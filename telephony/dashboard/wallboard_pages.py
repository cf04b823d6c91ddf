"""The wallboard page: today's counts, the live calls, each queue with its callers and agents (a
button logs an agent in or out), and the latest call records (when each call ended) with a link to
each call's flow.

A call's state is shown in a supervisor's words (`labels`: waiting in queue, ringing an agent,
talking), the API's state as its title. Each part is a live region (`data-region`,
`aria-live=polite`) that the page's script replaces when the event stream says something changed; a
running duration is a `data-since` element the script moves on every second while the clock flows
(`data-flowing` on the clock region). Every value is escaped.
"""

from __future__ import annotations

from datetime import timedelta
from html import escape
from typing import Any

from ..clock import parse_wire_time, wire_time
from .floor import Floor, Queue
from .labels import call_label
from .layout import BASE, csrf_field

LIVE = "aria-live=polite"


def wallboard(customer: str, csrf: str, floor: Floor, said: str) -> str:
    return f"""<h1>Wallboard of {escape(customer)}</h1>{said}
<p class=clock data-region=clock data-now="{floor.now:.3f}" data-flowing="{int(floor.flowing)}">Clock
<time>{wire_time(floor.now)}</time> UTC{"" if floor.flowing else " (moved by the operator only)"}</p>
<div class=board>{_today(floor)}{_calls(floor)}{_queues(floor, csrf)}{_cdrs(floor)}</div>"""


def duration(seconds: float) -> str:
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def _running(since: float | None, now: float) -> str:
    if since is None:
        return ""
    return f'<span class=duration data-since="{since:.3f}">{duration(now - since)}</span>'


def _today(floor: Floor) -> str:
    today = floor.today
    wait = "–" if today.average_wait is None else duration(today.average_wait)
    return f"""<section class="card today" aria-labelledby=today-title><h2 id=today-title>Today</h2>
<dl class=counts data-region=today {LIVE}><div><dt>Answered</dt><dd id=answered>{today.answered}</dd></div>
<div><dt>Missed</dt><dd id=missed>{today.missed}</dd></div><div><dt>Average wait</dt><dd id=average-wait>{wait}</dd>
</div></dl></section>"""


def _party(number: Any, name: Any) -> str:
    return escape(" · ".join(str(part) for part in (name, number) if part) or "unknown")


def _calls(floor: Floor) -> str:
    rows = "".join(f'<tr data-call="{int(c["id"])}"><td><a href="{BASE}/calls/{int(c["id"])}">{int(c["id"])}</a></td>'
                   f'<td>{_party(c["src"], c["src_name"])}</td><td>{_party(c["dst"], c["dst_name"])}</td>'
                   f"<td>{_state(c)}</td>"
                   f'<td>{_running(c["start_time"], floor.now)}</td></tr>' for c in floor.calls)  # fmt: skip
    body = rows or "<tr><td colspan=5 class=empty>No live call.</td></tr>"
    return f"""<section class="card calls" aria-labelledby=calls-title><h2 id=calls-title>Live calls</h2>
<div class=scroll data-region=calls {LIVE}><p class=hint>{_many(len(floor.calls), "live call")}</p><table id=live-calls>
<thead><tr><th scope=col>Call</th><th scope=col>From</th><th scope=col>To</th><th scope=col>State</th>
<th scope=col>Duration</th></tr></thead><tbody>{body}</tbody></table></div></section>"""


def _state(call: dict[str, Any]) -> str:
    """A live call's state in a supervisor's words (`labels`), the API's state as its title."""
    label, state = call_label(call), escape(str(call["state"]))
    return f'<span class="state {label.kind}" data-state="{state}" title="state {state}">{escape(label.words)}</span>'


def _many(count: int, thing: str) -> str:
    return f"{count} {thing}{'' if count == 1 else 's'}"


def _queues(floor: Floor, csrf: str) -> str:
    queues = "".join(_queue(q, floor.now, csrf) for q in floor.queues) or "<p class=empty>No queue.</p>"
    return f"""<section class="card queues" aria-labelledby=queues-title><h2 id=queues-title>Queues</h2>
<div data-region=queues {LIVE}>{queues}</div></section>"""


def _queue(queue: Queue, now: float, csrf: str) -> str:
    name = escape(queue.name)
    waiting = [c for c in queue.callers if c["queue_state"] != "connected"]
    callers = "".join(f'<li>{_party(c["src"], c["src_name"])} {_state(c)} {_running(c["queued_at"], now)}</li>'
                      for c in waiting) or "<li class=empty>Nobody waiting.</li>"  # fmt: skip
    agents = "".join(_agent(queue, a.user_id, a.name, a.logged_in, a.state, csrf) for a in queue.agents)
    return f"""<article class=queue data-queue="{queue.id}" aria-labelledby=queue-{queue.id}>
<h3 id=queue-{queue.id}>{name} <span class=count title="callers waiting">{len(waiting)} waiting</span></h3>
<h4>Callers</h4><ul class=callers>{callers}</ul><h4>Agents</h4>
<ul class=agents>{agents or "<li class=empty>No agent.</li>"}</ul></article>"""


def _agent(queue: Queue, user_id: int, name: str, logged_in: bool, state: str, csrf: str) -> str:
    who, where = escape(name), escape(queue.name)
    change, word = ("out", "Log out") if logged_in else ("in", "Log in")
    label = f"Log {who} {'out of' if logged_in else 'in to'} {where}"
    return (f'<li data-agent="{user_id}"><span class=who>{who}</span> <span class="agent {state.replace(" ", "-")}">'
            f'{escape(state)}</span><form class=inline method=post action="{BASE}/agents">{csrf_field(csrf)}'
            f'<input type=hidden name=queue value={queue.id}><input type=hidden name=user value={user_id}>'
            f'<input type=hidden name=status value={change}>'
            f'<button class=quiet aria-label="{label}">{word}</button></form></li>')  # fmt: skip


def _cdrs(floor: Floor) -> str:
    rows = "".join(f"<tr><td>{_ended(c)}</td><td>{_party(c.get('src'), c.get('src_name'))}"
                   f'</td><td>{_party(c.get("dst"), c.get("dst_name"))}</td><td>{escape(str(c.get("disposition")))}'
                   f'</td><td>{duration(c.get("duration") or 0)}</td><td>{_flow(c.get("live_id"))}</td></tr>'
                   for c in floor.cdrs)  # fmt: skip
    body = rows or "<tr><td colspan=6 class=empty>No call record yet.</td></tr>"
    return f"""<section class="card cdrs" aria-labelledby=cdrs-title><h2 id=cdrs-title>Recent call records</h2>
<div class=scroll data-region=cdrs {LIVE}><table id=recent-cdrs><thead><tr><th scope=col>Ended</th>
<th scope=col>From</th><th scope=col>To</th><th scope=col>Outcome</th><th scope=col>Duration</th>
<th scope=col><span class=sr>Call flow</span></th></tr></thead><tbody>{body}</tbody></table></div></section>"""


def _ended(cdr: dict[str, Any]) -> str:
    """When a record's call ended (its `calldate` is when it was placed): the records shown are the
    latest by id, and a call's record takes its id as the call ends, so the column reads in order
    (an imported record takes its id as it is imported)."""
    try:
        return wire_time(parse_wire_time(str(cdr["calldate"])) + timedelta(seconds=int(cdr.get("duration") or 0)))
    except (KeyError, ValueError, TypeError):
        return escape(str(cdr.get("calldate") or ""))


def _flow(live_id: Any) -> str:
    if not isinstance(live_id, int):
        return ""
    return f'<a href="{BASE}/calls/{live_id}" aria-label="Call flow of call {live_id}">Call flow</a>'
