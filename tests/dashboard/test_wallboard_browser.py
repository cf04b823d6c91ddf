"""The wallboard in a real headless Chromium (Debian's, driven by Playwright) against the server on a
port (`telephony.embedded`, in a thread of its own) on the virtual clock, moved through the control
API: log in; a call placed through the API appears within a second and its duration runs as the
clock moves; a caller joins a queue and an agent is logged out from the page; a delivery is
redelivered from a call's flow. Screenshots of the wallboard and the call flow are saved in
`screenshots/` beside the test (their paths are printed).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import msgspec
import pytest
import requests

from telephony.clock import Clock
from telephony.config import Control, EventLogSettings, Settings, Simulator, Storage, Webhooks
from telephony.embedded import serving
from tests.calls.conftest import ANSWERS, RULES
from tests.conftest import CONTROL_KEY
from tests.dashboard.browsers import FLAGS, chromium, shot

pytestmark = pytest.mark.browser
CONTROL = {"X-Control-Key": CONTROL_KEY}
ADMIN = {"email": "admin@example.com", "password": "change-me-now"}
HOME, NUMBER = 100001, "+442071230000"
SOON = 1000
"""How long (ms) a page may take to show what the log recorded."""


class Receiver(BaseHTTPRequestHandler):
    """A webhook receiver on loopback that takes every delivery (204) and keeps its `webhook-id` and call."""

    got: list[tuple[str, int]] = []

    def do_HEAD(self) -> None:  # noqa: N802 (the URL check when a webhook is saved)
        self.send_response(204)
        self.end_headers()

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.got.append((self.headers["webhook-id"], body["call_id"]))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


class Server:
    """The server on a port, driven over HTTP with the control key and a root user's token."""

    def __init__(self, url: str) -> None:
        self.url = url
        answer = requests.post(f"{url}/v1.2/voipstudio/login", json=ADMIN, timeout=10)
        self.token = {"X-Auth-Token": answer.json()["user_token"]}

    def call(self, method: str, path: str, status: int = 201, user: bool = False, **body: object) -> dict:
        """An API request (as the root user), or an operator's under `/_telephony` (with the control key,
        unless `user`)."""
        headers = CONTROL if path.startswith("/_telephony") and not user else self.token
        url = self.url + (path if path.startswith("/_telephony") else f"/v1.2/voipstudio{path}")
        answer = requests.request(method, url, json=body or None, headers=headers, timeout=10)
        assert answer.status_code == status, answer.text
        return answer.json() if answer.content else {}

    def advance(self, seconds: float) -> None:
        self.call("POST", "/_telephony/clock", 200, advance=seconds)


@pytest.fixture(scope="module")
def receiver(module_store) -> Iterator[str]:
    """A webhook receiver of its own for each store's run of the module."""
    Receiver.got = []
    http = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{http.server_address[1]}/hooks"
    http.shutdown()


@pytest.fixture(scope="module")
def server(tmp_path_factory, module_eventlog_url) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("wallboard") / "data"
    url = module_eventlog_url
    settings = Settings(storage=Storage(data_dir=str(data)), control=Control(key=CONTROL_KEY),
                        eventlog=EventLogSettings(url=url))  # fmt: skip
    simulator = Simulator(seed=7, own_answer_seconds=1.0, no_answer_seconds=30.0, destinations=RULES)
    settings = msgspec.structs.replace(settings, simulator=simulator, webhooks=Webhooks(allow_http_loopback=True))
    with serving(settings, clock=Clock.virtual()) as url:
        yield Server(url)


@pytest.fixture(scope="module")
def browser(server):
    """Chromium, started after the server and stopped before it (each store's): Playwright runs a loop of
    its own in this thread, where the server's must start first."""
    from playwright.sync_api import sync_playwright

    path = chromium()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=path, args=FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def page(server, browser):
    """A page logged in to the wallboard, with the event stream open (the server starts first: Playwright
    runs a loop of its own in this thread)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server.url}/_telephony/dashboard")
    page.fill("input[name=email]", ADMIN["email"])
    page.fill("input[name=password]", ADMIN["password"])
    page.click("button:text-is('Log in')")
    page.wait_for_selector("h1:has-text('Wallboard of')")
    page.locator("html[data-live=yes]").wait_for(state="attached")  # (no eval: the page's policy forbids it)
    yield page
    page.close()


def test_a_call_placed_through_the_api_appears_within_a_second_and_its_duration_runs(page, server):
    started = time.monotonic()
    call_id = server.call("POST", "/calls", to=ANSWERS + "1")["data"]["id"]
    row = page.locator(f"tr[data-call='{call_id}']")
    row.wait_for(timeout=SOON)
    assert time.monotonic() - started < 1.0 + 0.5  # the POST's own answer, and the page within a second after it
    assert "0:00" in row.inner_text()
    server.advance(8)  # the caller's phone answers at 1 s, the destination rings 5 s and answers
    row.locator(".duration:text-is('0:08')").wait_for(timeout=SOON)
    assert "talking" in row.inner_text()
    server.advance(3)
    row.locator(".duration:text-is('0:11')").wait_for(timeout=SOON)
    server.advance(60)
    row.wait_for(state="detached", timeout=SOON)
    page.locator(f"#recent-cdrs a[href$='/calls/{call_id}']").wait_for(timeout=SOON)


def test_a_caller_joins_a_queue_and_an_agent_is_logged_out_from_the_page(page, server):
    ann = server.call("POST", f"/_telephony/customers/{HOME}/users", email="ann@example.com", password="pw-ann-12345",
                      first_name="Ann", last_name="Archer", ext="401")["data"]["id"]  # fmt: skip
    bob = server.call("POST", f"/_telephony/customers/{HOME}/users", email="bob@example.com", password="pw-bob-12345",
                      first_name="Bob", last_name="Baker", ext="402")["data"]["id"]  # fmt: skip
    server.call("POST", f"/_telephony/customers/{HOME}/ddis", e164=NUMBER)
    queue_id = server.call("POST", "/queues", name="Support", ddis=[NUMBER], ring_strategy="linear",
                           users=[{"id": ann, "status": True}, {"id": bob, "status": True}])["data"]["id"]  # fmt: skip
    queue = page.locator(f"article[data-queue='{queue_id}']")
    queue.wait_for(timeout=SOON)
    talking = server.call("POST", "/calls", to=ANSWERS + "2")["data"]["id"]  # a live call on the board too
    server.call("POST", "/_telephony/simulate/inbound-call", **{"from": "447700900601", "to": NUMBER},
                answer={str(ann): 4}, hangup_after=120)  # fmt: skip
    queue.locator(f"li[data-agent='{ann}'] .agent:text-is('ringing')").wait_for(timeout=SOON)
    server.advance(5)
    queue.locator(f"li[data-agent='{ann}'] .agent:text-is('on a call')").wait_for(timeout=SOON)
    page.locator(f"tr[data-call='{talking}']").wait_for(timeout=SOON)
    shot(page, "wallboard")
    page.click("button[aria-label='Log Bob Baker out of Support']")
    queue.locator(f"li[data-agent='{bob}'] .agent:text-is('logged out')").wait_for(timeout=SOON)
    assert "logged out of queue" in page.inner_text("[role=status]")
    page.click("button[aria-label='Log Bob Baker in to Support']")
    queue.locator(f"li[data-agent='{bob}'] .agent:text-is('free')").wait_for(timeout=SOON)
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: one column, nothing wider than the screen
    shot(page, "wallboard-phone")
    boxes = [page.locator(f"section.{part}").bounding_box() for part in ("today", "calls", "queues", "cdrs")]
    assert all(box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390 for box in boxes)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # wide tables scroll in their card


def received(call_id: int, count: int) -> list[str]:
    """The webhook-ids of a call's deliveries, once the receiver has `count` (a real event: no time passes)."""
    deadline = time.monotonic() + 10
    while len(got := [hook for hook, call in Receiver.got if call == call_id]) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return got


def test_a_delivery_is_redelivered_from_the_call_flow(page, server, receiver):
    server.call("POST", "/_telephony/webhooks", user=True, name="crm", url=receiver, events=["call.state"])
    call_id = server.call("POST", "/calls", to=ANSWERS + "3")["data"]["id"]
    server.advance(70)
    server.advance(1)  # the deliveries' attempts fall due
    first = received(call_id, 4)
    assert len(first) == 4
    page.click(f"#recent-cdrs a[href$='/calls/{call_id}']")
    page.wait_for_selector(f"h1:has-text('Call flow of call {call_id}')")
    assert [s.split()[0] for s in page.locator("ol.timeline li").all_inner_texts()][-1] == "HANGUP"
    shot(page, "call-flow")
    page.click("tr.delivery >> nth=0 >> button:text-is('Redeliver')")
    page.wait_for_selector("text=queued again")
    server.advance(1)
    again = received(call_id, 5)
    assert again[4] == first[0]  # the same event again: the same webhook-id
    page.locator("tr.delivery .badge.delivered").nth(4).wait_for(timeout=SOON)  # the page shows it delivered
