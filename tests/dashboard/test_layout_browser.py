"""The dashboard's pages laid out in a real headless Chromium at a wall screen's width (1440 px) and a
phone's (390 px): what a supervisor reads stays in view (a live call's state and duration, a
webhook's actions, the routing hops of a call), the add form's checkboxes sit beside their labels,
and no page logs a console error (its icon included). Screenshots of each page at both widths are
written to `tests/dashboard/screenshots/` (git-ignored; their paths are printed).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.calls.conftest import ANSWERS
from tests.dashboard.browsers import FLAGS, chromium, shot
from tests.dashboard.test_wallboard_browser import ADMIN, HOME, SOON, Server, browser, server

__all__ = ["browser", "server"]
pytestmark = pytest.mark.browser
WIDTHS = (1440, 390)
MAIN, SALES = "+442071230100", "+442071230200"


class Failing(BaseHTTPRequestHandler):
    """A webhook receiver that is down: every delivery fails (503), so the next wait behind it."""

    def do_HEAD(self) -> None:  # noqa: N802 (the URL check when a webhook is saved)
        self.send_response(204)
        self.end_headers()

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(503)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def failing(module_store) -> Iterator[str]:
    http = ThreadingHTTPServer(("127.0.0.1", 0), Failing)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{http.server_address[1]}/down"
    http.shutdown()


@pytest.fixture(scope="module")
def floor(server: Server, failing: str) -> dict[str, int]:
    """A company's floor: Ann and Bob in the Sales queue behind an IVR, a webhook whose receiver is down,
    a call through the IVR to the queue (Ann never answers, Bob is busy) on to Ann's voicemail, and
    callers on the board now (one talking to Ann, one waiting, an outbound call)."""
    users = {}
    for n, name in enumerate(("Ann Archer", "Bob Baker")):
        first, last = name.split()
        users[first] = server.call("POST", f"/_telephony/customers/{HOME}/users", email=f"{first.lower()}@example.com",
                                   password=f"pw-{first.lower()}-12345", first_name=first, last_name=last,
                                   ext=str(411 + n))["data"]["id"]  # fmt: skip
    for number in (MAIN, SALES):
        server.call("POST", f"/_telephony/customers/{HOME}/ddis", e164=number)
    members = [{"id": users["Ann"], "status": True}, {"id": users["Bob"], "status": True}]
    queue = server.call("POST", "/queues", name="Sales", ddis=[SALES], ring_strategy="linear", ring_time=5, retry=2,
                        max_wait_time=20, users=members, final_dst_type=2, final_dst_id=users["Ann"])  # fmt: skip
    queue_id = queue["data"]["id"]
    server.call("POST", "/ivrs", name="Main menu", ddis=[MAIN], timeout=5, one=f"Q:{queue_id}", final_dst_type="H")
    server.call("POST", "/_telephony/webhooks", user=True, name="crm", url=failing, events=["call.state"])
    answers = {str(users["Ann"]): "never", str(users["Bob"]): "busy"}
    routed = server.call("POST", "/_telephony/simulate/inbound-call", **{"from": "447700900701", "to": MAIN},
                         answer=answers, digits=[{"key": "1", "after": 1}], hangup_after=40)["data"]["id"]  # fmt: skip
    server.advance(60)
    talking = server.call("POST", "/_telephony/simulate/inbound-call", **{"from": "447700900702", "to": SALES},
                          answer={str(users["Ann"]): 1}, hangup_after=600)["data"]["id"]  # fmt: skip
    server.advance(2)
    waiting = server.call("POST", "/_telephony/simulate/inbound-call", **{"from": "447700900703", "to": SALES},
                          answer={str(users["Bob"]): "never"}, hangup_after=600)["data"]["id"]  # fmt: skip
    outbound = server.call("POST", "/calls", to=ANSWERS + "9")["data"]["id"]
    server.advance(1)  # Ann talks (5 s at least), the outbound call rings its destination
    return {"routed": routed, "talking": talking, "waiting": waiting, "outbound": outbound, "queue": queue_id,
            "ann": users["Ann"], "bob": users["Bob"]}  # fmt: skip


@pytest.fixture
def page(server, browser, floor):
    """A page logged in to the dashboard, its console errors and failed requests kept in `page.problems`."""
    page = browser.new_page(viewport={"width": WIDTHS[0], "height": 900})
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("response", lambda answer: problems.append(f"{answer.status} {answer.url}") if answer.status >= 400
            else None)  # fmt: skip
    page.problems = problems
    page.goto(f"{server.url}/_telephony/dashboard")
    page.fill("input[name=email]", ADMIN["email"])
    page.fill("input[name=password]", ADMIN["password"])
    page.click("button:text-is('Log in')")
    page.wait_for_selector("h1:has-text('Wallboard of')")
    yield page
    page.close()


def in_view(page, locator, width: int) -> bool:
    """Whether an element is shown whole within the viewport's width, and not scrolled away inside its
    table's scrolling card."""
    box = locator.bounding_box()
    if box is None or box["width"] == 0:
        return False
    card = locator.locator("xpath=ancestor::div[contains(@class, 'scroll')][1]")
    limit = card.bounding_box() if card.count() else {"x": 0, "width": width}
    return box["x"] >= limit["x"] - 0.5 and box["x"] + box["width"] <= min(width, limit["x"] + limit["width"]) + 0.5


@pytest.mark.parametrize("width", WIDTHS)
def test_the_wallboard_keeps_each_live_calls_state_and_duration_in_view(page, floor, width):
    page.set_viewport_size({"width": width, "height": 900})
    for call in ("talking", "waiting", "outbound"):
        page.locator(f"tr[data-call='{floor[call]}']").wait_for(timeout=SOON)
    shot(page, f"wallboard-{width}")
    for call in ("talking", "waiting", "outbound"):
        row = page.locator(f"tr[data-call='{floor[call]}']")
        cells = row.locator("td")
        for n in (3, 4):  # State, Duration
            assert in_view(page, cells.nth(n), width), (call, n, cells.nth(n).inner_text())
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.problems == []


@pytest.mark.parametrize("width", WIDTHS)
def test_the_webhooks_page_keeps_its_actions_in_view_and_its_checkboxes_beside_their_labels(page, server, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{server.url}/_telephony/dashboard/webhooks")
    page.wait_for_selector("h1:has-text('Webhooks of')")
    shot(page, f"webhooks-{width}")
    for action in ("Save crm", "Delete crm"):
        assert in_view(page, page.locator(f"button[aria-label='{action}']"), width), action
    labels = page.locator("form[action$='/webhooks'] label.check")
    tops = set()
    for n in range(labels.count()):
        label, box = labels.nth(n), labels.nth(n).locator("input").bounding_box()
        text = label.bounding_box()
        assert box["x"] < text["x"] + text["width"] and box["x"] + box["width"] <= text["x"] + 30  # the box leads
        assert text["y"] <= box["y"] + box["height"] / 2 <= text["y"] + text["height"]  # on the label's line
        assert text["height"] < 2 * box["height"] + 8  # one line: the box and its words side by side
        tops.add(round(text["y"]))
    assert len(tops) < labels.count()  # several to a line
    waiting = page.locator("table.deliveries td:text-matches('^after delivery [0-9]+$')")
    assert waiting.count() > 0 and in_view(page, waiting.first, width)  # behind the failing one, not a time gone by
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.problems == []


@pytest.mark.parametrize("width", WIDTHS)
def test_a_calls_flow_shows_its_routing_hops_in_view(page, server, floor, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{server.url}/_telephony/dashboard/calls/{floor['routed']}")
    page.wait_for_selector(f"h1:has-text('Call flow of call {floor['routed']}')")
    shot(page, f"call-flow-{width}")
    hops = page.locator("ol.hops li")
    kinds = [hops.nth(n).locator("b").inner_text() for n in range(hops.count())]
    assert kinds[:3] == ["Dialled", "IVR", "Queue"] and kinds[-1] == "Voicemail"
    assert set(kinds[3:-1]) == {"Agent"}  # Ann and Bob, in turn, until the caller waited the queue out
    for n in range(hops.count()):
        box, outcome = hops.nth(n).bounding_box(), hops.nth(n).locator(".outcome")
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
        assert outcome.count() == 0 or in_view(page, outcome, width)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.problems == []


def test_no_page_logs_a_console_error_its_icon_included(server, browser, floor):
    """In a browser of its own: a browser asks a site for its icon once, and remembers a missing one."""
    fresh = browser.browser_type.launch(executable_path=chromium(), args=FLAGS)
    page = fresh.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(f"{server.url}/_telephony/dashboard")  # the login page
    page.wait_for_load_state("networkidle")
    page.fill("input[name=email]", ADMIN["email"])
    page.fill("input[name=password]", ADMIN["password"])
    page.click("button:text-is('Log in')")
    for path in ("", "/webhooks", f"/calls/{floor['routed']}"):
        page.goto(f"{server.url}/_telephony/dashboard{path}")
        page.wait_for_load_state("networkidle")
    fresh.close()
    assert errors == []
