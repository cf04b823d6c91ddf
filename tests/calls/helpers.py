"""Helpers of the call engine tests: place calls, move the clock, read what a call left."""

from __future__ import annotations

import json
from typing import Any

from aiohttp.test_utils import TestClient

from telephony.keys import EVENT_LOG
from tests.accounts.helpers import CONTROL, Creds, url


async def place(client: TestClient, creds: Creds, status: int = 201, path: str = "/calls", **body: Any) -> dict:
    response = await client.post(url("v1.2", path), json=body, headers=creds.headers())
    answer = await response.json()
    assert response.status == status, answer
    return answer


async def advance(client: TestClient, seconds: float) -> None:
    response = await client.post("/_telephony/clock", json={"advance": seconds}, headers=CONTROL)
    assert response.status == 200, await response.text()


async def get(client: TestClient, creds: Creds, path: str, status: int = 200) -> Any:
    response = await client.get(url("v1.2", path), headers=creds.headers())
    body = await response.json()
    assert response.status == status, body
    return body


async def patch(client: TestClient, creds: Creds, call_id: int, status: int = 200, **body: Any) -> dict:
    response = await client.patch(url("v1.2", f"/calls/{call_id}"), json=body, headers=creds.headers())
    answer = await response.json()
    assert response.status == status, answer
    return answer


def by_live_id(call_id: int) -> str:
    return "?filter=" + json.dumps([{"property": "live_id", "operator": "=", "value": call_id}])


async def call_events(client: TestClient, call_id: int) -> list[tuple[str, dict]]:
    events = await client.app[EVENT_LOG].read_stream(f"call-{call_id}")
    return [(e.type, e.data) for e in events]
