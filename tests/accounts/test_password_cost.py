"""Passwords are hashed with scrypt at its full cost, unless the server's entropy is seeded (a
reproducible run: a scenario, a test suite's server), whose salts are as public as its seed: there
the cost is light, and the password still logs in."""

from __future__ import annotations

import pytest

from telephony.app import create_app
from telephony.domain.events.accounts import UserCreated
from telephony.keys import EVENT_LOG
from telephony.security import Entropy
from tests.accounts.conftest import HOME
from tests.accounts.helpers import PASSWORD, create_user, login


@pytest.mark.parametrize(("entropy", "cost"), [(None, 16384), (Entropy(5), 256)], ids=["system", "seeded"])
async def test_a_password_is_hashed_at_the_cost_its_entropy_allows_and_logs_in(
    aiohttp_client, settings, clock, entropy, cost
):
    client = await aiohttp_client(create_app(settings, clock=clock, entropy=entropy))
    user_id = await create_user(client, HOME, "hashed@example.com")
    assert (await login(client, "v1.2", "hashed@example.com", PASSWORD)).user_id == user_id
    created = [e.event for e in await client.app[EVENT_LOG].read() if isinstance(e.event, UserCreated)]
    assert {event.password_hash.split("$")[1] for event in created} == {str(cost)}  # the bootstrap admin's too
