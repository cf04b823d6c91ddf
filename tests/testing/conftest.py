"""Fixtures of the fault and event stream tests: the call tests' simulator (destinations behave by
number prefix), the webhook tests' HTTPS receiver, the bootstrap customer's root user."""

from __future__ import annotations

import msgspec
import pytest

from telephony.config import Simulator
from tests.accounts.helpers import login
from tests.calls.conftest import RULES
from tests.webhooks.conftest import ca, disable_after, receiver, webhook_settings

__all__ = ["ca", "disable_after", "receiver", "webhook_settings"]


@pytest.fixture
def settings(settings, webhook_settings):
    simulator = Simulator(seed=7, own_answer_seconds=1.0, no_answer_seconds=30.0, destinations=RULES)
    return msgspec.structs.replace(settings, simulator=simulator, webhooks=webhook_settings)


@pytest.fixture
async def root(client, settings):
    return await login(client, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)
