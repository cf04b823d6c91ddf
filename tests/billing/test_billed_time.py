"""Billed time: a call's answered time is rounded to whole seconds once, and its CDR's `billsec`, its
charge, its invoice line and its live call all follow that figure."""

from __future__ import annotations

import pytest

from tests.accounts.helpers import CONTROL, login, url
from tests.billing.test_billing import FRANCE, MOBILE, balance
from tests.calls.helpers import advance, by_live_id, get, patch, place

CONNECTS = 1 + 5  # the caller's own client answers after 1 s, the destination 5 s later


async def hung_up(client, root, to: str, talked: float) -> dict:
    """The CDR of a call to `to` the caller hangs up `talked` seconds after it connected."""
    call = (await place(client, root, to=to))["data"]
    await advance(client, CONNECTS + talked)
    assert (await client.delete(url("v1.2", f"/calls/{call['id']}"), headers=root.headers())).status == 204
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(call["id"])))["data"]
    return cdr


async def test_a_call_is_charged_for_the_whole_seconds_its_cdr_bills(client, root):
    cdr = await hung_up(client, root, MOBILE, 5.4)  # 0.06 a minute by the second, 0.01 to connect
    assert (cdr["billsec"], cdr["charge"]) == (5, 0.015)
    assert await balance(client, root) == (-0.015, "EUR")


async def test_a_call_transferred_before_its_first_whole_second_costs_nothing(client, root):
    call = (await place(client, root, to=MOBILE))["data"]
    await advance(client, CONNECTS + 0.4)
    await patch(client, root, call["id"], dst=FRANCE)
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(call["id"])))["data"]
    assert (cdr["billsec"], cdr["t_cause"], cdr["charge"]) == (0, "transferred", 0.0)
    assert await balance(client, root) == (0.0, "EUR")


async def test_an_invoice_bills_the_seconds_its_cdrs_billsec_add_up_to(client, root, settings):
    cdrs = [await hung_up(client, root, MOBILE, talked) for talked in (5.4, 7.3, 12.45, 0.6)]
    (invoice,) = (await get(client, root, "/transactions"))["data"]
    response = await client.post("/_telephony/clock", json={"set": _next_month(invoice["period"])}, headers=CONTROL)
    assert response.status == 200
    root = await login(client, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)
    (line,) = (await get(client, root, f"/transactions/{invoice['id']}"))["data"]["lines"]
    assert line["quantity"] == sum(cdr["billsec"] for cdr in cdrs) == 5 + 7 + 12 + 1
    assert line["amount"] == pytest.approx(sum(cdr["charge"] for cdr in cdrs))


async def test_a_live_call_lasts_the_whole_seconds_its_cdr_will(client, root):
    call = (await place(client, root, to=MOBILE))["data"]
    await advance(client, CONNECTS + 5.6)
    live = (await get(client, root, f"/calls/{call['id']}"))["data"]
    assert (await client.delete(url("v1.2", f"/calls/{call['id']}"), headers=root.headers())).status == 204
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(call["id"])))["data"]
    assert live["duration"] == cdr["duration"] == 12


def _next_month(period: str) -> str:
    year, month = (int(part) for part in period.split("-"))
    return f"{year + month // 12}-{month % 12 + 1:02d}-01 00:00:00"
