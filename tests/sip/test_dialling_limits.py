"""A softphone's call within the customer's balance (enforced) and the connection's dialogs: a call the
balance cannot pay is 402 as `POST /calls` is, one past `[sip] dialogs_per_connection` is 486."""

from __future__ import annotations

import msgspec
import pytest

from telephony.config import Billing, Tariff
from tests.accounts.helpers import CONTROL
from tests.calls.conftest import ANSWERS
from tests.calls.helpers import place
from tests.sip.test_dialling import HOME, phone, refused, the_call


@pytest.fixture
def settings(settings):
    billing = Billing(default=Tariff(name="Elsewhere", per_minute=0.1), enforce_balance=True)
    sip = msgspec.structs.replace(settings.sip, dialogs_per_connection=1)
    return msgspec.structs.replace(settings, billing=billing, sip=sip)


async def credit(client, amount: float) -> None:
    response = await client.post(f"/_telephony/customers/{HOME}/credit", json={"amount": amount}, headers=CONTROL)
    assert response.status == 201, await response.text()


async def test_a_call_the_balance_cannot_pay_is_402_as_over_rest(client, root):
    caller = await phone(client, root)
    rest = await place(client, root, status=402, to=ANSWERS + "1")
    status, warning = await refused(caller, ANSWERS + "1")
    assert (status, warning) == (402, f'399 telephony "{rest["message"]}"')
    await credit(client, 5)
    await caller.dial(ANSWERS + "1")
    assert (await caller.response()).code == 180


async def test_a_connection_dials_as_many_calls_at_once_as_its_dialogs_allow(client, root):
    await credit(client, 5)
    caller = await phone(client, root)
    await caller.dial(ANSWERS + "1")
    assert (await caller.response()).code == 180
    await the_call(client, root)
    assert await refused(caller, ANSWERS + "2") == (486, '399 telephony "Too many calls on this connection"')
