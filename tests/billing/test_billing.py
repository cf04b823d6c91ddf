"""Billing over HTTP: charges on CDRs and web calls, balances, transactions, monthly invoices and
their PDFs, enforced balances, the customer's own tariffs; every figure the same after a replay."""

from __future__ import annotations

import base64
import io
import json

import pypdf
import pytest

from tests.accounts.helpers import CONTROL, create_user, error_of, login
from tests.calls.helpers import advance, by_live_id, get, place
from tests.serving import replay_difference

HOME = 100001
LANDLINE = "+442000001234"  # UK, 0.02 a minute by the minute; answers after 5 s and talks 61 s
MOBILE = "+447000001234"  # UK mobile, 0.06 a minute by the second, 0.01 to connect; the same times
FRANCE = "+33100001234"  # 0.01 a minute, at least 0.50; talks 10 s
TALKED = 1 + 5 + 61  # the caller's own client answers after 1 s, the destination 5 s later


async def credit(client, amount: float, status: int = 201, customer_id: int = HOME, **more) -> dict:
    response = await client.post(f"/_telephony/customers/{customer_id}/credit", json={"amount": amount, **more},
                                 headers=CONTROL)  # fmt: skip
    answer = await response.json()
    assert response.status == status, answer
    return answer


async def charged(client, root, to: str) -> dict:
    """The CDR of a call to `to`, once it ended."""
    call = (await place(client, root, to=to))["data"]
    await advance(client, TALKED + 1)
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(call["id"])))["data"]
    return cdr


async def balance(client, root) -> tuple[float, str]:
    me = (await get(client, root, "/me"))["data"]
    return me["balance"], me["currency_iso"]


async def test_a_61_second_call_at_60_60_is_charged_two_minutes_from_the_balance(client, root):
    assert (await credit(client, 10, note="Card"))["data"]["type"] == "credit"
    cdr = await charged(client, root, LANDLINE)
    assert (cdr["billsec"], cdr["rate"], cdr["charge"]) == (61, 0.02, 0.04)
    assert await balance(client, root) == (9.96, "EUR")
    answer = await get(client, root, "/transactions?sort=id&dir=DESC&limit=10&page=1&filter=[]")
    invoice, topup = answer["data"]
    assert answer["total"] == 2
    assert (topup["type"], topup["amount"], topup["result"], topup["description"]) == ("credit", 10.0, "completed",
                                                                                       "Card")  # fmt: skip
    assert (invoice["type"], invoice["amount"], invoice["result"], invoice["currency_iso"]) == (
        "invoice", -0.04, "pending", "EUR")  # fmt: skip
    assert sum(t["amount"] for t in answer["data"]) == pytest.approx(9.96)  # the balance is the sum


async def test_a_1_1_tariff_bills_by_the_second_with_its_connection_fee(client, root):
    cdr = await charged(client, root, MOBILE)
    assert (cdr["rate"], cdr["charge"]) == (0.06, round(0.06 * 61 / 60 + 0.01, 4))
    assert await balance(client, root) == (-0.071, "EUR")  # not enforced: the balance goes below zero


async def test_the_minimum_charge_applies_and_internal_calls_are_free(client, root):
    assert (await charged(client, root, FRANCE))["charge"] == 0.5
    await create_user(client, HOME, "colleague@example.com", ext="301")
    internal = await charged(client, root, "301")
    assert (internal["context"], internal["rate"], internal["charge"]) == ("USER_LOCAL", 0.0, 0.0)


async def test_a_web_call_charges_both_legs(client, root):
    response = await client.post("/v1.2/voipstudio/webcalls", json={"from": LANDLINE, "to": MOBILE},
                                 headers=root.headers())  # fmt: skip
    webcall = (await response.json())["data"]
    await advance(client, TALKED + 1)
    (record,) = (await get(client, root, "/webcalls"))["data"]
    assert (record["from_duration"], record["from_rate"], record["from_charge"]) == (66, 0.02, 0.04)
    assert (record["to_duration"], record["to_rate"], record["to_charge"]) == (61, 0.06, 0.071)
    assert record["charge"] == 0.111
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(webcall["live_id"])))["data"]
    assert cdr["charge"] == 0.111


async def test_a_customers_own_tariffs_win_over_the_table(client, root):
    response = await client.put(f"/_telephony/customers/{HOME}/tariffs", json=[
        {"prefix": "44", "name": "Friendly UK", "per_minute": 0.01}], headers=CONTROL)  # fmt: skip
    assert response.status == 200, await response.text()
    assert (await charged(client, root, LANDLINE))["charge"] == 0.02  # two minutes at 0.01
    assert (await charged(client, root, MOBILE))["rate"] == 0.06  # the table's longer prefix still wins
    response = await client.get(f"/_telephony/customers/{HOME}/tariffs", headers=CONTROL)
    assert [t["name"] for t in (await response.json())["data"]] == ["Friendly UK"]
    bad = await client.put(f"/_telephony/customers/{HOME}/tariffs", json=[{"prefix": "", "per_minute": 1}],
                           headers=CONTROL)  # fmt: skip
    assert (await error_of(bad, 400))["errors"][0]["field"] == "prefix"
    bad = await client.put(f"/_telephony/customers/{HOME}/tariffs", json=[{"prefix": "1", "increment": "60"}],
                           headers=CONTROL)  # fmt: skip
    await error_of(bad, 400)
    await error_of(await client.get("/_telephony/customers/999/tariffs", headers=CONTROL), 404)


async def test_credits_must_be_positive_and_adjustments_anything_but_zero(client, root):
    assert (await credit(client, -5, 400))["errors"][0]["field"] == "amount"
    assert (await credit(client, 0, 400, type="adjustment"))["errors"][0]["field"] == "amount"
    adjusted = (await credit(client, -2.5, type="adjustment", note="Goodwill reversal"))["data"]
    assert (adjusted["type"], adjusted["amount"]) == ("adjustment", -2.5)
    assert await balance(client, root) == (-2.5, "EUR")
    await credit(client, 5, 404, customer_id=999)


async def test_an_invoice_closes_at_the_month_boundary_and_its_pdf_holds_its_lines(client, root, settings):
    await charged(client, root, LANDLINE)
    await charged(client, root, MOBILE)
    await charged(client, root, LANDLINE)
    (invoice,) = (await get(client, root, "/transactions"))["data"]
    response = await client.get(f"/v1.2/voipstudio/transactions/{invoice['id']}.pdf", headers=root.headers())
    refused = await error_of(response, 400)
    assert "not completed yet" in refused["message"] and "not completed yet" in refused["errors"][0]["message"]
    month = invoice["period"]
    year, number = (int(part) for part in month.split("-"))
    following = f"{year + number // 12}-{number % 12 + 1:02d}-01 00:00:00"
    response = await client.post("/_telephony/clock", json={"set": following}, headers=CONTROL)
    assert response.status == 200
    root = await login(client, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)
    closed = (await get(client, root, f"/transactions/{invoice['id']}"))["data"]
    assert (closed["result"], closed["closed_at"], closed["amount"]) == ("completed", following, -0.151)
    assert [(line["destination"], line["count"], line["quantity"], line["amount"]) for line in closed["lines"]] == [
        ("UK mobile", 1, 61, 0.071), ("United Kingdom", 2, 240, 0.08)]  # fmt: skip
    response = await client.get(f"/v1.2/voipstudio/transactions/{invoice['id']}.pdf", headers=root.headers())
    assert response.status == 200 and response.content_type == "application/json"
    data = (await response.json())["data"]
    assert data["mime_type"] == "application/pdf"
    document = pypdf.PdfReader(io.BytesIO(base64.b64decode(data["base64"])))
    text = document.pages[0].extract_text()
    assert f"Invoice {invoice['id']}" in text and f"Period: {month}" in text and "Example Ltd" in text
    assert "Total 0.1510" in text and "UK mobile" in text
    await charged(client, root, LANDLINE)  # the new month opens a new invoice
    assert [t["period"] for t in (await get(client, root, "/transactions?sort=id"))["data"]] == [
        month, following[:7]]  # fmt: skip
    assert replay_difference(settings) is None  # every figure survives a replay


async def test_an_invoice_open_while_the_server_was_down_closes_at_start(aiohttp_client, settings, clock):
    from telephony.app import create_app

    client = await aiohttp_client(create_app(settings, clock=clock))
    root = await login(client, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)
    await charged(client, root, LANDLINE)
    await client.close()
    clock.advance(40 * 24 * 3600)  # a month passes while the server is down
    client = await aiohttp_client(create_app(settings, clock=clock))
    root = await login(client, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)
    await advance(client, 0)
    (invoice,) = (await get(client, root, "/transactions"))["data"]
    assert invoice["result"] == "completed"


@pytest.mark.parametrize("enforced", [True])
async def test_an_enforced_balance_refuses_calls_it_cannot_pay_and_cuts_one_when_it_runs_out(client, root):
    response = await client.post("/v1.2/voipstudio/calls", json={"to": LANDLINE}, headers=root.headers())
    refused = await error_of(response, 402)
    assert "balance" in refused["message"].lower()
    await create_user(client, HOME, "free@example.com", ext="302")
    assert (await place(client, root, to="302"))["data"]["state"] == "RINGING"  # internal calls cost nothing
    await credit(client, 0.03)
    cdr = await charged(client, root, LANDLINE)  # 0.03 pays one minute at 0.02 by the minute
    assert (cdr["billsec"], cdr["t_cause"], cdr["charge"]) == (60, "credit exhausted", 0.02)
    assert await balance(client, root) == (0.01, "EUR")


@pytest.mark.parametrize("internal_calls_free", [False])
async def test_a_call_a_queue_answers_is_charged_for_its_billsec_from_the_queues_answer(client, root):
    response = await client.post("/v1.2/voipstudio/queues", json={"name": "Help"}, headers=root.headers())
    queue_id = (await response.json())["data"]["id"]
    response = await client.post("/v1.2/voipstudio/routingrules", json={"action": "queue", "direction": 2,
                                 "destination": [FRANCE], "target_id": queue_id}, headers=root.headers())  # fmt: skip
    assert response.status == 201, await response.text()
    call = (await place(client, root, to=FRANCE))["data"]  # the rule sends it to the queue, which holds it
    await advance(client, 1 + 60)  # the caller's own client answers after 1 s, and so does the queue
    response = await client.delete(f"/v1.2/voipstudio/calls/{call['id']}", headers=root.headers())
    assert response.status == 204
    (cdr,) = (await get(client, root, "/cdrs" + by_live_id(call["id"])))["data"]
    assert (cdr["context"], cdr["dst_id"], cdr["billsec"]) == ("QUEUE", f"queue:{queue_id}", 60)
    assert (cdr["rate"], cdr["charge"]) == (0.1, 0.1)  # an internal leg at the default tariff, for the billsec


async def test_the_cli_requests_for_transactions_and_invoices_work(client, root):
    await credit(client, 3)
    await credit(client, 4)
    query = "?limit=1&page=2&filter=" + json.dumps([{"property": "type", "operator": "=", "value": "credit"}])
    answer = await get(client, root, "/transactions" + query + "&sort=id&dir=DESC")
    assert (answer["total"], [t["amount"] for t in answer["data"]]) == (2, [3.0])
    receipt = answer["data"][0]
    response = await client.get(f"/v1.1/voipstudio/transactions/{receipt['id']}.pdf", headers=root.headers("basic"))
    data = (await response.json())["data"]
    text = pypdf.PdfReader(io.BytesIO(base64.b64decode(data["base64"]))).pages[0].extract_text()
    assert f"Receipt {receipt['id']}" in text and "3.0000" in text
    await error_of(await client.get("/v1.2/voipstudio/transactions/999.pdf", headers=root.headers()), 404)


async def test_a_receipt_shows_the_date_of_its_credit_and_no_period(client, root):
    receipt = (await credit(client, 3, note="Card"))["data"]
    response = await client.get(f"/v1.2/voipstudio/transactions/{receipt['id']}.pdf", headers=root.headers())
    data = (await response.json())["data"]
    text = pypdf.PdfReader(io.BytesIO(base64.b64decode(data["base64"]))).pages[0].extract_text()
    assert f"Receipt {receipt['id']}" in text and f"Date: {receipt['created_at']} UTC" in text
    assert "Period" not in text and "Card" in text
