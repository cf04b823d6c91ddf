"""Fixtures of the messaging tests: SMS on the clock, priced by a tariff."""

from __future__ import annotations

import msgspec
import pytest

from telephony.config import Billing, Simulator, Tariff
from tests.accounts.helpers import login


@pytest.fixture
def failure_rate() -> float:
    return 0.0


@pytest.fixture
def settings(settings, failure_rate):
    simulator = Simulator(seed=5, sms_sent_seconds=1.0, sms_delivered_seconds=3.0, sms_failure_rate=failure_rate)
    billing = Billing(tariffs=[Tariff(prefix="44", name="United Kingdom", sms=0.04)])
    return msgspec.structs.replace(settings, simulator=simulator, billing=billing)


@pytest.fixture
async def root(client, settings):
    return await login(client, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)
