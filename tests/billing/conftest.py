"""Fixtures of the billing tests: tariffs by prefix, and destinations whose times are known."""

from __future__ import annotations

import msgspec
import pytest

from telephony.config import Billing, DestinationRule, Simulator, Tariff
from tests.accounts.helpers import login

TARIFFS = [
    Tariff(prefix="44", name="United Kingdom", per_minute=0.02, increment="60/60", sms=0.04),
    Tariff(prefix="447", name="UK mobile", per_minute=0.06, increment="1/1", connection_fee=0.01),
    Tariff(prefix="33", name="France", per_minute=0.01, minimum_charge=0.5),
]
TIMES = [DestinationRule(prefix="+442", outcome="answer", ring_seconds=5.0, talk_seconds=61.0),
         DestinationRule(prefix="+447", outcome="answer", ring_seconds=5.0, talk_seconds=61.0),
         DestinationRule(prefix="+33", outcome="answer", ring_seconds=5.0, talk_seconds=10.0)]  # fmt: skip


@pytest.fixture
def enforced() -> bool:
    return False


@pytest.fixture
def internal_calls_free() -> bool:
    return True


@pytest.fixture
def settings(settings, enforced, internal_calls_free):
    billing = Billing(default=Tariff(name="Elsewhere", per_minute=0.1), tariffs=TARIFFS, enforce_balance=enforced,
                      internal_calls_free=internal_calls_free)  # fmt: skip
    simulator = Simulator(seed=3, own_answer_seconds=1.0, destinations=TIMES)
    return msgspec.structs.replace(settings, billing=billing, simulator=simulator)


@pytest.fixture
async def root(client, settings):
    return await login(client, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)
