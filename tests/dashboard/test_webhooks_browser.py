"""The dashboard, in a real headless Chromium (Debian's, driven by Playwright), and its forms' guards.

The browser test logs in, adds a webhook through the form, places a call, reads its deliveries in the
call flow view and redelivers one, then deletes the webhook through the page's confirmation, with no
Content-Security-Policy refusal on the way (the pages' own style and script run). Chromium is
Debian's package (`browsers`).
"""

from __future__ import annotations

import pytest

from tests.accounts.helpers import create_user
from tests.calls.conftest import ANSWERS
from tests.calls.helpers import advance, place
from tests.dashboard.browsers import FLAGS, chromium
from tests.webhooks.conftest import delivered


@pytest.fixture
async def browser():
    from playwright.async_api import async_playwright

    path = chromium()
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=path, args=FLAGS)
        yield launched
        await launched.close()


@pytest.mark.browser
async def test_a_root_user_adds_a_webhook_in_the_browser_and_sees_a_calls_deliveries(client, root, receiver,
                                                                                   browser):  # fmt: skip
    page = await browser.new_page()
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    dashboard = str(client.make_url("/_telephony/dashboard"))
    await page.goto(dashboard)
    await page.fill("input[name=email]", "admin@example.com")
    await page.fill("input[name=password]", "change-me-now")
    await page.click("button:text-is('Log in')")
    await page.wait_for_selector("h1:has-text('Wallboard')")
    await page.click("nav >> text=Webhooks")
    await page.wait_for_selector("text=Add a webhook")
    await page.fill("form[action$='/webhooks'] input[name=name]", "crm")
    await page.fill("form[action$='/webhooks'] input[name=url]", receiver.url)
    await page.check("form[action$='/webhooks'] input[value='call.state']")
    await page.click("text=Add webhook")
    secret = await page.inner_text(".secret")
    assert "whsec_" in secret and "crm" in secret
    call_id = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    await advance(client, 70)
    await delivered(client)
    await page.fill("input[name=call]", str(call_id))
    await page.click("button:text-is('Show')")
    await page.wait_for_selector(f"h1:has-text('Call flow of call {call_id}')")
    timeline = await page.inner_text(".timeline")
    assert "RINGING" in timeline and "CONNECTED" in timeline and "HANGUP" in timeline
    rows = await page.locator("tr.delivery").all_inner_texts()
    assert len(rows) == 4 and all("delivered" in row and "crm" in row for row in rows)
    assert len(receiver.got) == 4
    await page.click("tr.delivery >> nth=0 >> text=Redeliver")
    await page.wait_for_selector("text=queued again")
    await delivered(client)
    assert len(receiver.got) == 5 and receiver.got[4][0]["webhook-id"] == receiver.got[0][0]["webhook-id"]
    await page.goto(dashboard + "/webhooks")
    assert "delivered" in await page.inner_text("table >> nth=1")
    await page.uncheck("input[name=enabled]")
    async with page.expect_navigation():  # the page the form leads to, not the one it was on
        await page.click("text=Save")
    await page.wait_for_selector("text=Webhook crm saved.")
    response = await client.get("/_telephony/webhooks/crm", headers=root.headers())
    assert (await response.json())["data"]["enabled"] is False
    page.once("dialog", lambda dialog: dialog.dismiss())
    await page.click("text=Delete")  # the page's own script asks first: dismissed, nothing is posted
    assert (await client.get("/_telephony/webhooks/crm", headers=root.headers())).status == 200
    page.once("dialog", lambda dialog: dialog.accept())
    await page.click("text=Delete")
    await page.wait_for_selector("text=Webhook crm deleted.")
    assert (await client.get("/_telephony/webhooks/crm", headers=root.headers())).status == 404
    assert not [text for text in console if "Content Security Policy" in text]  # its style and script may run


async def test_the_dashboard_wants_a_root_or_admin_login_and_its_own_forms(client, root):
    page = await client.get("/_telephony/dashboard")
    assert page.status == 200 and "Log in" in await page.text()
    await create_user(client, 100001, "agent@example.com", roles=["ROLE_AGENT"])
    refused = await client.post("/_telephony/dashboard/login", data={"email": "agent@example.com",
                                "password": "correct-horse-battery-staple"})  # fmt: skip
    assert refused.history[0].status == 303 and "Only root and admin users use the dashboard" in await refused.text()
    wrong = await client.post("/_telephony/dashboard/login", data={"email": "admin@example.com", "password": "no"})
    assert wrong.history[0].status == 303 and "Invalid email" in await wrong.text()
    logged = await client.post("/_telephony/dashboard/login", data={"email": "admin@example.com",
                               "password": "change-me-now"}, allow_redirects=False)  # fmt: skip
    assert logged.status == 303
    cookie = logged.cookies["telephony_dashboard"]
    assert cookie["httponly"] and cookie["samesite"] == "Strict" and cookie["path"] == "/_telephony/dashboard"
    forged = await client.post("/_telephony/dashboard/webhooks", data={"name": "x", "url": "https://x.example/",
                               "events": "call.state", "csrf": "guessed"}, allow_redirects=False)  # fmt: skip
    assert forged.status == 403  # a form without the session's CSRF token is refused
    assert (await client.get("/_telephony/webhooks", headers=root.headers())).status == 200
