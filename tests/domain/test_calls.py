"""The rules of a call, given events / when a command / then events or a refusal."""

from __future__ import annotations

import pytest

from telephony.config import DestinationRule, Simulator
from telephony.domain.calls import rules
from telephony.domain.calls.call import LIVE, Call, Party, Plan
from telephony.domain.calls.fold import TRANSITIONS, evolve, fold
from telephony.domain.calls.menu import Menu, replay
from telephony.domain.calls.simulation import draw_plan, next_step, take
from telephony.domain.errors import Invalid
from telephony.domain.events import tag_of
from telephony.domain.events.calls import (
    ActionSet,
    CallAnswered,
    CallEnded,
    CallHeld,
    CallLabelled,
    CallPlaced,
    CallResumed,
    CallTransferred,
    MenuReplayed,
    RecordingStarted,
)

from .a_call import PLAN, connected, ended, given, placed, recording, rerouted, tags


def test_placing_a_click_to_call_records_placed_accepted_and_the_callers_client_ringing():
    events = rules.place(placed(), accepted=True)
    assert tags(events) == ["call.placed", "call.accepted", "call.ringing"]
    assert events[2].leg == "src"  # type: ignore[attr-defined]
    assert fold(1, events).state == "RINGING"


def test_the_first_answer_keeps_the_call_ringing_and_rings_the_destination():
    call = given(rules.answer)
    assert call.state == "RINGING" and call.reaching == "dst" and call.ringing == "dst"


def test_both_answers_connect_the_call():
    call = connected()
    assert call.state == "CONNECTED" and call.connected_at == 2.0


def test_hold_and_unhold_move_between_connected_and_on_hold_and_count_the_held_time():
    held = given(rules.answer, rules.answer, rules.hold)
    assert held.state == "ON_HOLD"
    resumed = given(rules.answer, rules.answer, rules.hold, rules.unhold)
    assert resumed.state == "CONNECTED" and resumed.held_seconds == 1.0


@pytest.mark.parametrize(("call", "command", "state"), [
    (given(), rules.hold, "RINGING"),
    (given(), rules.unhold, "RINGING"),
    (connected(), rules.answer, "CONNECTED"),
    (connected(), rules.unhold, "CONNECTED"),
    (given(rules.answer, rules.answer, rules.hold), rules.hold, "ON_HOLD"),
    (given(rules.answer, rules.answer, rules.hold), rules.answer, "ON_HOLD"),
    (ended(), rules.answer, "HANGUP"),
    (ended(), rules.hold, "HANGUP"),
    (ended(), rules.unhold, "HANGUP"),
    (ended(), rules.hang_up, "HANGUP"),
    (ended(), lambda c, at: rules.label(c, at, [1]), "HANGUP"),
    (ended(), lambda c, at: rules.set_action(c, at, "https://x", "x"), "HANGUP"),
    (given(), lambda c, at: rules.monitor(c, at, "start"), "RINGING"),
    (given(), lambda c, at: rules.transfer(c, at, Party(number="+447700900999"), 2, PLAN), "RINGING"),
    (ended(), lambda c, at: rules.transfer(c, at, Party(number="+447700900999"), 2, PLAN), "HANGUP"),
])  # fmt: skip
def test_a_command_the_table_refuses_is_invalid_naming_the_calls_state(call, command, state):
    with pytest.raises(Invalid) as refused:
        command(call, 9.0)
    assert state in refused.value.message


def test_every_live_state_can_be_hung_up_and_every_transition_is_in_the_table():
    for state in LIVE:
        assert state in TRANSITIONS[CallEnded]
    assert "HANGUP" not in TRANSITIONS[CallEnded]
    assert set(TRANSITIONS[CallHeld]) == {"CONNECTED"}
    assert set(TRANSITIONS[CallResumed]) == {"ON_HOLD"}


def test_hanging_up_before_the_answer_is_the_originators_cancel_and_after_it_normal_clearing():
    cancelled = given(rules.hang_up)
    assert (cancelled.cause, cancelled.disposition) == ("originator cancel", "NO_ANSWER")
    cleared = ended()
    assert (cleared.cause, cleared.disposition) == ("normal clearing", "CONNECTED")


def test_recording_started_paused_and_resumed_counts_only_the_recorded_time():
    start, pause, resume = (recording(verb) for verb in ("start", "pause", "resume"))
    call = given(rules.answer, rules.answer, start, pause, rules.hold, resume, rules.hang_up)
    # started at 3, paused at 4 (1 s), resumed at 6, ended at 7 (1 s)
    assert call.recorded_seconds == 2.0 and call.recording_started_at == 3.0


def test_pausing_a_recording_that_is_not_running_is_invalid():
    with pytest.raises(Invalid) as refused:
        rules.monitor(connected(), 5.0, "pause")
    assert refused.value.problems[0][0] == "monitor_state"


def test_transfer_ends_the_call_and_places_a_child_whose_remote_side_is_already_connected():
    own, child = rules.transfer(connected(), 3.0, Party(number="+447700900999"), 2, PLAN)
    assert tags(own) == ["call.transferred", "call.ended"] and own[1].cause == "transferred"  # type: ignore[attr-defined]
    child_call = fold(2, rules.place(child, accepted=False))
    assert child_call.parent_id == 1 and child_call.kind == "transfer" and child_call.state == "RINGING"
    assert child_call.src.number == "+447700900123" and child_call.src_answered_at == 3.0


@pytest.mark.parametrize(("outcome", "cause", "disposition"), [
    ("busy", "user busy", "BUSY"), ("reject", "call rejected", "BUSY"), ("no_answer", "no answer", "NO_ANSWER"),
    ("fail", "temporary failure", "FAILED"), ("unallocated", "unallocated number", "FAILED"),
])  # fmt: skip
def test_the_simulator_ends_a_call_by_the_destinations_outcome(outcome, cause, disposition):
    plan = Plan(outcome=outcome, ring_seconds=3, talk_seconds=60, own_answer_seconds=1, no_answer_seconds=30)
    call = fold(1, rules.place(placed(plan), accepted=True))
    step = next_step(call)
    assert (step.action, step.due) == ("answer", 1.0)
    for _ in range(3):
        step = next_step(call)
        if step is None:
            break
        for event in take(call, step, step.due):
            call = evolve(call, event)
    assert (call.state, call.cause, call.disposition) == ("HANGUP", cause, disposition)


def test_an_answered_call_ends_after_its_talk_time_by_the_destination():
    call = connected()
    step = next_step(call)
    assert (step.action, step.due, step.cause, step.by) == ("end", 62.0, "normal clearing", "dst")


def test_plans_are_the_same_for_the_same_seed_and_call_and_rules_match_the_longest_prefix():
    settings = Simulator(seed=3, destinations=[DestinationRule(prefix="+44", outcome="busy"),
                                               DestinationRule(prefix="4477", outcome="reject")])  # fmt: skip
    assert draw_plan(settings, 5, "+33123456789") == draw_plan(settings, 5, "+33123456789")
    assert draw_plan(settings, 5, "+4412345678").outcome == "busy"
    assert draw_plan(settings, 5, "+447712345678").outcome == "reject"
    talks = {draw_plan(Simulator(seed=3), n, "+33123456789").talk_seconds for n in range(50)}
    assert len(talks) > 10  # a distribution, not a constant


# --- every row of the transition table ----------------------------------------------------------------

COMMANDS = {
    CallAnswered: rules.answer,
    CallHeld: rules.hold,
    CallResumed: rules.unhold,
    CallEnded: rules.hang_up,
    CallLabelled: lambda c, at: rules.label(c, at, [1]),
    ActionSet: lambda c, at: rules.set_action(c, at, "https://x.example", "x"),
    RecordingStarted: recording("start"),
    CallTransferred: lambda c, at: rules.transfer(c, at, Party(number="+447700900999"), 2, PLAN)[0],
    MenuReplayed: lambda c, at: replay(c, at, Menu(timeout=10, plays=3), "7"),
}
"""The command that records each event type a user may cause."""
CALLS_IN = {
    "RINGING": given(),
    "CONNECTED": connected(),
    "ON_HOLD": given(rules.answer, rules.answer, rules.hold),
    "HANGUP": ended(),
}
"""A call in each state a command can meet (INITIAL and ACCEPTED last no longer than their transaction)."""


@pytest.mark.parametrize("type_", sorted(COMMANDS, key=tag_of), ids=tag_of)
@pytest.mark.parametrize("state", sorted(CALLS_IN))
def test_each_command_is_taken_exactly_in_the_states_the_table_allows(type_, state):
    call = CALLS_IN[state]
    allowed = state in TRANSITIONS[type_]
    if type_ is CallAnswered and state == "RINGING":
        call = given(rules.answer)  # the destination rings: the answer connects
    elif type_ is CallAnswered and state in ("CONNECTED", "ON_HOLD"):
        call = rerouted(call)  # someone new rings for the connected call: the answer keeps its state
    if not allowed:
        with pytest.raises(Invalid):
            COMMANDS[type_](call, 9.0)
        return
    events = COMMANDS[type_](call, 9.0)
    assert type(events[0]) is type_
    after = TRANSITIONS[type_][state]
    assert evolve(call, events[0]).state == (state if after == "same" else after)


@pytest.mark.parametrize(("type_", "state"), [(t, s) for t, row in TRANSITIONS.items() for s in sorted(row, key=str)])
def test_every_row_of_the_table_is_a_live_state_or_the_start(type_, state):
    assert state is None or state in LIVE
    assert type_ is CallPlaced or state is not None


def test_the_simulators_own_events_follow_the_table():
    states = [None]
    call = Call(id=1)
    for event in rules.place(placed(), accepted=True):
        assert states[-1] in TRANSITIONS[type(event)]
        call = evolve(call, event)
        states.append(call.state)
    assert states == [None, "INITIAL", "ACCEPTED", "RINGING"]
