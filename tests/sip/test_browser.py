"""SIP.js from npm (the current release, and 0.9.2 inside the platform's CTI connector) in a real
headless Chromium (Debian's, driven by Playwright) against the server on a port, on the virtual
clock moved through the control API: it connects with the user's `sip_domain`, `sip_password` and
id, watches a click-to-call placed over REST ring, connect and hang up with the REST call id in the
dialog id, watches a queue's caller wait and be answered, is refused another customer's node; and,
REGISTERed, receives the INVITE of an inbound call, answers it and hangs it up.

SIP.js is installed by `scripts/install-sipjs` (into `.cache/sipjs`), Chromium by
`scripts/install-chromium`; a test skips, saying why, only when either cannot be had.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from telephony.clock import Clock
from telephony.config import Control, EventLogSettings, Settings, Simulator, Storage
from tests.accounts.helpers import PASSWORD
from tests.calls.conftest import ANSWERS, RULES
from tests.calls.helpers import by_live_id
from tests.conftest import CONTROL_KEY
from tests.dashboard.browsers import FLAGS, chromium
from tests.sip.test_dialogs import dialogs

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent / "browser"
CONTROL = {"X-Control-Key": CONTROL_KEY}
ADMIN = {"email": "admin@example.com", "password": "change-me-now"}
HOME, QUEUE_NUMBER, USER_NUMBER, CALLER = 100001, "+442071230000", "+442071230001", "+447700900555"
ORIGIN = "http://localhost:8765"
"""The page's origin, served by the test itself (a secure context, as a browser softphone needs)."""
SOON = 5000
"""How long (ms) the page may take to see what the server sent."""
VERSIONS = {"0.21.2": "current", "0.9.2": "legacy"}
MEDIA = ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
         "--disable-features=LocalNetworkAccessChecks"]  # fmt: skip
"""A softphone's microphone (a fake one, allowed), and the page (served by the test, so of no address)
let to open its WebSocket to the server on loopback."""


def sipjs() -> Path:
    """The folder SIP.js is installed in; the test skips, saying why, when it cannot be installed."""
    found = subprocess.run([str(ROOT / "scripts" / "install-sipjs")], capture_output=True, text=True, timeout=900,
                           check=False)  # fmt: skip
    if found.returncode != 0:
        pytest.skip(f"no SIP.js: {found.stderr.strip()[-300:]}")
    return Path(found.stdout.strip().splitlines()[-1])


class Server:
    """The server on a port, driven over HTTP as the root user or the operator."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.token = {"X-Auth-Token": self.login(ADMIN["email"], ADMIN["password"])}
        self.me = self.call("GET", "/me", 200)["data"]

    def login(self, email: str, password: str) -> str:
        answer = requests.post(f"{self.url}/v1.2/voipstudio/login", json={"email": email, "password": password},
                               timeout=10)  # fmt: skip
        return answer.json()["user_token"]

    def call(self, method: str, path: str, status: int = 201, **body: object) -> dict:
        control = path.startswith("/_telephony")
        url = self.url + (path if control else f"/v1.2/voipstudio{path}")
        answer = requests.request(method, url, json=body or None, headers=CONTROL if control else self.token,
                                  timeout=10)  # fmt: skip
        assert answer.status_code == status, answer.text
        return answer.json() if answer.content else {}

    def advance(self, seconds: float) -> None:
        self.call("POST", "/_telephony/clock", 200, advance=seconds)

    def ended(self, call_id: int) -> None:
        """Wait (up to `SOON` of real time) for the BYE the page sent to reach the server and end the call."""
        deadline = time.monotonic() + SOON / 1000
        while requests.get(f"{self.url}/v1.2/voipstudio/calls/{call_id}", headers=self.token, timeout=10).ok:
            assert time.monotonic() < deadline, f"call {call_id} did not end"
            time.sleep(0.05)

    def connected(self, call_id: int) -> dict:
        """The live call once the page's answer (its 200 OK) has reached the server (up to `SOON` of real
        time): SIP.js 0.9 reports the session established as it sends the answer."""
        deadline = time.monotonic() + SOON / 1000
        while (live := self.call("GET", f"/calls/{call_id}", 200)["data"])["state"] != "CONNECTED":
            assert time.monotonic() < deadline, f"call {call_id} was not answered: {live['state']}"
            time.sleep(0.05)
        return live

    def ring(self, to: str, **body: object) -> int:
        made = self.call("POST", "/_telephony/simulate/inbound-call", **{"from": CALLER, "to": to, **body})
        return made["data"]["id"]


@pytest.fixture(scope="module")
def server(tmp_path_factory, module_eventlog_url) -> Iterator[Server]:
    from telephony.embedded import serving

    data = tmp_path_factory.mktemp("sip-browser") / "data"
    simulator = Simulator(seed=7, own_answer_seconds=1.0, no_answer_seconds=30.0, destinations=RULES)
    settings = Settings(storage=Storage(data_dir=str(data)), control=Control(key=CONTROL_KEY), simulator=simulator,
                        eventlog=EventLogSettings(url=module_eventlog_url))  # fmt: skip
    with serving(settings, clock=Clock.virtual()) as url:
        made = Server(url)
        made.call("POST", f"/_telephony/customers/{HOME}/ddis", e164=USER_NUMBER, target_type="U",
                  target_id=made.me["id"])  # fmt: skip
        yield made


@pytest.fixture(scope="module")
def browser(server):
    """Chromium, started after the server and stopped before it (each store's): Playwright runs a loop of
    its own in this thread, where the server's must start first."""
    from playwright.sync_api import sync_playwright

    path, _ = chromium(), sipjs()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=path, args=[*FLAGS, *MEDIA])
        yield launched
        launched.close()


@pytest.fixture(params=list(VERSIONS))
def page(request, server, browser):
    """A page with SIP.js of the version, started as the root user with its `/me`'s SIP credentials."""
    version, harness = request.param, VERSIONS[request.param]
    package = sipjs() / version / "node_modules" / "sip.js"
    scripts = ('<script type="module" src="/current.js"></script>' if harness == "current" else
               '<script src="/sipjs/dist/sip-0.9.2.js"></script><script src="/legacy.js"></script>')  # fmt: skip

    def serve(route) -> None:
        path = route.request.url.removeprefix(ORIGIN)
        if path == "/":
            route.fulfill(body=f"<!doctype html><title>SIP.js {version}</title>{scripts}", content_type="text/html")
        elif path.startswith("/sipjs/") and ".." not in path:
            route.fulfill(path=str(package / path.removeprefix("/sipjs/")), content_type="text/javascript")
        else:
            route.fulfill(path=str(HERE / path.lstrip("/")), content_type="text/javascript")

    page = browser.new_page()
    page.route(f"{ORIGIN}/**", serve)
    page.goto(f"{ORIGIN}/")
    page.wait_for_function("window.ready === true", timeout=SOON)
    me = server.me
    config = {"server": server.url.replace("http://", "ws://") + "/_telephony/sip", "user": str(me["id"]),
              "domain": me["sip_domain"], "password": me["sip_password"], "userAgent": f"SIP.js/{version}"}  # fmt: skip
    page.evaluate("c => harness.start(c)", config)
    page.version = version  # type: ignore[attr-defined]
    yield page
    page.close()


def notified(page, node: str, until: str) -> list[dict[str, str]]:
    """The dialogs of the page's NOTIFYs for `node`, once one of them holds `until` (a JS condition on `body`)."""
    page.wait_for_function(f"window.events.some(e => e[0] === 'notify' && e[1] === '{node}' && ({until}))",
                           timeout=SOON)  # fmt: skip
    bodies = page.evaluate(f"window.events.filter(e => e[0] === 'notify' && e[1] === '{node}').map(e => e[2])")
    return [dialog for body in bodies if body for dialog in dialogs(body)]


def test_sipjs_watches_a_click_to_call_ring_connect_and_hang_up_with_the_rest_call_id(page, server):
    user = str(server.me["id"])
    page.evaluate("n => harness.subscribe(n)", user)
    notified(page, user, "e[2].includes('state=\"full\"')")
    call_id = server.call("POST", "/calls", to=ANSWERS + "1")["data"]["id"]
    server.advance(70)
    seen = [d for d in notified(page, user, f"e[2].includes('id=\"{call_id}-') && e[2].includes('terminated')")
            if d["id"].split("-")[0] == str(call_id)]  # fmt: skip
    assert [d["state"] for d in seen][-3:] == ["early", "confirmed", "terminated"] and seen[0]["state"] == "trying"
    assert {d["direction"] for d in seen} == {"initiator"} and seen[-1]["context"] == "PSTN_CALL"


def test_sipjs_watches_a_queues_caller_wait_and_be_answered(page, server):
    agent = server.call("POST", f"/_telephony/customers/{HOME}/users", email=f"agent-{page.version}@example.com",
                        password=PASSWORD, ext=str(400 + len(page.version)))["data"]["id"]  # fmt: skip
    number = QUEUE_NUMBER[:-2] + str(10 + len(page.version))
    server.call("POST", f"/_telephony/customers/{HOME}/ddis", e164=number)
    queue = server.call("POST", "/queues", name=f"Support {page.version}", users=[{"id": agent, "status": True}],
                        ddis=[number], ring_strategy="linear", ring_time=10, retry=10)["data"]["id"]  # fmt: skip
    node = f"queue-{queue}"
    page.evaluate("n => harness.subscribe(n)", node)
    notified(page, node, "e[2].includes('state=\"full\"')")
    call_id = server.ring(number, answer={str(agent): 3}, hangup_after=30)
    server.advance(40)
    seen = [d for d in notified(page, node, f"e[2].includes('id=\"{call_id}-') && e[2].includes('terminated')")
            if d["id"].split("-")[0] == str(call_id)]  # fmt: skip
    assert {d["direction"] for d in seen} == {"receiver"} and {d["context"] for d in seen} == {"QUEUE"}
    assert "confirmed" in [d["state"] for d in seen] and seen[-1]["state"] == "terminated"


def test_sipjs_is_refused_another_customers_node(page, server):
    other = server.call("POST", "/_telephony/customers", name=f"Other {page.version}",
                        admin_email=f"other-{page.version}@other.test", admin_password=PASSWORD)  # fmt: skip
    node = str(other["data"]["user"]["id"])
    page.evaluate("n => harness.subscribe(n)", node)
    refused = ("window.events.some(e => (e[0] === 'rejected' && e[1] === '{0}' && e[2] === 403) || "
               "(e[0] === 'received' && e[1].startsWith('SIP/2.0 403') && e[1].includes('SUBSCRIBE')))")  # fmt: skip
    page.wait_for_function(refused.format(node), timeout=SOON)
    assert page.evaluate(f"window.events.filter(e => e[0] === 'notify' && e[1] === '{node}').length") == 0


def test_a_registered_sipjs_answers_an_inbound_call_and_hangs_it_up_as_the_callee(page, server):
    user = server.me["id"]
    page.evaluate("harness.register()")
    call_id = server.ring(USER_NUMBER, hangup_after=600)
    page.wait_for_function("window.events.some(e => e[0] === 'session' && e[2] === 'Established')", timeout=SOON)
    live = server.connected(call_id)
    assert (live["dst_ua"], live["dst_id"]) == (f"SIP.js/{page.version}", str(user))
    server.advance(12)
    page.evaluate("harness.bye()")
    server.ended(call_id)
    cdrs = server.call("GET", "/cdrs" + by_live_id(call_id), 200)["data"]
    assert [(c["dst_ua"], c["disposition"], c["t_cause"], c["billsec"]) for c in cdrs] == [
        (f"SIP.js/{page.version}", "CONNECTED", "normal clearing", 12)]  # fmt: skip
