"""Fixtures of the webhook tests: a CA the server trusts, a receiver with its certificate, a root user."""

from __future__ import annotations

import asyncio

import msgspec
import pytest
import trustme

from telephony.config import Simulator, Webhooks
from telephony.keys import EVENT_LOG, REACTORS, SCHEDULER, WEBHOOKS
from tests.accounts.helpers import login
from tests.calls.conftest import RULES
from tests.webhooks.receiver import Receiver, start


@pytest.fixture
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def disable_after() -> float:
    return 3600.0


@pytest.fixture
def webhook_settings(ca, tmp_path, disable_after) -> Webhooks:
    pem = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(pem))
    return Webhooks(ca_file=str(pem), disable_after=disable_after, timeout_seconds=5.0)


@pytest.fixture
def settings(settings, webhook_settings):
    simulator = Simulator(seed=7, own_answer_seconds=1.0, no_answer_seconds=30.0, destinations=RULES)
    return msgspec.structs.replace(settings, webhooks=webhook_settings, simulator=simulator)


@pytest.fixture
async def root(client, settings):
    return await login(client, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)


@pytest.fixture
async def receiver(aiohttp_server, ca) -> Receiver:
    return await start(aiohttp_server, ca, Receiver())


async def delivered(client) -> None:
    """Send what is due: wait until the reactors have dealt with the log, run the timers due now (the
    clock is virtual: nothing runs until it moves) and wait for the POSTs, until nothing moves."""
    app = client.server.app
    while True:
        position = app[EVENT_LOG].position
        await asyncio.wait_for(app[REACTORS].reached(position), 30)
        await app[SCHEDULER].run_due()
        await asyncio.wait_for(app[WEBHOOKS].sender.idle(), 30)
        if app[EVENT_LOG].position == position:
            return
