"""The queue's rules: which free agent each strategy rings, and which caller gets it."""

from __future__ import annotations

import random

from telephony.domain.calls.queue import Agent, is_free, ordered, serving
from telephony.domain.dictionaries import QUEUE_RING_STRATEGY

A = Agent(user_id=11, position=0, calls=3, last_ended=100.0)
B = Agent(user_id=12, position=1, calls=1, last_ended=50.0)
C = Agent(user_id=13, position=2, calls=1, last_ended=None)


def ids(agents) -> list[int]:
    return [a.user_id for a in agents]


def test_every_strategy_of_the_dictionary_has_an_order():
    for name in QUEUE_RING_STRATEGY.entries.values():
        assert sorted(ids(ordered(name, [C, A, B], 0, random.Random(1)))) == [11, 12, 13]


def test_linear_and_ringall_keep_the_members_order():
    assert ids(ordered("linear", [C, B, A], None, random.Random(1))) == [11, 12, 13]
    assert ids(ordered("ringall", [C, B, A], None, random.Random(1))) == [11, 12, 13]


def test_leastrecent_rings_who_never_took_a_call_then_who_ended_longest_ago():
    assert ids(ordered("leastrecent", [A, B, C], None, random.Random(1))) == [13, 12, 11]


def test_fewestcalls_rings_who_answered_fewest_ties_in_members_order():
    assert ids(ordered("fewestcalls", [A, B, C], None, random.Random(1))) == [12, 13, 11]


def test_rrmemory_starts_after_the_member_rung_last():
    assert ids(ordered("rrmemory", [A, B, C], 1, random.Random(1))) == [13, 11, 12]
    assert ids(ordered("rrmemory", [A, B, C], 2, random.Random(1))) == [11, 12, 13]
    assert ids(ordered("rrmemory", [A, B, C], None, random.Random(1))) == [11, 12, 13]


def test_random_is_the_same_order_for_the_same_seed():
    first = ids(ordered("random", [A, B, C], None, random.Random("7:queue:1:0")))
    assert first == ids(ordered("random", [A, B, C], None, random.Random("7:queue:1:0")))
    seen = {tuple(ids(ordered("random", [A, B, C], None, random.Random(n)))) for n in range(50)}
    assert len(seen) > 1


def test_each_caller_takes_the_free_agent_its_place_in_line_leaves_it():
    assert ids(serving("linear", [A, B], 0, None)) == [11]
    assert ids(serving("linear", [A, B], 1, None)) == [12]
    assert serving("linear", [A, B], 2, None) == []  # more callers ahead than free agents: it waits


def test_ringall_rings_every_free_agent_for_the_first_caller_only():
    assert ids(serving("ringall", [A, B], 0, None)) == [11, 12]
    assert serving("ringall", [A, B], 1, None) == []


def test_the_agent_who_just_let_the_caller_ring_out_is_rung_again_only_when_alone():
    assert ids(serving("linear", [A, B], 0, just_rung=11)) == [12]
    assert ids(serving("linear", [A], 0, just_rung=11)) == [11]


def test_an_agent_is_free_once_its_wrap_up_is_over():
    assert is_free(None, 10.0) and is_free(10.0, 10.0) and not is_free(10.5, 10.0)
