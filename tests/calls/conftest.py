"""Fixtures of the call engine tests: a simulator whose destinations behave by number prefix."""

from __future__ import annotations

import msgspec
import pytest

from telephony.config import DestinationRule, Simulator
from tests.accounts.helpers import Creds, login

ANSWERS = "+447000100"  # rings 5 s, answers, talks 60 s
BUSY = "+447000200"
NO_ANSWER = "+447000300"
REJECTS = "+447000400"
FAILS = "+447000500"
RULES = [
    DestinationRule(prefix=ANSWERS, outcome="answer", ring_seconds=5.0, talk_seconds=60.0),
    DestinationRule(prefix=BUSY, outcome="busy", ring_seconds=2.0),
    DestinationRule(prefix=NO_ANSWER, outcome="no_answer"),
    DestinationRule(prefix=REJECTS, outcome="reject", ring_seconds=3.0),
    DestinationRule(prefix=FAILS, outcome="fail", ring_seconds=1.0),
]


@pytest.fixture
def settings(settings):
    simulator = Simulator(seed=7, own_answer_seconds=1.0, no_answer_seconds=30.0, destinations=RULES)
    return msgspec.structs.replace(settings, simulator=simulator)


@pytest.fixture
async def root(client, settings) -> Creds:
    return await login(client, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)
