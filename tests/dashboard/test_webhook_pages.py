"""The dashboard's webhooks pages over HTTP: forms answered Post/Redirect/Get with their outcome shown once after
the redirect, in plain words; HTML for every failure; the headers that keep a page in its own tab;
each delivery's and attempt's time, redelivery and deletion from the page, guarded by CSRF tokens."""

from __future__ import annotations

import re

from telephony.keys import EVENT_LOG
from tests.accounts.helpers import CONTROL
from tests.calls.conftest import ANSWERS
from tests.calls.helpers import advance, place
from tests.dashboard.helpers import BASE, logged_in, posted
from tests.webhooks.conftest import delivered


async def test_a_form_is_redirected_to_a_page_that_shows_what_it_did_once(client, root, receiver):
    csrf = await logged_in(client)
    page = await posted(client, "/webhooks", csrf=csrf, name="crm", url=receiver.url, events="call.state")
    secret = re.search(r"<code>(whsec_[^<]+)</code>", page).group(1)
    assert "Webhook crm added." in page and "crm" in page
    again = await (await client.get(BASE)).text()
    assert secret not in again and "added" not in again  # a reload shows the page, and posts nothing again
    listed = await (await client.get("/_telephony/webhooks", headers=root.headers())).json()
    assert listed["total"] == 1


async def test_a_refused_form_is_told_in_plain_words(client, root, receiver):
    csrf = await logged_in(client)
    unnamed = await posted(client, "/webhooks", csrf=csrf, name="crm!", url=receiver.url, events="call.state")
    assert "Name: Expected a free name: letters, digits, spaces, dots, dashes, underscores" in unnamed
    unchosen = await posted(client, "/webhooks", csrf=csrf, name="crm", url=receiver.url)
    assert "Choose at least one event type." in unchosen
    forged = await posted(client, "/webhooks", csrf=csrf, name="crm", url=receiver.url, events="call.everything")
    assert "Event types: &#x27;call.everything&#x27; is not one of the allowed values" in forged
    await posted(client, "/webhooks", csrf=csrf, name="crm", url=receiver.url, events="call.state")
    edited = await posted(client, "/webhooks/crm", csrf=csrf, url="http://example.com/hooks", events="call.state")
    assert "Webhook crm: URL: Only https:// URLs are supported." in edited
    for page in (unnamed, forged, edited):
        assert "`" not in page and "$." not in page and "Expected `" not in page  # no library text


async def test_every_dashboard_answer_carries_the_headers_that_keep_it_in_its_own_tab(client, root):
    answers = [await client.get(BASE), await client.post(f"{BASE}/login", data={"email": "admin@example.com",
               "password": "change-me-now"}, allow_redirects=False)]  # fmt: skip
    answers += [await client.get(BASE), await client.get(f"{BASE}/calls/999"),
                await client.post(f"{BASE}/webhooks", data={"csrf": "guessed"})]  # fmt: skip
    assert [a.status for a in answers] == [200, 303, 200, 404, 403]
    for answer in answers:
        headers = answer.headers
        assert (headers["X-Frame-Options"], headers["X-Content-Type-Options"]) == ("DENY", "nosniff")
        assert headers["Referrer-Policy"] == "no-referrer" and headers["Cache-Control"] == "no-store"
        policy = dict(part.strip().split(" ", 1) for part in headers["Content-Security-Policy"].split(";"))
        assert policy["default-src"] == "'none'" and policy["frame-ancestors"] == "'none'"
        assert policy["form-action"] == "'self'" and "unsafe" not in headers["Content-Security-Policy"]
        assert policy["script-src"] == policy["style-src"] == policy["connect-src"] == "'self'"  # the page's own files


async def test_an_unknown_call_is_a_page_saying_so_not_json(client, root):
    await logged_in(client)
    for path in ("/calls/999", "/calls/abc", "/calls?call=abc", "/calls?call=999"):
        response = await client.get(BASE + path)
        assert (response.status, response.content_type) == (404, "text/html"), path
        assert "not found" in await response.text()
    box = await client.get(f"{BASE}/calls?call=999", allow_redirects=False)
    assert (box.status, box.headers["Location"]) == (303, f"{BASE}/calls/999")


async def test_deliveries_show_their_times_and_one_is_redelivered_from_the_page(client, root, receiver):
    csrf = await logged_in(client)
    await posted(client, "/webhooks", csrf=csrf, name="crm", url=receiver.url, events="call.connected")
    receiver.status = 410
    call_id = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    await advance(client, 6)
    await delivered(client)
    overview = await (await client.get(f"{BASE}/webhooks")).text()
    (delivery,) = (await (await client.get("/_telephony/webhooks/crm/deliveries", headers=root.headers())).json())[
        "data"]  # fmt: skip
    attempt = delivery["history"][0]
    assert f"<td>{delivery['created_at']}</td>" in overview and f"<li>{attempt['at']}: 410 in" in overview
    receiver.status = 204
    flow = await posted(client, f"/redeliver/{delivery['id']}", csrf=csrf, back=f"calls/{call_id}")
    assert f"Call flow of call {call_id}" in flow and f"Delivery {delivery['id']} queued again" in flow
    (queued,) = [e for e in await client.server.app[EVENT_LOG].read(types=["webhook.delivery_queued"])
                 if e.event.id != delivery["id"]]  # fmt: skip
    assert (queued.event.event_id, queued.event.body) == (delivery["event_id"], delivery["body"])
    await advance(client, 6)  # the retry goes first, then the redelivery queued behind it on its lane
    await delivered(client)
    assert [h["webhook-id"] for h, _ in receiver.got] == [delivery["event_id"]] * 3
    page = await (await client.get(f"{BASE}/webhooks")).text()
    assert "Redeliver" in flow and re.search(r"<li>[0-9: -]{19}: 204 in", page)


async def test_a_webhook_is_deleted_from_the_page_only_with_the_sessions_csrf_token(client, root, receiver):
    csrf = await logged_in(client)
    await posted(client, "/webhooks", csrf=csrf, name="crm", url=receiver.url, events="call.state")
    forged = await client.post(f"{BASE}/delete/crm", data={"csrf": "0" * 64})
    assert (forged.status, forged.content_type) == (403, "text/html") and "stale" in await forged.text()
    assert (await client.get("/_telephony/webhooks/crm", headers=root.headers())).status == 200
    assert "Webhook crm deleted." in await posted(client, "/delete/crm", csrf=csrf)
    assert (await client.get("/_telephony/webhooks/crm", headers=root.headers())).status == 404
    assert [e.type for e in await client.server.app[EVENT_LOG].read(types=["webhook.deleted"])] == ["webhook.deleted"]


async def test_a_pages_own_read_of_its_live_regions_leaves_what_a_form_did_for_the_page_it_leads_to(client, root):
    csrf = await logged_in(client)
    response = await client.post(f"{BASE}/delete/crm", data={"csrf": csrf}, allow_redirects=False)
    assert response.status == 303  # no such webhook: the page it leads to says so
    refreshed = await client.get(f"{BASE}/webhooks", headers={"Sec-Fetch-Mode": "cors"})  # the script's read
    assert "not found" not in await refreshed.text()
    shown = await (await client.get(f"{BASE}/webhooks", headers={"Sec-Fetch-Mode": "navigate"})).text()
    assert "Webhook crm not found" in shown


async def test_deliveries_waiting_behind_a_failing_one_say_so_not_a_time_gone_by(client, root, receiver):
    csrf = await logged_in(client)
    await posted(client, "/webhooks", csrf=csrf, name="crm", url=receiver.url, events="call.state")
    receiver.status = 503
    await place(client, root, to=ANSWERS + "1")
    await advance(client, 10)  # placed, ringing, connected...: the first fails, and the others queue behind it
    await delivered(client)
    now = (await (await client.get("/_telephony/clock", headers=CONTROL)).json())["data"]["now"]
    page = await (await client.get(f"{BASE}/webhooks")).text()
    rows = re.findall(r"<tr><td>([0-9]+)</td>.*?<span class=\"badge (\w+)\">.*?</td><td>(?:<ol.*?</ol>|not yet)</td>"
                      r"<td>([^<]*)</td>", page, re.S)  # fmt: skip
    pending = {int(n): shown for n, status, shown in rows if status == "pending"}
    head = min(pending)
    assert len(pending) >= 3 and pending[head] > now  # the failing one: its retry, still to come
    assert {n: shown for n, shown in pending.items() if n != head} == {
        n: f"after delivery {head}" for n in pending if n != head}  # fmt: skip
