"""The app as the old log's traffic drives it: the settings it ran with, webhook receivers, a client.

Part of the script that made `old_log/` with the code before typed events (`make_old_log.py`).
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import wave
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient

from telephony.config import Billing, Control, DestinationRule, Settings, Simulator, Storage, Tariff, Webhooks

CONTROL_KEY = "test-control-key-0123456789"
CONTROL = {"X-Control-Key": CONTROL_KEY}
V12 = "/v1.2/voipstudio"
HOME = 100001
START = datetime(2026, 6, 29, 9, 0, tzinfo=UTC).timestamp()
PASSWORD = "correct-horse-battery-staple"
ANSWERS = "+447000100"
BUSY = "+447000200"
NO_ANSWER = "+447000300"
NUMBER = "+442071230000"
SMS_LINE = "+442071230001"
FAX_LINE = "+442071230002"
CALLER = "+447700900555"


def settings(data_dir: Path, ca_file: Path) -> Settings:
    rules = [
        DestinationRule(prefix=ANSWERS, outcome="answer", ring_seconds=5.0, talk_seconds=60.0),
        DestinationRule(prefix=BUSY, outcome="busy", ring_seconds=2.0),
        DestinationRule(prefix=NO_ANSWER, outcome="no_answer"),
    ]
    simulator = Simulator(seed=7, own_answer_seconds=1.0, no_answer_seconds=30.0, destinations=rules,
                          sms_sent_seconds=1.0, sms_delivered_seconds=3.0)  # fmt: skip
    tariffs = [
        Tariff(prefix="44", name="United Kingdom", per_minute=0.02, increment="60/60", sms=0.04),
        Tariff(prefix="447", name="UK mobile", per_minute=0.06, increment="1/1", connection_fee=0.01),
    ]
    return Settings(storage=Storage(data_dir=str(data_dir)), control=Control(key=CONTROL_KEY), simulator=simulator,
                    billing=Billing(default=Tariff(name="Elsewhere", per_minute=0.1), tariffs=tariffs),
                    webhooks=Webhooks(ca_file=str(ca_file), disable_after=3600.0, timeout_seconds=5.0))  # fmt: skip


class Receiver:
    """An HTTPS receiver of webhooks that answers 500 `failures` times, then 204."""

    def __init__(self, failures: int) -> None:
        self.failures = failures

    async def handle(self, request: web.Request) -> web.Response:
        await request.read()
        if self.failures > 0:
            self.failures -= 1
            return web.Response(status=500, text="not now")
        return web.Response(status=204)


class Driver:
    """The app over HTTP, as its clients and its operator use it."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.token = ""

    async def call(self, method: str, path: str, status: int | tuple[int, ...] = (200, 201, 202, 204),
                   headers: dict[str, str] | None = None, **kw: Any) -> Any:  # fmt: skip
        url = path if path.startswith("/_telephony") else V12 + path
        given = headers if headers is not None else (CONTROL if path.startswith("/_telephony") else self.auth)
        response = await self.client.request(method, url, headers=given, **kw)
        text = await response.text()
        wanted = (status,) if isinstance(status, int) else status
        assert response.status in wanted, (method, path, response.status, text)
        return json.loads(text) if text and response.content_type == "application/json" else text

    @property
    def auth(self) -> dict[str, str]:
        return {"X-Auth-Token": self.token}

    async def login(self, email: str = "admin@example.com", password: str = "change-me-now") -> str:
        answer = await self.call("POST", "/login", json={"email": email, "password": password}, headers={})
        return answer["user_token"]

    async def create(self, path: str, **body: Any) -> int:
        return (await self.call("POST", path, json=body))["data"]["id"]

    async def user(self, email: str, **fields: Any) -> int:
        body = {"email": email, "password": PASSWORD, **fields}
        return (await self.call("POST", f"/_telephony/customers/{HOME}/users", json=body))["data"]["id"]

    async def advance(self, seconds: float) -> None:
        await self.call("POST", "/_telephony/clock", json={"advance": seconds})
        await self.settled()
        if seconds > 600:  # the admin's login token lapses after 30 minutes unused
            self.token = await self.login()

    async def set_clock(self, when: str) -> None:
        await self.call("POST", "/_telephony/clock", json={"set": when})
        await self.settled()
        self.token = await self.login()

    async def settled(self) -> None:
        """Every reactor has dealt with the log, the timers due now have run, the POSTs under way are done."""
        from telephony.keys import EVENT_LOG, REACTORS, SCHEDULER, WEBHOOKS

        app = self.client.server.app
        while True:
            position = app[EVENT_LOG].position
            await asyncio.wait_for(app[REACTORS].reached(position), 60)
            await app[SCHEDULER].run_due()
            await asyncio.wait_for(app[WEBHOOKS].sender.idle(), 60)
            if app[EVENT_LOG].position == position:
                return

    async def ring(self, **body: Any) -> dict:
        sent = {"from": CALLER, "to": NUMBER, **body}
        return (await self.call("POST", "/_telephony/simulate/inbound-call", json=sent))["data"]

    async def route_number(self, **target: Any) -> None:
        await self.call("PATCH", f"/_telephony/ddis/{NUMBER}", json=target)


def wav() -> str:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1), out.setsampwidth(2), out.setframerate(8000), out.writeframes(b"\1\0" * 400)
    return base64.b64encode(buffer.getvalue()).decode()
