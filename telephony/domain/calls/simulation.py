"""How the simulator drives a call: the plan drawn for it, and the next step its state calls for.

A plan is drawn when the call is placed, from the `[simulator]` settings and a random generator
seeded by the settings' seed and the call's id, so the same seed and the same requests give the
same calls. That draw answers the first party the call rings; every party rung after it (a queue's
next agent, the same agent again, a hunt's next member) draws its answer on its own, from a
generator seeded by the call's id and the ring (`ring`), so one draw never decides them all. The
next step of a call is a pure function of its state and plan: the simulator sets one timer per live
call at the step's due time, and takes the step when it falls due.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ...config import Simulator
from ..events.calls import CallEvent
from .call import TALKING, Call, Plan
from .rules import CAUSES, RINGS, answer, end

OUTCOMES = ("answer", "busy", "reject", "fail")
CREDIT_EXHAUSTED = "credit exhausted"
"""The cause of a connected call ended because the customer's balance stopped paying for it."""


def rng_for(settings: Simulator, call_id: int, ring: int = 0) -> random.Random:
    """The generator of a call's draw (`ring` 0), or of a later ring's (`ring` > 0, its own)."""
    return random.Random(f"{settings.seed}:{call_id}" if ring == 0 else f"{settings.seed}:{call_id}:ring:{ring}")


def draw_plan(settings: Simulator, call_id: int, number: str | None, *, outcome: str | None = None,
              ring: int = 0) -> Plan:  # fmt: skip
    """The plan of a call to `number`: a per-destination rule first, then the configured shares.
    `outcome` forces one (a destination known to be unallocated or unavailable); `ring` names a
    ring after the call's first, which draws on its own (0: the call's own draw)."""
    rng = rng_for(settings, call_id, ring)
    roll = rng.random()
    ring_seconds = float(round(rng.uniform(settings.ring_min_seconds, settings.ring_max_seconds)))
    talk_seconds = _talk(settings, rng)
    chosen = outcome or _outcome(settings, roll)
    rule = _rule_for(settings, number)
    if rule is not None and outcome is None:
        chosen = rule.outcome or chosen
        ring_seconds = rule.ring_seconds if rule.ring_seconds is not None else ring_seconds
        talk_seconds = rule.talk_seconds if rule.talk_seconds is not None else talk_seconds
    if chosen in ("unallocated", "unavailable"):
        ring_seconds = 0.0
    return Plan(
        outcome=chosen,
        ring_seconds=ring_seconds,
        talk_seconds=float(round(talk_seconds)),
        own_answer_seconds=settings.own_answer_seconds,
        no_answer_seconds=settings.no_answer_seconds,
    )


def _talk(settings: Simulator, rng: random.Random) -> float:
    """Talk time: exponential around the mean, kept between the bounds."""
    drawn = rng.expovariate(1 / settings.talk_mean_seconds) if settings.talk_mean_seconds > 0 else 0.0
    return min(max(drawn, settings.talk_min_seconds), settings.talk_max_seconds)


def _outcome(settings: Simulator, roll: float) -> str:
    shares = (settings.answer_rate, settings.busy_rate, settings.reject_rate, settings.failure_rate)
    for outcome, share in zip(OUTCOMES, shares, strict=True):
        if roll < share:
            return outcome
        roll -= share
    return "no_answer"


def _rule_for(settings: Simulator, number: str | None):
    digits = (number or "").lstrip("+")
    matching = [r for r in settings.destinations if digits.startswith(r.prefix.lstrip("+"))]
    return max(matching, key=lambda r: len(r.prefix.lstrip("+")), default=None)


@dataclass(frozen=True, slots=True)
class Step:
    """What happens next to a call, and when: a leg answers, or the call ends with a cause."""

    due: float
    action: str
    leg: str | None = None
    cause: str | None = None
    by: str | None = None


def next_step(call: Call) -> Step | None:
    """The simulator's next step for a live call; None for an ended one. A caller who gives up
    hangs up at that time, unless the call ends before."""
    step = _next(call)
    if call.gives_up_at is None or not call.live or (step is not None and step.due <= call.gives_up_at):
        return step
    cause = CAUSES["answer"] if call.state in TALKING else "originator cancel"
    return Step(call.gives_up_at, "end", call.reaching, cause, "src")


def _next(call: Call) -> Step | None:
    if not call.live:
        return None
    if call.state not in TALKING or call.connected_at is None:
        return _reaching(call)
    step = _talking(call) if call.reaching is None else _reaching(call)
    if step is not None and call.paid_until is not None and call.paid_until < step.due:
        return Step(call.paid_until, "end", cause=CREDIT_EXHAUSTED)
    return step


def _talking(call: Call) -> Step:
    """A connected call talks for its plan's time from its last answer; a destination that sends its
    caller on (an IVR, a queue) does so its plan's time after the caller reached it."""
    plan, connected_at = call.plan, call.connected_at or 0.0
    if plan.onward and call.fallback is not None:
        return Step(call.reached_at + plan.talk_seconds, "route", "dst")
    talked = max(connected_at, call.dst_answered_at or connected_at) + plan.talk_seconds
    return Step(talked, "end", cause=CAUSES["answer"], by="dst")


def _reaching(call: Call) -> Step | None:
    """The leg being reached answers, or the destination gives up or fails (a connected call goes on
    talking to its host meanwhile: a queue rings an agent)."""
    plan, leg = call.plan, call.reaching
    if leg is None:
        return None
    if leg == "src":
        return Step(call.reached_at + plan.own_answer_seconds, "answer", leg)
    give_up = call.reached_at + plan.no_answer_seconds
    if plan.outcome == "answer" and plan.ring_seconds <= plan.no_answer_seconds:
        return Step(call.reached_at + plan.ring_seconds, "answer", leg)
    if plan.outcome in RINGS:  # nobody answers (a real client answers itself): given up after the ring time
        return Step(give_up, "route", leg) if call.fallback else Step(give_up, "end", leg, CAUSES["no_answer"])
    failed = call.reached_at + plan.ring_seconds
    return Step(failed, "route", leg) if call.fallback else Step(failed, "end", leg, CAUSES[plan.outcome], "dst")


def take(call: Call, step: Step, at: float) -> list[CallEvent]:
    """The events of a step that fell due (a "route" step is taken by the routing, which reads the
    configuration)."""
    if step.action == "answer":
        return answer(call, at, step.leg)
    return end(call, at, step.cause or CAUSES["answer"], step.by)
