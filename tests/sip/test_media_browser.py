"""A SIP.js softphone in Chromium hears the call it answers, and is heard: Chromium's fake microphone
plays a 600 Hz tone (a WAV the test writes), the server plays the simulated caller's tone (900 Hz for
+447700900555); the page measures what it hears with a WebAudio analyser, the server what it
receives; the phone's hang-up closes the server's peer connection and leaves no media task.

SIP.js and Chromium are installed as for tests/sip/test_browser.py (a test skips, saying why, only
when either cannot be had). Audio runs in real time: the test waits for it (up to `SOON`), on
loopback it connects within tens of milliseconds.
"""

from __future__ import annotations

import asyncio
import time
import wave
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from telephony import create_app
from telephony.clock import Clock
from telephony.config import Control, EventLogSettings, Settings, Simulator, Storage
from telephony.keys import MEDIA
from telephony.threaded import running
from tests.calls.conftest import RULES
from tests.calls.helpers import by_live_id
from tests.conftest import CONTROL_KEY
from tests.dashboard.browsers import FLAGS, chromium
from tests.sip.phone import dominant_hz, media_tasks
from tests.sip.test_browser import HERE, HOME, ORIGIN, SOON, USER_NUMBER, Server, sipjs

pytestmark = pytest.mark.browser
VERSION = "0.21.2"
PHONE_HZ, CALLER_HZ = 600, 900
"""The microphone's tone, and the simulated caller's (+447700900555: 700 Hz + 40 Hz × 5)."""


def tone_wav(path: Path, hz: int, seconds: float = 2.0, rate: int = 48000) -> Path:
    """A mono 16-bit WAV of a sine at `hz` (Chromium's fake microphone loops it)."""
    samples = (0.5 * 32767 * np.sin(2 * np.pi * hz * np.arange(int(seconds * rate)) / rate)).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(samples.tobytes())
    return path


class Served(Server):
    """The server on a port, and a look into its media room, taken on the server's own loop."""

    def __init__(self, url: str, app, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(url)
        self.app, self.loop = app, loop

    def inside(self, look: Callable[[], Any]) -> Any:
        async def taken() -> Any:
            return look()

        return asyncio.run_coroutine_threadsafe(taken(), self.loop).result(timeout=10)

    def sessions(self) -> list[dict]:
        def seen() -> list[dict]:
            return [{"hz": dominant_hz(s.heard), "frames": s.heard.frames, "codec": s.codec(),
                     "connected": s.connected_at is not None} for s in self.app[MEDIA].sessions]  # fmt: skip

        return self.inside(seen)

    def media_left(self) -> tuple[int, int]:
        """The media sessions open or closing, and the media tasks of the server's loop."""
        return self.inside(lambda: (self.app[MEDIA].busy, len(media_tasks())))


def until(look: Callable[[], Any], what: str) -> Any:
    """What `look()` gives once it is truthy (polled up to `SOON` of real time)."""
    deadline = time.monotonic() + SOON / 1000
    while not (seen := look()):
        assert time.monotonic() < deadline, what
        time.sleep(0.05)
    return seen


@pytest.fixture(scope="module")
def served(tmp_path_factory, module_eventlog_url) -> Iterator[Served]:
    data = tmp_path_factory.mktemp("sip-media") / "data"
    simulator = Simulator(seed=7, own_answer_seconds=1.0, no_answer_seconds=30.0, destinations=RULES)
    settings = Settings(storage=Storage(data_dir=str(data)), control=Control(key=CONTROL_KEY), simulator=simulator,
                        eventlog=EventLogSettings(url=module_eventlog_url))  # fmt: skip
    app, loops = create_app(settings, clock=Clock.virtual()), []

    async def remember_loop(_app) -> None:
        loops.append(asyncio.get_running_loop())

    app.on_startup.append(remember_loop)
    with running(app) as (host, port):
        made = Served(f"http://{host}:{port}", app, loops[0])
        made.call("POST", f"/_telephony/customers/{HOME}/ddis", e164=USER_NUMBER, target_type="U",
                  target_id=made.me["id"])  # fmt: skip
        yield made


@pytest.fixture(scope="module")
def browser(served, tmp_path_factory):
    """Chromium whose fake microphone plays `PHONE_HZ`, started after the server and stopped before it."""
    from playwright.sync_api import sync_playwright

    wav = tone_wav(tmp_path_factory.mktemp("microphone") / "tone.wav", PHONE_HZ)
    path, _ = chromium(), sipjs()
    media = ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
             f"--use-file-for-fake-audio-capture={wav}", "--autoplay-policy=no-user-gesture-required",
             "--disable-features=LocalNetworkAccessChecks"]  # fmt: skip
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=path, args=[*FLAGS, *media])
        yield launched
        launched.close()


@pytest.fixture
def page(served, browser):
    """A page with SIP.js at its current release, started as the root user, that measures what it hears."""
    package = sipjs() / VERSION / "node_modules" / "sip.js"
    scripts = '<script type="module" src="/hearing.js"></script><script type="module" src="/current.js"></script>'

    def serve(route) -> None:
        path = route.request.url.removeprefix(ORIGIN)
        if path == "/":
            route.fulfill(body=f"<!doctype html><title>SIP.js {VERSION}</title>{scripts}", content_type="text/html")
        elif path.startswith("/sipjs/") and ".." not in path:
            route.fulfill(path=str(package / path.removeprefix("/sipjs/")), content_type="text/javascript")
        else:
            route.fulfill(path=str(HERE / path.lstrip("/")), content_type="text/javascript")

    page = browser.new_page()
    page.route(f"{ORIGIN}/**", serve)
    page.goto(f"{ORIGIN}/")
    page.wait_for_function("window.ready === true && window.hearing !== undefined", timeout=SOON)
    me = served.me
    config = {"server": served.url.replace("http://", "ws://") + "/_telephony/sip", "user": str(me["id"]),
              "domain": me["sip_domain"], "password": me["sip_password"], "userAgent": f"SIP.js/{VERSION}"}  # fmt: skip
    page.evaluate("c => harness.start(c)", config)
    yield page
    page.close()


def test_a_sipjs_softphone_answering_an_inbound_call_hears_the_caller_and_is_heard(page, served):
    page.evaluate("harness.register()")
    call_id = served.ring(USER_NUMBER, hangup_after=600)
    page.wait_for_function("window.events.some(e => e[0] === 'session' && e[2] === 'Established')", timeout=SOON)
    served.connected(call_id)
    page.wait_for_function("window.peerConnections.some(pc => pc.connectionState === 'connected')", timeout=SOON)
    heard = page.evaluate("hearing.dominant(1000)")
    assert abs(heard["hz"] - CALLER_HZ) <= 20 and heard["dbfs"] > -40, heard
    (session,) = until(lambda: [s for s in served.sessions() if s["hz"] is not None], "the server heard nothing")
    assert abs(session["hz"] - PHONE_HZ) <= 20 and session["frames"] >= 50 and session["connected"], session
    served.advance(12)
    page.evaluate("harness.bye()")
    served.ended(call_id)
    until(lambda: served.media_left() == (0, 0), "the media did not close")
    cdrs = served.call("GET", "/cdrs" + by_live_id(call_id), 200)["data"]
    assert [(c["disposition"], c["t_cause"], c["billsec"]) for c in cdrs] == [("CONNECTED", "normal clearing", 12)]
