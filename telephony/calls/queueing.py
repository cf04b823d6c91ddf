"""Queues: callers wait, in the order they joined, while the queue rings its free agents.

A caller joins a queue (context `QUEUE`) unless the queue has `max_callers` callers already (not
counting those talking to an agent), or no agent is logged in and `join_empty` is off: then the
queue turns it away to its final destination. The queue answers the caller as it joins (the call is
CONNECTED from then on, and billed from then on), and holds it in the same call until it hangs up:
while it waits, the live call's `queue_state` is `waiting` and its `dst` is the queue; the queue
rings the agent the caller's place in the line leaves it (`domain.calls.queue`: strategies, order,
wrap-up) for `ring_time` (`ringing`), and looks again every `retry` seconds while there is none. An
agent who answers takes the call (`connected`); after `max_wait_time` in the queue the caller goes
to the final destination, still in that call.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..documents import reads
from ..domain.calls import queue as line
from ..domain.calls.call import Call, Party, Target
from ..domain.dictionaries import QUEUE_RING_STRATEGY
from ..eventlog.connection import Connection
from .destinations import (
    Floor,
    Route,
    Routing,
    answering,
    final,
    first_answering,
    platform_party,
    ringable,
    ringing,
    seconds,
    turning_away,
)

QUEUE_RECORDS = (1, 2)
"""Queue `monitor` codes (the `queue_monitor` dictionary) that record inbound calls: all, inbound."""
DEFAULT_RETRY, DEFAULT_MAX_WAIT, DEFAULT_RING = 5, 300, 15


def queue(r: Routing, found: dict[str, Any], target: Target) -> Route:
    """The caller's next step in the queue: ring an agent, wait `retry` seconds, or leave."""
    conn, call, planner, floor, at = r.conn, r.call, r.planner, r.floor, r.at
    since = target.since if target.since is not None else at
    members = [m for m in found.get("users") or [] if isinstance(m, dict)]
    logged_in = [(n, m["id"]) for n, m in enumerate(members) if m.get("status", True)]
    queued = [c for c in floor.queued(call.customer_id, found["id"]) if c.id != call.id
              and line.standing(c) != "connected"]  # fmt: skip
    party = platform_party("queue", found)
    if target.since is None and not logged_in and found.get("join_empty") is False:
        return turning_away(call, party, planner, "QUEUE", "unavailable"), final(found)
    if target.since is None and _full(found, queued):
        return turning_away(call, party, planner, "QUEUE", "busy"), final(found)
    most = float(found.get("max_wait_time") or DEFAULT_MAX_WAIT)
    if at - since >= most:
        return None, final(found)
    ahead = sum(1 for c in queued if line.standing(c) == "waiting" and (c.queued_at or 0.0, c.id) < (since, call.id))
    following = Target(type="Q", id=found["id"], step=target.step + 1, since=since)
    in_line = {"queue_id": found["id"], "queued_at": since}
    left = most - (at - since)
    agents = _free(conn, call, found, logged_in, floor, at)
    strategy = _strategy(found)
    last = floor.last_rung(found["id"])
    last_position = next((n for n, user_id in logged_in if user_id == last), None)
    order = line.ordered(strategy, [agent for agent, _, _ in agents.values()], last_position,
                         floor.shuffler(f"queue:{call.id}:{target.step}"))  # fmt: skip
    just_rung = call.dst.user_id if call.queue_id == found["id"] else None
    serving = line.serving(strategy, order, ahead, just_rung)
    wait = min(seconds(found.get("retry"), DEFAULT_RETRY), left) if not serving else 0.0
    holding = answering(call, party, planner, "QUEUE", (wait, following), user_id=None, **in_line)
    if not serving:
        return holding, None
    chosen_id = int(first_answering(call, [str(a.user_id) for a in serving]))
    _, user, agent_party = agents[chosen_id]
    ring_time = min(seconds(found.get("ring_time"), DEFAULT_RING), left)
    recorded = found.get("monitor") in QUEUE_RECORDS
    routed = ringing(call, agent_party, planner, ring_time, "QUEUE", following, [str(chosen_id)], user, recorded,
                     **in_line)  # fmt: skip
    return (dataclasses.replace(routed, through=holding) if target.since is None else routed), None  # joins, then rings


def _full(found: dict[str, Any], queued: list[Call]) -> bool:
    most = int(found.get("max_callers") or 0)
    return 0 < most <= len(queued)


def _strategy(found: dict[str, Any]) -> str:
    code = found.get("ring_strategy")
    try:
        return str(QUEUE_RING_STRATEGY.to_name(code)) if code is not None else line.DEFAULT_STRATEGY
    except ValueError:
        return line.DEFAULT_STRATEGY


def _free(conn: Connection, call: Call, found: dict[str, Any], logged_in: list[tuple[int, int]],
          floor: Floor, at: float) -> dict[int, tuple[line.Agent, dict[str, Any], Party]]:  # fmt: skip
    """The logged-in agents who can take the call now, by user id: ringable, not on another call
    (unless the queue does not `skip_busy` and they have call waiting), their wrap-up over."""
    users = reads.documents(conn, "user", [user_id for _, user_id in logged_in], call.customer_id)
    on_a_call = None if found.get("skip_busy") is False else False
    wrap_up = float(found.get("wrap_up_time") or 0)
    free: dict[int, tuple[line.Agent, dict[str, Any], Party]] = {}
    for position, user_id in logged_in:
        user = users.get(user_id)
        party = ringable(conn, call, user, floor, on_a_call) if user is not None else None
        calls, last_ended = floor.served(found["id"], user_id)
        if user is None or party is None or not line.is_free(None if last_ended is None else last_ended + wrap_up, at):
            continue
        free[user_id] = (line.Agent(user_id, position, calls, last_ended), user, party)
    return free
