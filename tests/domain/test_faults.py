"""Fault rules as pure rules: patterns, turns of several rules, draws from the seed, counts, expiry,
and the fold of their events."""

from __future__ import annotations

from telephony.domain import faults
from telephony.domain.events.faults import FaultAdded, FaultMatched, FaultRemoved
from telephony.domain.faults import Fault, effects, turn
from telephony.fault_rule import FaultRule


def fault(fault_id: int, **rule) -> Fault:
    return Fault(fault_id, FaultRule(**rule), "api", created_at=1000.0)


def test_a_path_star_stays_within_a_segment_and_a_double_star_crosses_them():
    cdr = FaultRule(path="/cdrs/*", status=503)
    assert [faults.matches_request(cdr, "GET", p) for p in ("/cdrs/7", "/cdrs/7.pcap", "/cdrs", "/cdrs/7/x")] == [
        True, True, False, False]  # fmt: skip
    anything = FaultRule(path="/**", method="POST", status=503)
    assert faults.matches_request(anything, "POST", "/calls/7/monitors")
    assert not faults.matches_request(anything, "GET", "/calls")


def test_a_webhook_pattern_matches_whole_names():
    rule = FaultRule(webhook="crm*", drop=True)
    assert faults.matches_webhook(rule, "crm") and faults.matches_webhook(rule, "crm-eu")
    assert not faults.matches_webhook(rule, "the crm") and not faults.matches_webhook(FaultRule(path="/x"), "crm")


def test_waits_add_up_and_an_answering_rule_ends_the_turn():
    taken = turn([fault(3, path="/x", status=503), fault(1, path="/x", latency_ms=100),
                  fault(2, path="/x", latency_ms=50), fault(4, path="/x", drop=True)], seed=1)  # fmt: skip
    assert [m.fault.id for m in taken] == [1, 2, 3]  # oldest first; 4 never sees the request
    found = effects(taken)
    assert (found.latency_ms, found.status, found.drop, found.by) == (150, 503, False, (1, 2, 3))


def test_a_spared_match_is_counted_but_does_not_act_or_end_the_turn():
    seed = next(s for s in range(100) if faults.draw(s, 1, 1) >= 0.5)
    taken = turn([fault(1, path="/x", status=503, probability=0.5), fault(2, path="/x", latency_ms=10)], seed)
    assert [(m.fault.id, m.matched, m.fired, m.effect) for m in taken] == [(1, 1, 0, None), (2, 1, 1, "latency_ms")]
    assert taken[0].recorded(5.0) == FaultMatched(id=1, at=5.0, matched=1, fired=0, effect=None)


def test_draws_depend_on_the_seed_the_rule_and_the_match_only():
    assert faults.draw(7, 1, 3) == faults.draw(7, 1, 3)
    assert len({faults.draw(7, 1, 3), faults.draw(8, 1, 3), faults.draw(7, 2, 3), faults.draw(7, 1, 4)}) == 4


def test_a_rule_is_spent_after_its_count_and_gone_after_its_expiry():
    counted = fault(1, path="/x", status=503, count=2, expires_in=60)
    assert counted.active(1000.0) and counted.expires_at == 1060.0
    assert not Fault(1, counted.rule, "api", 1000.0, matched=2, fired=2).active(1000.0)
    assert not counted.active(1060.0)


def test_the_events_fold_to_the_rules_in_force_with_their_counts():
    rule = FaultRule(method="POST", path="/calls", status=503, count=2)
    given = faults.evolve({}, FaultAdded(id=1, at=1000.0, source="config", rule=rule))
    given = faults.evolve(given, FaultMatched(id=1, at=1001.0, matched=2, fired=1, effect=None))
    given = faults.evolve(given, FaultMatched(id=1, at=1001.0, matched=1, fired=1, effect=None))
    assert given == {1: Fault(1, rule, "config", 1000.0, matched=2, fired=1)}  # counts never go back
    shown = given[1].shown(1002.0)
    assert (shown["path"], shown["created_at"], shown["expires_at"], shown["active"]) == (
        "/calls", "1970-01-01 00:16:40", None, True)  # fmt: skip
    assert faults.evolve(given, FaultRemoved(id=1, at=1003.0)) == {}
