"""The wallboard over HTTP, on the virtual clock: live calls with their state and running duration,
queues with their callers and agents (logged in and out from the page), today's counts, the latest
records with their call flow, the stream that tells a page what changed, one customer's only, and
every value escaped."""

from __future__ import annotations

import asyncio
import json
import re

from telephony.clock import parse_wire_time, wire_time
from telephony.domain.schemas import QueueMember
from telephony.keys import EVENT_LOG
from telephony.testing.listener import events
from tests.accounts.helpers import create_customer, create_user
from tests.calls.conftest import ANSWERS, BUSY
from tests.calls.helpers import advance, place
from tests.calls.test_inbound import HOME, NUMBER, create, provision, ring
from tests.dashboard.helpers import BASE, csrf_of, logged_in, posted

MENU = "+442071230999"
NOBODY = "+447000200"  # no rule: rings until nobody answers (30 s)


async def board(client) -> str:
    response = await client.get(BASE)
    assert (response.status, response.content_type) == (200, "text/html")
    return await response.text()


def row_of(page: str, call_id: int) -> str:
    return re.search(rf'<tr data-call="{call_id}">.*?</tr>', page, re.S).group(0)


def agent_of(page: str, user_id: int) -> str:
    return re.search(rf'<li data-agent="{user_id}">.*?</li>', page, re.S).group(0)


async def support_queue(client, root, names: list[str], **settings) -> tuple[int, list[int]]:
    agents = [await create_user(client, HOME, f"{n.lower()}@example.com", first_name=n, ext=str(400 + i))
              for i, n in enumerate(names)]  # fmt: skip
    await provision(client)
    members = [{"id": a, "status": True} for a in agents]
    return await create(client, root, "queues", name="Support", users=members, ddis=[NUMBER], **settings), agents


async def test_a_live_call_shows_its_state_and_a_duration_that_runs_on_the_clock(client, root):
    await logged_in(client)
    assert "No live call." in await board(client)
    call_id = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    row = row_of(await board(client), call_id)
    assert f'href="{BASE}/calls/{call_id}"' in row and "0:00" in row and re.search(r'data-since="[0-9.]+"', row)
    await advance(client, 8)  # the caller's phone answers at 1 s, the destination rings 5 s and answers
    row = row_of(await board(client), call_id)
    assert label_of(row) == ("talking", "CONNECTED") and ">0:08<" in row
    await advance(client, 60)
    page = await board(client)
    assert f'data-call="{call_id}"' not in page and "No live call." in page


async def test_a_queue_shows_its_callers_and_each_agents_state(client, root):
    await logged_in(client)
    queue_id, (ann, bob) = await support_queue(client, root, ["Ann", "Bob"], ring_strategy="linear", wrap_up_time=30)
    page = await board(client)
    assert "Support" in page and "Nobody waiting." in page
    assert "free" in agent_of(page, ann) and "free" in agent_of(page, bob)
    await ring(client, answer={str(ann): 2}, hangup_after=10)  # Ann rings first, answers at 2 s
    assert "ringing" in agent_of(await board(client), ann)
    await advance(client, 3)
    assert "on a call" in agent_of(await board(client), ann)
    await advance(client, 10)  # the call ended at 10 s: Ann wraps up for 30 s
    page = await board(client)
    assert "wrap-up" in agent_of(page, ann) and "free" in agent_of(page, bob)
    await advance(client, 30)
    assert "free" in agent_of(await board(client), ann)


def label_of(html: str) -> tuple[str, str]:
    """A call's state as the page shows it: the words, and the API's state in its title."""
    found = re.search(r'<span class="state [a-z]+" data-state="([A-Z_]+)" title="state [A-Z_]+">([a-z ]+)</span>', html)
    return found.group(2), found.group(1)


async def test_a_queues_callers_and_agents_are_shown_as_a_supervisor_means_them(client, root):
    await logged_in(client)
    queue_id, (ann, bob) = await support_queue(client, root, ["Ann", "Bob"], ring_strategy="linear", retry=5)
    first = (await ring(client, answer={str(ann): 4}, hangup_after=100))["data"]["id"]
    page = await board(client)
    assert label_of(row_of(page, first)) == ("ringing an agent", "CONNECTED")  # the queue answered, Ann rings
    assert "ringing" in agent_of(page, ann) and "free" in agent_of(page, bob)
    await advance(client, 5)
    page = await board(client)
    assert label_of(row_of(page, first)) == ("talking", "CONNECTED") and "on a call" in agent_of(page, ann)
    second = (await ring(client, **{"from": "447700900611"}, answer={str(bob): "busy"}, hangup_after=100))["data"]
    third = (await ring(client, **{"from": "447700900612"}, hangup_after=100))["data"]  # nobody is free for it
    page = await board(client)
    assert label_of(row_of(page, second["id"])) == ("ringing an agent", "CONNECTED")
    assert "ringing" in agent_of(page, bob)  # being put through: a busy phone refuses only after its ring time
    assert label_of(row_of(page, third["id"])) == ("waiting in queue", "CONNECTED")
    callers = re.search(rf'<article class=queue data-queue="{queue_id}".*?</article>', page, re.S).group(0)
    assert [label_of(li)[0] for li in re.findall(r"<li>.*?</li>", callers.split("<h4>Agents")[0], re.S)] == [
        "ringing an agent", "waiting in queue"]  # fmt: skip


async def test_the_recent_call_records_show_when_each_call_ended_in_the_order_they_are_listed(client, root):
    await logged_in(client)
    long = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]  # answered at 6 s, talks 60 s
    await advance(client, 5)
    short = (await place(client, root, to=BUSY + "1"))["data"]["id"]  # busy: ends within seconds
    await advance(client, 120)
    page = await board(client)
    table = re.search(r"<table id=recent-cdrs>.*?</table>", page, re.S).group(0)
    assert "<th scope=col>Ended</th>" in table
    shown = re.findall(r"<tr><td>([0-9: -]{19})</td>.*?/calls/([0-9]+)\"", table, re.S)
    assert [int(call) for _, call in shown] == [long, short]  # the latest records first: the long call ended last
    cdrs = {c["live_id"]: c for c in (await (await client.get("/v1.2/voipstudio/cdrs", headers=root.headers())).json())[
        "data"]}  # fmt: skip
    ended = {call: wire_time(parse_wire_time(c["calldate"]).timestamp() + c["duration"]) for call, c in cdrs.items()}
    assert [at for at, _ in shown] == [ended[long], ended[short]] and shown[0][0] > shown[1][0]


async def test_a_caller_the_queue_sends_on_to_a_user_is_shown_ringing_while_the_user_rings(client, root):
    await logged_in(client)
    desk = await create_user(client, HOME, "desk@example.com", first_name="Desk", ext="499")
    await support_queue(client, root, [], max_wait_time=10, retry=5, final_dst_type="U", final_dst_id=desk)
    call_id = (await ring(client, answer={str(desk): "never"}, hangup_after=60))["data"]["id"]
    assert label_of(row_of(await board(client), call_id)) == ("waiting in queue", "CONNECTED")
    await advance(client, 11)  # the queue's wait is over: Desk rings, the caller still connected to the platform
    assert label_of(row_of(await board(client), call_id)) == ("ringing", "CONNECTED")


def hops_of(page: str) -> list[tuple[str, str, str]]:
    """The routing hops a call's flow shows: kind, name, outcome."""
    shown = re.search(r"<ol class=hops[^>]*>(.*?)</ol>", page, re.S).group(1)
    return [
        (kind, name.strip(), outcome)
        for kind, name, outcome in re.findall(
            r"<li><time>[^<]+</time> <b>([^<]+)</b> ([^<]*)(?:<span class=outcome>([^<]*)</span>)?", shown
        )
    ]


async def test_a_calls_flow_shows_where_it_was_routed_from_the_log(client, root):
    await logged_in(client)
    queue_id, (ann, bob) = await support_queue(client, root, ["Ann", "Bob"], ring_strategy="linear", ring_time=5,
                                               retry=2, max_wait_time=20)  # fmt: skip
    response = await client.patch(f"/v1.2/voipstudio/queues/{queue_id}", json={"final_dst_type": 2,
                                  "final_dst_id": ann}, headers=root.headers())  # fmt: skip
    assert response.status == 200, await response.text()
    await provision(client, MENU)
    await create(client, root, "ivrs", name="Main menu", ddis=[MENU], timeout=5, one=f"Q:{queue_id}")
    called = (
        await ring(client, to=MENU, digits=[{"key": "1", "after": 1}], answer={str(ann): "never", str(bob): "busy"})
    )["data"]
    await advance(client, 120)
    page = await (await client.get(f"{BASE}/calls/{called['id']}")).text()
    routing = hops_of(page)
    child = int(re.search(r'<a class=call href="[^"]+/calls/([0-9]+)">', page).group(1))
    assert routing[:5] == [
        ("Dialled", "+442071230999", ""),
        ("IVR", "Main menu", f"sent on, in call {child}"),
        ("Queue", "Support", "answered"),
        ("Agent", "Ann", "no answer"),
        ("Agent", "Bob", "busy"),
    ]
    assert set(routing[3:-1]) == {("Agent", "Ann", "no answer"), ("Agent", "Bob", "busy")}
    assert routing[-1] == ("Voicemail", "Voicemail of Ann", "answered")  # after max_wait_time
    assert hops_of(await (await client.get(f"{BASE}/calls/{child}")).text()) == routing  # the same caller's hops


async def test_an_agent_is_logged_out_and_in_from_the_page_as_the_api_does(client, root):
    csrf = await logged_in(client)
    queue_id, (ann,) = await support_queue(client, root, ["Ann"])
    page = await posted(client, "/agents", queue=queue_id, user=ann, csrf=csrf, status="out")
    assert f"Agent {ann} logged out of queue {queue_id}." in page and "logged out" in agent_of(page, ann)
    shown = await (await client.get(f"/v1.2/voipstudio/queues/{queue_id}", headers=root.headers())).json()
    assert shown["data"]["users"] == [ann]
    (changed,) = await client.server.app[EVENT_LOG].read(types=["queue.updated"])
    assert changed.event.changes["users"] == [QueueMember(id=ann, status=False)]
    called = (await ring(client, hangup_after=30))["data"]  # nobody logged in: the caller waits
    page = await posted(client, "/agents", queue=queue_id, user=ann, csrf=csrf, status="in")
    assert f"Agent {ann} logged in to queue {queue_id}." in page
    await advance(client, 5)  # the caller looks again and rings Ann
    assert "ringing" in agent_of(await board(client), ann)
    assert (await client.get(f"/v1.2/voipstudio/calls/{called['id']}", headers=root.headers())).status == 200


async def test_an_agent_change_is_refused_without_the_csrf_token_or_for_a_stranger(client, root):
    csrf = await logged_in(client)
    queue_id, (ann,) = await support_queue(client, root, ["Ann"])
    forged = await client.post(
        f"{BASE}/agents", data={"csrf": "0" * 64, "queue": queue_id, "user": ann, "status": "out"}
    )
    assert (forged.status, forged.content_type) == (403, "text/html") and "stale" in await forged.text()
    stranger = await create_user(client, HOME, "zed@example.com")
    said = await posted(client, "/agents", queue=queue_id, user=stranger, csrf=csrf, status="out")
    assert f"User {stranger} is not an agent of queue {queue_id}" in said
    said = await posted(client, "/agents", queue=queue_id, user=ann, csrf=csrf, status="sideways")
    assert "Choose a queue, an agent, and to log the agent in or out." in said
    said = await posted(client, "/agents", csrf=csrf, queue="1 OR 1", user=ann, status="out")
    assert "Choose a queue, an agent" in said
    assert await client.server.app[EVENT_LOG].read(types=["queue.updated"]) == []


async def test_todays_counts_are_the_answered_and_missed_calls_and_the_average_wait(client, root):
    await logged_in(client)
    await place(client, root, to=ANSWERS + "1")  # answered 6 s after it started
    await place(client, root, to=ANSWERS + "2")
    await place(client, root, to=NOBODY)  # rings out: missed
    await advance(client, 120)
    page = await board(client)
    assert "<dd id=answered>2</dd>" in page and "<dd id=missed>1</dd>" in page
    assert "<dd id=average-wait>0:06</dd>" in page
    await advance(client, 86400)  # a new day (and a new login: the session idled out)
    await logged_in(client)
    assert "<dd id=answered>0</dd>" in await board(client)


async def test_recent_records_link_to_their_call_flow(client, root):
    await logged_in(client)
    call_id = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    await advance(client, 70)
    records = re.search(r"<table id=recent-cdrs>.*?</table>", await board(client), re.S).group(0)
    assert f'href="{BASE}/calls/{call_id}"' in records and "CONNECTED" in records
    flow = await client.get(f"{BASE}/calls/{call_id}")
    assert flow.status == 200 and f"Call flow of call {call_id}" in await flow.text()


async def test_a_customer_sees_only_its_own_calls_queues_and_agents(client, root):
    queue_id, (ann,) = await support_queue(client, root, ["Ann"])
    mine = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    await create_customer(client, "Other Ltd", "boss@other.example", "other-pass-123")
    response = await client.post(f"{BASE}/login", data={"email": "boss@other.example", "password": "other-pass-123"})
    page = await response.text()
    assert "Wallboard of Other Ltd" in page and f'data-call="{mine}"' not in page and "Support" not in page
    said = await posted(client, "/agents", queue=queue_id, user=ann, csrf=csrf_of(page), status="out")
    assert f"User {ann} is not an agent of queue {queue_id}" in said
    assert await client.server.app[EVENT_LOG].read(types=["queue.updated"]) == []
    flow = await client.get(f"{BASE}/calls/{mine}")
    assert flow.status == 404


async def test_every_value_on_the_wallboard_is_escaped(client, root):
    await logged_in(client)
    await provision(client)
    agent = await create_user(client, HOME, "x@example.com", first_name="<img src=x onerror=alert(1)>")
    await create(client, root, "queues", name='<script>alert("q")</script>', users=[{"id": agent}], ddis=[NUMBER])
    await ring(client, **{"from": "447700900601"}, hangup_after=30)
    page = await board(client)
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(&quot;q&quot;)&lt;/script&gt;" in page and "&lt;img src=x onerror=alert(1)&gt;" in page


async def test_the_page_stream_tells_a_session_of_its_own_customers_changes_and_the_clocks(client, root):
    refused = await client.get(f"{BASE}/stream")
    assert (refused.status, refused.content_type) == (401, "text/html")
    await logged_in(client)
    response = await client.get(f"{BASE}/stream")
    assert (response.status, response.headers["Content-Type"]) == (200, "text/event-stream")
    said = events(response.content)
    await create_customer(client, "Other Ltd", "boss@other.example", "other-pass-123")
    other = await client.post("/v1.2/voipstudio/login", json={"email": "boss@other.example",
                              "password": "other-pass-123"})  # fmt: skip
    token = (await other.json())["user_token"]
    placed = await client.post("/v1.2/voipstudio/calls", json={"to": ANSWERS + "9"}, headers={"X-Auth-Token": token})
    assert placed.status == 201  # another customer's call: not told
    await advance(client, 1)
    first = await asyncio.wait_for(anext(said), 10)
    assert (first.name, json.loads(first.data)) == ("changed", {"type": "clock.moved"})
    call_id = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    told = [await asyncio.wait_for(anext(said), 10) for _ in range(2)]
    assert [json.loads(m.data)["type"] for m in told] == ["call.placed", "call.accepted"]
    (recorded,) = [e for e in await client.server.app[EVENT_LOG].read(types=["call.placed"]) if e.event.id == call_id]
    assert told[0].position == recorded.position


async def test_the_page_serves_its_own_stylesheet_and_script_only(client):
    for name, media in (("dashboard.css", "text/css"), ("dashboard.js", "text/javascript")):
        response = await client.get(f"{BASE}/static/{name}")
        assert (response.status, response.content_type) == (200, media) and len(await response.text()) > 1000
        assert response.headers["X-Content-Type-Options"] == "nosniff"
    for name in ("secrets.txt", "..%2Fsession.py", "session.py"):
        assert (await client.get(f"{BASE}/static/{name}")).status == 404
