"""Helpers of the call engine tests: place calls, move the clock, read what a call left."""

from __future__ import annotations

import json
from typing import Any

from aiohttp.test_utils import TestClient

from telephony.domain.calls.call import Call
from telephony.domain.calls.fold import evolve
from telephony.domain.events.base import data_of
from telephony.domain.events.calls import CallEvent
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


async def typed_events(client: TestClient, call_id: int) -> list[CallEvent]:
    return [e.event for e in await client.app[EVENT_LOG].read_stream(f"call-{call_id}")]  # type: ignore[misc]


async def call_events(client: TestClient, call_id: int) -> list[tuple[str, dict]]:
    """A call's events as (type, data as the log stores it)."""
    events = await client.app[EVENT_LOG].read_stream(f"call-{call_id}")
    return [(e.type, data_of(e.event)) for e in events]


async def legs(client: TestClient, call_id: int) -> list[int]:
    """The calls a caller went through from `call_id` on: each answered leg's child (an IVR sending the
    caller on, a transfer)."""
    ids = [call_id]
    while True:
        child = next((d["child_id"] for t, d in await call_events(client, ids[-1]) if t == "call.transferred"), None)
        if child is None:
            return ids
        ids.append(child)


async def states(client: TestClient, call_id: int) -> list[str]:
    """The states a call went through, in order (each change once)."""
    call, seen = Call(id=call_id), []
    for event in await typed_events(client, call_id):
        call = evolve(call, event)
        if not seen or seen[-1] != call.state:
            seen.append(call.state)
    return seen


async def cdrs_of(client: TestClient, creds: Creds, call_id: int) -> list[dict]:
    """The CDRs a call left (a missed user's first), by `live_id`."""
    return (await get(client, creds, "/cdrs" + by_live_id(call_id)))["data"]


def routed(cdr: dict) -> tuple:
    """What a CDR says of where its call went: type, context, src_id, dst_id, parent_live_id."""
    return cdr["type"], cdr["context"], cdr["src_id"], cdr["dst_id"], cdr["parent_live_id"]
