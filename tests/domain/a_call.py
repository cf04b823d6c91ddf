"""A call as the rules make it: placed, answered, routed, each step at a later second."""

from __future__ import annotations

from telephony.domain.calls import rules
from telephony.domain.calls.call import Call, Party, Plan, Reached, Target
from telephony.domain.calls.fold import evolve, fold
from telephony.domain.events import tag_of
from telephony.domain.events.calls import CallEvent, CallPlaced

PLAN = Plan(outcome="answer", ring_seconds=5, talk_seconds=60, own_answer_seconds=1)


def placed(plan: Plan = PLAN, **more) -> CallPlaced:
    """A click-to-call of user 10 (extension 201) to an outside number, placed at 0 s."""
    fields = {
        "id": 1,
        "at": 0.0,
        "customer_id": 1,
        "user_id": 10,
        "kind": "click",
        "first": "src",
        "src": Party(number="201", id="10"),
        "dst": Party(number="+447700900123"),
        "dialled": None,
        "clid": None,
        "context": "PSTN_CALL",
        "destination": "out",
        "record": False,
        "plan": plan,
        "claims": {"call": [1]},
    }
    return CallPlaced(**{**fields, **more})  # fmt: skip


def tags(events: list[CallEvent]) -> list[str]:
    return [tag_of(type(event)) for event in events]


def given(*steps) -> Call:
    """A call folded from the events of `rules` functions applied in order, each at a later second."""
    call = fold(1, rules.place(placed(), accepted=True))
    for at, step in enumerate(steps, start=1):
        for event in step(call, float(at)):
            call = evolve(call, event)
    return call


def recording(verb: str):
    return lambda call, at: rules.monitor(call, at, verb)


def connected() -> Call:
    return given(rules.answer, rules.answer)


def ended() -> Call:
    return given(rules.answer, rules.answer, rules.hang_up)


ROUTED = Reached(dst=Party(number="220", id="7"), plan=PLAN, context="PSTN_CALL", fallback=Target(type="V", id=7),
                 user_id=7)  # fmt: skip
"""Where routing a call to a user sends it."""


def routed(call: Call, at: float, reached: Reached) -> list[CallEvent]:
    return rules.route(call, rules.routed(call, at, reached))


def rerouted(call: Call) -> Call:
    """The call once it rings someone new for its `dst` leg (a connected one: a queue ringing an agent)."""
    for event in routed(call, 8.0, ROUTED):
        call = evolve(call, event)
    return call
