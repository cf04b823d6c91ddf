"""Which agents a queue rings for which caller, as pure rules.

Callers are served in the order they joined the queue: a caller with others waiting before it
takes the agent those leave free, so the first caller gets the first free agent of the queue's
order, the second the second, and a caller waits while none is left for it. An agent is free when
it is logged in to the queue, can be rung, is not on a call (unless the queue does not `skip_busy`
and the agent has call waiting) and its `wrap_up_time` since its last call of the queue is over.

The ring strategies (the `queue_ring_strategy` dictionary) order the free agents:

| code | name | order |
|---|---|---|
| 1 | ringall | every free agent rings at once for the first caller; the first to answer takes it |
| 2 | leastrecent | the agent whose last call of the queue ended longest ago (never: first) |
| 3 | fewestcalls | the agent who answered the fewest calls of the queue |
| 4 | random | a random order, drawn from the simulator's seed and the call |
| 5 | rrmemory | round robin: the member after the one the queue rang last |
| 6 | linear | the members in the order the queue lists them |

Ties keep the members' order. An agent who just let this caller ring out is rung again only when
no other agent is free.

A caller in a queue stands `waiting` while the queue holds it, `ringing` while an agent rings for it
and `connected` once an agent answered (`standing`, the live call's `queue_state`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from .call import Call

RING_ALL = "ringall"
DEFAULT_STRATEGY = RING_ALL


@dataclass(frozen=True, slots=True)
class Agent:
    """A free agent of a queue: its place among the queue's members, and its record in the queue."""

    user_id: int
    position: int
    calls: int = 0
    """The calls of this queue it has answered."""
    last_ended: float | None = None
    """When its last call of this queue ended."""


def ordered(strategy: str, agents: Sequence[Agent], last_rung: int | None, rng: random.Random) -> list[Agent]:
    """The free agents in the order the strategy rings them (`last_rung`: the member position the
    queue rang last, for rrmemory)."""
    members = sorted(agents, key=lambda a: a.position)
    if strategy == "leastrecent":
        return sorted(members, key=lambda a: (a.last_ended is not None, a.last_ended or 0.0))
    if strategy == "fewestcalls":
        return sorted(members, key=lambda a: a.calls)
    if strategy == "random":
        rng.shuffle(members)
        return members
    if strategy == "rrmemory" and last_rung is not None:
        return sorted(members, key=lambda a: (a.position <= last_rung, a.position))
    return members


def serving(strategy: str, free: Sequence[Agent], ahead: int, just_rung: int | None) -> list[Agent]:
    """The agents to ring now for a caller with `ahead` callers waiting before it: under ringall
    every free agent, for the first caller only; otherwise the caller's own agent of the order. An
    empty list: the caller waits."""
    if just_rung is not None and len(free) > 1:
        free = [agent for agent in free if agent.user_id != just_rung]
    if strategy == RING_ALL:
        return list(free) if ahead == 0 else []
    return [free[ahead]] if ahead < len(free) else []


def is_free(agent_free_at: float | None, at: float) -> bool:
    """Whether an agent's wrap-up after its last call of the queue is over."""
    return agent_free_at is None or at >= agent_free_at


def standing(call: Call) -> str | None:
    """Where a caller stands in its queue: `waiting`, `ringing` or `connected`; None outside queues."""
    if call.context != "QUEUE":
        return None
    if (call.dst.id or "").startswith("queue:"):
        return "waiting"
    return "connected" if call.dst_answered_at is not None else "ringing"
