"""Tariffs and charges as pure rules: billed time by increment, minimum, connection fee, prefixes."""

from __future__ import annotations

from decimal import Decimal

from telephony.domain.billing import Tariff, money, next_period_start, period_of, tariff_for

UK = Tariff.of("44", "UK", "0.02", "60/60")
BY_SECOND = Tariff.of("447", "UK mobile", "0.06", "1/1")
DEFAULT = Tariff.of("", "Other", "0.10", "60/60")


def test_a_61_second_call_at_60_60_is_charged_two_minutes():
    assert UK.billed_seconds(61) == 120
    assert UK.call(61) == Decimal("0.0400")


def test_a_1_1_tariff_bills_by_the_second():
    assert BY_SECOND.billed_seconds(61) == 61
    assert BY_SECOND.call(61) == money(Decimal("0.06") * 61 / 60)


def test_a_first_increment_then_steps():
    thirty_six = Tariff.of("1", "US", "0.60", "30/6")
    assert [thirty_six.billed_seconds(s) for s in (1, 30, 31, 36, 37)] == [30, 30, 36, 36, 42]


def test_the_minimum_charge_and_the_connection_fee_apply_to_answered_calls_only():
    tariff = Tariff.of("33", "FR", "0.01", "60/60", minimum_charge="0.05", connection_fee="0.02")
    assert tariff.call(30) == Decimal("0.0500")  # 0.01 + 0.02 is below the minimum
    assert tariff.call(600) == Decimal("0.1200")  # 10 minutes and the connection fee
    assert tariff.call(0) == Decimal("0")


def test_the_longest_prefix_wins_and_the_customers_own_wins_a_tie():
    assert tariff_for("+447700900123", [], [UK, BY_SECOND], DEFAULT) is BY_SECOND
    assert tariff_for("442071234567", [], [UK, BY_SECOND], DEFAULT) is UK
    assert tariff_for("+33123456789", [], [UK, BY_SECOND], DEFAULT) is DEFAULT
    own = Tariff.of("44", "UK for you", "0.01")
    assert tariff_for("442071234567", [own], [UK, BY_SECOND], DEFAULT) is own
    assert tariff_for("447700900123", [own], [UK, BY_SECOND], DEFAULT) is BY_SECOND


def test_a_balance_pays_for_whole_increments():
    assert UK.seconds_paid(Decimal("0.05")) == 120  # two minutes cost 0.04, three 0.06
    assert UK.seconds_paid(Decimal("0.01")) == 0  # not even the first minute
    assert BY_SECOND.seconds_paid(Decimal("0.06")) == 60
    assert Tariff.of("", "Free", "0").seconds_paid(Decimal("0")) > 10**9  # a free call is never cut
    assert Tariff.of("", "Free", "0").least() == 0


def test_months_are_utc_calendar_months():
    assert period_of(1796083199) == "2026-11"  # 2026-11-30 23:59:59 UTC
    assert period_of(1796083200) == "2026-12"
    assert next_period_start(1796083199) == 1796083200
    assert period_of(next_period_start(1798761599)) == "2027-01"
