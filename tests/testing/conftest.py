"""Fixtures of the fault and event stream tests: the call tests' simulator (destinations behave by
number prefix), the bootstrap customer's root user."""

from __future__ import annotations

import msgspec
import pytest

from telephony.config import Simulator
from tests.accounts.helpers import login
from tests.calls.conftest import RULES


@pytest.fixture
def settings(settings):
    simulator = Simulator(seed=7, own_answer_seconds=1.0, no_answer_seconds=30.0, destinations=RULES)
    return msgspec.structs.replace(settings, simulator=simulator)


@pytest.fixture
async def root(client, settings):
    return await login(client, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)
