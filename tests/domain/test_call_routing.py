"""Routing a call: a new destination, a menu's keys, a queue holding a connected caller."""

from __future__ import annotations

import dataclasses

import pytest

from telephony.domain.calls import rules
from telephony.domain.calls.call import Call, Party, Plan, Reached, Target
from telephony.domain.calls.fold import evolve
from telephony.domain.calls.menu import Menu, heard, replay
from telephony.domain.calls.simulation import Step, next_step
from telephony.domain.errors import Invalid
from telephony.domain.events.calls import MenuReplayed

from .a_call import ROUTED, connected, ended, placed, routed, tags


def inbound_call() -> Call:
    return evolve(Call(id=1), placed(kind="inbound", first="dst", destination="in", answered=["src"]))


def test_routing_gives_the_call_a_new_destination_reached_at_once():
    call = inbound_call()
    events = routed(call, 1.0, ROUTED)
    assert tags(events) == ["call.routed", "call.ringing"]
    for event in events:
        call = evolve(call, event)
    assert (call.state, call.dst.id, call.user_id, call.fallback.type) == ("RINGING", "7", 7, "V")
    never = Plan(outcome="no_answer", ring_seconds=1, talk_seconds=60, no_answer_seconds=20)
    call = evolve(call, rules.routed(call, 2.0, dataclasses.replace(ROUTED, plan=never)))
    assert next_step(call) == Step(22.0, "route", "dst")
    with pytest.raises(Invalid):
        routed(ended(), 3.0, ROUTED)


MENU = Menu(timeout=4, plays=3)
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
    assert heard(MENU, keys, 0, TARGETS.get) == then


def test_an_invalid_key_pressed_now_replays_the_menu_and_moves_its_end_until_its_last_play():
    call = connected()  # connected at 2 s: the menu's first play
    events = replay(call, 9.0, MENU, "7")  # 7 s in: the second play, cut short
    assert events == [MenuReplayed(id=1, at=9.0, key="7", played=2, wait=4.0)]
    call = evolve(call, events[0])
    assert next_step(call).due == 13.0
    assert replay(call, 10.0, MENU, "7") is None  # the third play cut short: the final destination


QUEUE = Reached(dst=Party(number="500", id="queue:3"), context="QUEUE", user_id=None, queue_id=3,
                plan=Plan(outcome="answer", ring_seconds=0, talk_seconds=5, onward=True),
                fallback=Target(type="Q", id=3, step=1, since=1.0))  # fmt: skip
"""Where routing a caller to a queue that holds it (and looks again after 5 s) sends it."""


def queued() -> Call:
    """An inbound caller a queue answered at 1 s, whose agent rings since 2 s."""
    call = inbound_call()
    for at, reached in ((1.0, QUEUE), (2.0, dataclasses.replace(ROUTED, context="QUEUE", queue_id=3))):
        for event in routed(call, at, reached):
            call = evolve(call, event)
    return call


def test_a_platform_destination_that_rings_for_no_time_answers_as_it_is_reached():
    call = inbound_call()
    events = routed(call, 1.0, QUEUE)
    assert tags(events) == ["call.routed", "call.ringing", "call.answered"]
    for event in events:
        call = evolve(call, event)
    assert (call.state, call.connected_at, call.reaching) == ("CONNECTED", 1.0, None)
    assert next_step(call) == Step(6.0, "route", "dst")  # the queue looks again


def test_a_connected_caller_stays_connected_while_an_agent_rings_and_from_its_first_answer_on():
    call = queued()
    assert (call.state, call.connected_at, call.reaching, call.dst.id) == ("CONNECTED", 1.0, "dst", "7")
    assert next_step(call) == Step(7.0, "answer", "dst")  # the agent's plan: rings 5 s
    for event in rules.answer(call, 7.0):
        call = evolve(call, event)
    assert (call.state, call.connected_at, call.dst_answered_at, call.dst.id) == ("CONNECTED", 1.0, 7.0, "7")
    assert next_step(call) == Step(67.0, "end", cause="normal clearing", by="dst")  # talks from 7 s


def test_a_connected_caller_routed_back_to_its_queue_is_held_there_without_ringing_again():
    call = queued()
    events = routed(call, 4.0, QUEUE)
    assert tags(events) == ["call.routed"]
    call = evolve(call, events[0])
    assert (call.state, call.dst.id, call.dst_answered_at, call.reaching) == ("CONNECTED", "queue:3", 1.0, None)
    assert next_step(call) == Step(9.0, "route", "dst")


def test_a_connected_caller_who_hangs_up_while_an_agent_rings_ends_as_its_queues():
    call = queued()
    for event in rules.hang_up(call, 5.0):
        call = evolve(call, event)
    assert (call.dst.id, call.context, call.user_id, call.dst_answered_at) == ("queue:3", "QUEUE", None, 1.0)
    assert (call.cause, call.disposition, call.connected_at) == ("normal clearing", "CONNECTED", 1.0)
