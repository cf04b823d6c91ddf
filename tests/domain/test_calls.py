"""The rules of a call, given events / when a command / then events or a refusal."""

from __future__ import annotations

import msgspec
import pytest

from telephony.config import DestinationRule, Simulator
from telephony.domain import calls as rules
from telephony.domain.calls import Call, Party, Plan, Target
from telephony.domain.errors import Invalid

PLAN = Plan(outcome="answer", ring_seconds=5, talk_seconds=60, own_answer_seconds=1)
PLACED = {"customer_id": 1, "user_id": 10, "kind": "click", "first": "src", "src": {"number": "201", "id": "10"},
          "dst": {"number": "+447700900123"}, "clid": None, "context": "PSTN_CALL", "destination": "out",
          "record": False}  # fmt: skip


def given(*steps) -> Call:
    """A call folded from the events of `rules` functions applied in order, each at a later second."""
    events = rules.place(1, 0.0, {**PLACED, "plan": msgspec_plan(PLAN)}, accepted=True)
    call = rules.fold(1, events)
    for at, step in enumerate(steps, start=1):
        for type_, data in step(call, float(at)):
            call = rules.evolve(call, type_, data)
    return call


def msgspec_plan(plan: Plan) -> dict:
    return msgspec.to_builtins(plan)


def recording(verb: str):
    return lambda call, at: rules.monitor(call, at, verb)


def connected() -> Call:
    return given(rules.answer, rules.answer)


def ended() -> Call:
    return given(rules.answer, rules.answer, rules.hang_up)


def test_placing_a_click_to_call_records_placed_accepted_and_the_callers_client_ringing():
    events = rules.place(1, 0.0, {**PLACED, "plan": msgspec_plan(PLAN)}, accepted=True)
    assert [t for t, _ in events] == ["call.placed", "call.accepted", "call.ringing"]
    assert events[2][1]["leg"] == "src"
    assert rules.fold(1, events).state == "RINGING"


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
    for state in rules.LIVE:
        assert state in rules.TRANSITIONS["call.ended"]
    assert "HANGUP" not in rules.TRANSITIONS["call.ended"]
    assert set(rules.TRANSITIONS["call.held"]) == {"CONNECTED"}
    assert set(rules.TRANSITIONS["call.resumed"]) == {"ON_HOLD"}


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
    assert [t for t, _ in own] == ["call.transferred", "call.ended"] and own[1][1]["cause"] == "transferred"
    child_call = rules.fold(2, child)
    assert child_call.parent_id == 1 and child_call.kind == "transfer" and child_call.state == "RINGING"
    assert child_call.src.number == "+447700900123" and child_call.src_answered_at == 3.0


@pytest.mark.parametrize(("outcome", "cause", "disposition"), [
    ("busy", "user busy", "BUSY"), ("reject", "call rejected", "BUSY"), ("no_answer", "no answer", "NO_ANSWER"),
    ("fail", "temporary failure", "FAILED"), ("unallocated", "unallocated number", "FAILED"),
])  # fmt: skip
def test_the_simulator_ends_a_call_by_the_destinations_outcome(outcome, cause, disposition):
    plan = Plan(outcome=outcome, ring_seconds=3, talk_seconds=60, own_answer_seconds=1, no_answer_seconds=30)
    call = rules.fold(1, rules.place(1, 0.0, {**PLACED, "plan": msgspec_plan(plan)}, accepted=True))
    step = rules.next_step(call)
    assert (step.action, step.due) == ("answer", 1.0)
    for _ in range(3):
        step = rules.next_step(call)
        if step is None:
            break
        for type_, data in rules.take(call, step, step.due):
            call = rules.evolve(call, type_, data)
    assert (call.state, call.cause, call.disposition) == ("HANGUP", cause, disposition)


def test_an_answered_call_ends_after_its_talk_time_by_the_destination():
    call = connected()
    step = rules.next_step(call)
    assert (step.action, step.due, step.cause, step.by) == ("end", 62.0, "normal clearing", "dst")


def test_plans_are_the_same_for_the_same_seed_and_call_and_rules_match_the_longest_prefix():
    settings = Simulator(seed=3, destinations=[DestinationRule(prefix="+44", outcome="busy"),
                                               DestinationRule(prefix="4477", outcome="reject")])  # fmt: skip
    assert rules.draw_plan(settings, 5, "+33123456789") == rules.draw_plan(settings, 5, "+33123456789")
    assert rules.draw_plan(settings, 5, "+4412345678").outcome == "busy"
    assert rules.draw_plan(settings, 5, "+447712345678").outcome == "reject"
    talks = {rules.draw_plan(Simulator(seed=3), n, "+33123456789").talk_seconds for n in range(50)}
    assert len(talks) > 10  # a distribution, not a constant


# --- every row of the transition table ----------------------------------------------------------------

COMMANDS = {
    "call.answered": rules.answer,
    "call.held": rules.hold,
    "call.resumed": rules.unhold,
    "call.ended": rules.hang_up,
    "call.labelled": lambda c, at: rules.label(c, at, [1]),
    "call.action_set": lambda c, at: rules.set_action(c, at, "https://x.example", "x"),
    "call.recording_started": recording("start"),
    "call.transferred": lambda c, at: rules.transfer(c, at, Party(number="+447700900999"), 2, PLAN)[0],
    "call.menu_replayed": lambda c, at: rules.replay(c, at, rules.Menu(timeout=10, plays=3), "7"),
}
"""The command that records each event type a user may cause."""
CALLS_IN = {
    "RINGING": given(),
    "CONNECTED": connected(),
    "ON_HOLD": given(rules.answer, rules.answer, rules.hold),
    "HANGUP": ended(),
}
"""A call in each state a command can meet (INITIAL and ACCEPTED last no longer than their transaction)."""
ROUTED = {"dst": {"number": "220", "id": "7"}, "plan": msgspec_plan(PLAN), "context": "PSTN_CALL",
          "fallback": {"type": "V", "id": 7}, "user_id": 7}  # fmt: skip
"""What routing a call to a user records."""


def rerouted(call: Call) -> Call:
    """The call once it rings someone new for its `dst` leg (a connected one: a queue ringing an agent)."""
    for type_, data in rules.route(call, 8.0, ROUTED):
        call = rules.evolve(call, type_, data)
    return call


@pytest.mark.parametrize("type_", sorted(COMMANDS))
@pytest.mark.parametrize("state", sorted(CALLS_IN))
def test_each_command_is_taken_exactly_in_the_states_the_table_allows(type_, state):
    call = CALLS_IN[state]
    allowed = state in rules.TRANSITIONS[type_]
    if type_ == "call.answered" and state == "RINGING":
        call = given(rules.answer)  # the destination rings: the answer connects
    elif type_ == "call.answered" and state in ("CONNECTED", "ON_HOLD"):
        call = rerouted(call)  # someone new rings for the connected call: the answer keeps its state
    if not allowed:
        with pytest.raises(Invalid):
            COMMANDS[type_](call, 9.0)
        return
    events = COMMANDS[type_](call, 9.0)
    assert events[0][0] == type_
    after = rules.TRANSITIONS[type_][state]
    folded = call
    for event_type, data in events[:1]:
        folded = rules.evolve(folded, event_type, data)
    assert folded.state == (state if after == "same" else after)


@pytest.mark.parametrize(("type_", "state"), [(t, s) for t, row in rules.TRANSITIONS.items() for s in row])
def test_every_row_of_the_table_is_a_live_state_or_the_start(type_, state):
    assert state is None or state in rules.LIVE
    assert type_ == "call.placed" or state is not None


def test_the_simulators_own_events_follow_the_table():
    placed = rules.place(1, 0.0, {**PLACED, "plan": msgspec_plan(PLAN)}, accepted=True)
    states = [None]
    call = Call(id=1)
    for type_, data in placed:
        assert states[-1] in rules.TRANSITIONS[type_]
        call = rules.evolve(call, type_, data)
        states.append(call.state)
    assert states == [None, "INITIAL", "ACCEPTED", "RINGING"]


def inbound_call() -> Call:
    inbound = {**PLACED, "kind": "inbound", "first": "dst", "destination": "in", "answered": ["src"]}
    return rules.evolve(Call(id=1), "call.placed", {"id": 1, "at": 0.0, **inbound, "plan": msgspec_plan(PLAN)})


def test_routing_gives_the_call_a_new_destination_reached_at_once():
    call = inbound_call()
    events = rules.route(call, 1.0, ROUTED)
    assert [t for t, _ in events] == ["call.routed", "call.ringing"]
    for type_, data in events:
        call = rules.evolve(call, type_, data)
    assert (call.state, call.dst.id, call.user_id, call.fallback.type) == ("RINGING", "7", 7, "V")
    never = Plan(outcome="no_answer", ring_seconds=1, talk_seconds=60, no_answer_seconds=20)
    call = rules.evolve(call, "call.routed", {"id": 1, "at": 2.0, **ROUTED, "plan": msgspec_plan(never)})
    assert rules.next_step(call) == rules.Step(22.0, "route", "dst")
    with pytest.raises(Invalid):
        rules.route(ended(), 3.0, ROUTED)


MENU = rules.Menu(timeout=4, plays=3)
TARGETS = {"2": Target(type="U", id=7)}


@pytest.mark.parametrize(
    ("keys", "then"),
    [
        ([], (None, 12.0, 0)),  # three plays time out: the final destination
        ([("2", 1.5)], (TARGETS["2"], 1.5, 1)),
        ([("7", 1.0), ("2", 2.0)], (TARGETS["2"], 3.0, 2)),  # an invalid key plays the menu again
        ([("7", 1.0), ("7", 1.0)], (None, 6.0, 2)),  # two plays cut short, the third times out
        ([("7", 1.0), ("7", 1.0), ("7", 1.0), ("2", 1.0)], (None, 3.0, 3)),  # the 2 comes after the last play
    ],
)
def test_a_menu_takes_the_first_key_that_does_something_and_replays_for_one_that_does_not(keys, then):
    assert rules.heard(MENU, keys, 0, TARGETS.get) == then


def test_an_invalid_key_pressed_now_replays_the_menu_and_moves_its_end_until_its_last_play():
    call = connected()  # connected at 2 s: the menu's first play
    events = rules.replay(call, 9.0, MENU, "7")  # 7 s in: the second play, cut short
    assert events == [("call.menu_replayed", {"id": 1, "at": 9.0, "key": "7", "played": 2, "wait": 4.0})]
    call = rules.evolve(call, *events[0])
    assert rules.next_step(call).due == 13.0
    assert rules.replay(call, 10.0, MENU, "7") is None  # the third play cut short: the final destination


QUEUE = {"dst": {"number": "500", "id": "queue:3"}, "context": "QUEUE", "user_id": None, "queue_id": 3,
         "plan": msgspec_plan(Plan(outcome="answer", ring_seconds=0, talk_seconds=5, onward=True)),
         "fallback": {"type": "Q", "id": 3, "step": 1, "since": 1.0}}  # fmt: skip
"""What routing a caller to a queue that holds it (and looks again after 5 s) records."""


def queued() -> Call:
    """An inbound caller a queue answered at 1 s, whose agent rings since 2 s."""
    call = inbound_call()
    for at, routed in ((1.0, QUEUE), (2.0, {**ROUTED, "context": "QUEUE", "queue_id": 3})):
        for type_, data in rules.route(call, at, routed):
            call = rules.evolve(call, type_, data)
    return call


def test_a_platform_destination_that_rings_for_no_time_answers_as_it_is_reached():
    call = inbound_call()
    events = rules.route(call, 1.0, QUEUE)
    assert [t for t, _ in events] == ["call.routed", "call.ringing", "call.answered"]
    for type_, data in events:
        call = rules.evolve(call, type_, data)
    assert (call.state, call.connected_at, call.reaching) == ("CONNECTED", 1.0, None)
    assert rules.next_step(call) == rules.Step(6.0, "route", "dst")  # the queue looks again


def test_a_connected_caller_stays_connected_while_an_agent_rings_and_from_its_first_answer_on():
    call = queued()
    assert (call.state, call.connected_at, call.reaching, call.dst.id) == ("CONNECTED", 1.0, "dst", "7")
    assert rules.next_step(call) == rules.Step(7.0, "answer", "dst")  # the agent's plan: rings 5 s
    for type_, data in rules.answer(call, 7.0):
        call = rules.evolve(call, type_, data)
    assert (call.state, call.connected_at, call.dst_answered_at, call.dst.id) == ("CONNECTED", 1.0, 7.0, "7")
    assert rules.next_step(call) == rules.Step(67.0, "end", cause="normal clearing", by="dst")  # talks from 7 s


def test_a_connected_caller_routed_back_to_its_queue_is_held_there_without_ringing_again():
    call = queued()
    events = rules.route(call, 4.0, QUEUE)
    assert [t for t, _ in events] == ["call.routed"]
    call = rules.evolve(call, *events[0])
    assert (call.state, call.dst.id, call.dst_answered_at, call.reaching) == ("CONNECTED", "queue:3", 1.0, None)
    assert rules.next_step(call) == rules.Step(9.0, "route", "dst")


def test_a_connected_caller_who_hangs_up_while_an_agent_rings_ends_as_its_queues():
    call = queued()
    for type_, data in rules.hang_up(call, 5.0):
        call = rules.evolve(call, type_, data)
    assert (call.dst.id, call.context, call.user_id, call.dst_answered_at) == ("queue:3", "QUEUE", None, 1.0)
    assert (call.cause, call.disposition, call.connected_at) == ("normal clearing", "CONNECTED", 1.0)
