"""What the wallboard shows of a tenant at a moment: its live calls, each queue with its callers and
its agents' states, today's counts and the latest call records, read from the projections the API
reads (live calls, queue records, documents), never from another customer's.

An agent of a queue is `logged out` (its member status off), `ringing` (a call is reaching it: its
phone rings, or the call is being put through to it), `on a call` (any other live call it takes part
in), `wrap-up` (its last call of the queue ended less than the queue's `wrap_up_time` ago) or `free`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from aiohttp import web

from ..calls import LiveCalls, QueueRecords, live_call
from ..domain.calls.call import Call
from ..keys import CALLS, CLOCK, MEMORY
from . import recent
from .today import Counts, TodayCounts

MOST_QUEUES, MOST_USERS, RECENT_CDRS = 50, 1000, 10


@dataclass(frozen=True)
class Agent:
    user_id: int
    name: str
    logged_in: bool
    state: str


@dataclass(frozen=True)
class Queue:
    """A queue as the wallboard shows it: its callers as live calls, with `queued_at` (when each joined)."""

    id: int
    name: str
    callers: list[dict[str, Any]]
    agents: list[Agent]


class Floor(NamedTuple):
    """The wallboard at `now`: the parts of the page, each read at that one moment of the clock."""

    now: float
    """The clock's time, in epoch seconds."""
    flowing: bool
    """Whether the clock flows with real time (a virtual one moves only when it is moved)."""
    calls: list[dict[str, Any]]
    """The live calls (the API's LiveCall), each with the leg being reached (`reaching`)."""
    queues: list[Queue]
    today: Counts
    cdrs: list[dict[str, Any]]


async def floor_of(request: web.Request, customer_id: int) -> Floor:
    app = request.app
    clock, live, memory = app[CLOCK], app[CALLS].live, app[MEMORY]
    now = clock.time()
    calls = live.of_customer(customer_id)
    users = {u["id"]: _name(u) for u in await recent.documents(request, "user", customer_id, MOST_USERS)}
    queues = [_queue(q, live, memory[QueueRecords], users, customer_id, now)
              for q in await recent.documents(request, "queue", customer_id, MOST_QUEUES, "name")]  # fmt: skip
    cdrs = await recent.documents(request, "cdr", customer_id, RECENT_CDRS, descending=True)
    shown = [{**live_call(c, now), "reaching": c.reaching} for c in reversed(calls)]
    return Floor(now=now, flowing=not clock.is_virtual, calls=shown,
                 queues=queues, today=memory[TodayCounts].of(customer_id, now), cdrs=cdrs)  # fmt: skip


def _name(user: dict[str, Any]) -> str:
    named = " ".join(part for part in (user.get("first_name"), user.get("last_name")) if part)
    return named or user.get("email") or f"user {user['id']}"


def _queue(queue: dict[str, Any], live: LiveCalls, records: QueueRecords, users: dict[int, str], customer_id: int,
           now: float) -> Queue:  # fmt: skip
    callers = [{**live_call(c, now), "queued_at": c.queued_at} for c in live.of_queue(customer_id, queue["id"])]
    wrap_up = float(queue.get("wrap_up_time") or 0)
    agents = []
    for member in queue.get("users") or ():
        user_id, logged_in = _member(member)
        last_ended = records.served.get((queue["id"], user_id), (0, None))[1]
        state = agent_state(user_id, logged_in, live.of_customer(customer_id, user_id), last_ended, wrap_up, now)
        agents.append(Agent(user_id, users.get(user_id, f"user {user_id}"), logged_in, state))
    return Queue(queue["id"], queue.get("name") or f"queue {queue['id']}", callers, agents)


def _member(member: Any) -> tuple[int, bool]:
    """A queue's member as stored, `{id, status}`, or a bare id (logged in)."""
    return (member["id"], bool(member.get("status", True))) if isinstance(member, dict) else (member, True)


def agent_state(user_id: int, logged_in: bool, calls: list[Call], last_ended: float | None, wrap_up: float,
                now: float) -> str:  # fmt: skip
    """Where an agent of a queue stands (see the module's docstring)."""
    if not logged_in:
        return "logged out"
    if any(call.reaching is not None and call.party(call.reaching).user_id == user_id for call in calls):
        return "ringing"
    if calls:
        return "on a call"
    if last_ended is not None and now < last_ended + wrap_up:
        return "wrap-up"
    return "free"
