"""Fault rules on API requests: a status with the platform's error body, latency, a dropped
connection, a slow body; counted, drawn from the seed, expiring on the clock, kept across a restart."""

from __future__ import annotations

import time

import aiohttp
import msgspec
import pytest

from telephony.app import create_app
from telephony.keys import EVENT_LOG
from tests.accounts.helpers import CONTROL, url
from tests.calls.conftest import ANSWERS
from tests.calls.helpers import advance, get, place
from tests.faults.helpers import add_fault, listed_faults


async def test_a_503_rule_with_count_2_fails_exactly_two_calls_then_calls_pass(client, root):
    made = (await add_fault(client, method="POST", path="/calls", status=503, retry_after=5, count=2))["data"]
    for version in ("v1.1", "v1.2"):  # one rule, both versions
        response = await client.post(url(version, "/calls"), json={"to": ANSWERS + "1"}, headers=root.headers())
        assert response.status == 503 and response.headers["Retry-After"] == "5"
        assert await response.json() == {"message": "Service unavailable",
                                         "errors": [{"field": None, "message": "Service unavailable"}]}  # fmt: skip
    assert (await get(client, root, "/calls"))["total"] == 0  # neither was placed
    third = (await place(client, root, to=ANSWERS + "1"))["data"]
    assert third["state"] == "RINGING"
    (shown,) = await listed_faults(client)
    assert (shown["id"], shown["matched"], shown["fired"], shown["active"]) == (made["id"], 2, 2, False)
    matched = await client.app[EVENT_LOG].read(types=["fault.matched"])
    assert [(e.event.matched, e.event.fired, e.event.effect) for e in matched] == [(1, 1, "status"),
                                                                                   (2, 2, "status")]  # fmt: skip


async def test_a_rule_matches_its_method_and_its_path_pattern_only(client, root):
    await add_fault(client, method="GET", path="/cdrs/*", status=500)
    assert (await client.get(url("v1.2", "/cdrs"), headers=root.headers())).status == 200
    assert (await client.post(url("v1.2", "/cdrs/7"), headers=root.headers())).status != 500
    response = await client.get(url("v1.1", "/cdrs/7"), headers=root.headers())
    assert response.status == 500 and "Retry-After" not in response.headers
    assert (await response.json())["message"] == "Internal server error"
    assert (await client.get("/_telephony/faults", headers=CONTROL)).status == 200  # never the operator's


async def test_a_fault_comes_before_authentication(client):
    await add_fault(client, path="/**", status=429, retry_after=30)
    response = await client.get(url("v1.2", "/contacts"))
    assert (response.status, response.headers["Retry-After"]) == (429, "30")
    assert (await response.json())["message"] == "Too many requests"


async def test_a_latency_rule_adds_at_least_its_latency(client, root):
    await add_fault(client, method="GET", path="/contacts", latency_ms=300, count=1)
    started = time.perf_counter()  # the real clock, by design: a client's timeouts are real time
    response = await client.get(url("v1.2", "/contacts"), headers=root.headers())
    assert response.status == 200 and time.perf_counter() - started >= 0.3
    started = time.perf_counter()
    assert (await client.get(url("v1.2", "/contacts"), headers=root.headers())).status == 200
    assert time.perf_counter() - started < 0.3


async def test_a_dropped_request_closes_the_connection_unanswered_and_is_not_handled(client, root):
    await add_fault(client, method="POST", path="/calls", drop=True, count=1)
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await client.post(url("v1.2", "/calls"), json={"to": ANSWERS + "1"}, headers=root.headers())
    assert (await get(client, root, "/calls"))["total"] == 0
    await place(client, root, to=ANSWERS + "1")


async def test_a_slow_body_is_the_whole_answer_trickling_out(client, root):
    expected = await get(client, root, "/contacts?limit=5")
    await add_fault(client, method="GET", path="/contacts", slow_body=400)
    started = time.perf_counter()
    response = await client.get(url("v1.2", "/contacts?limit=5"), headers=root.headers())
    headers_at = time.perf_counter() - started
    assert response.status == 200 and await response.json() == expected
    assert headers_at < 0.4 <= time.perf_counter() - started
    assert int(response.headers["Content-Length"]) == len(await response.read())


@pytest.mark.sqlite_only  # two fresh data dirs in one test: one PostgreSQL database per test
async def test_draws_follow_the_seed_so_the_same_requests_fire_the_same_way(aiohttp_client, settings, clock, tmp_path):
    fired = []
    for run in ("first", "second"):
        data_dir = msgspec.structs.replace(settings.storage, data_dir=str(tmp_path / run))
        client = await aiohttp_client(create_app(msgspec.structs.replace(settings, storage=data_dir), clock=clock))
        await add_fault(client, path="/ping", status=502, probability=0.5)
        statuses = [(await client.get(url("v1.2", "/ping"))).status for _ in range(12)]
        fired.append(statuses)
        (shown,) = await listed_faults(client)
        assert (shown["matched"], shown["fired"]) == (12, statuses.count(502))
        await client.close()
    assert fired[0] == fired[1] and 0 < fired[0].count(502) < 12


async def test_a_rule_expires_on_the_clock(client, root):
    made = (await add_fault(client, path="/contacts", status=503, expires_in=60))["data"]
    assert made["expires_at"] is not None and made["active"] is True
    assert (await client.get(url("v1.2", "/contacts"), headers=root.headers())).status == 503
    await advance(client, 60)
    assert (await client.get(url("v1.2", "/contacts"), headers=root.headers())).status == 200
    (shown,) = await listed_faults(client)
    assert (shown["active"], shown["fired"]) == (False, 1)


async def test_rules_are_removed_one_or_all(client, root):
    first = (await add_fault(client, path="/contacts", status=503))["data"]["id"]
    await add_fault(client, path="/cdrs", status=503)
    assert (await client.delete(f"/_telephony/faults/{first}", headers=CONTROL)).status == 204
    response = await client.delete(f"/_telephony/faults/{first}", headers=CONTROL)
    assert response.status == 404 and (await response.json())["message"] == f"Fault {first} not found"
    assert [f["path"] for f in await listed_faults(client)] == ["/cdrs"]
    assert (await client.delete("/_telephony/faults", headers=CONTROL)).status == 204
    assert await listed_faults(client) == []
    assert (await client.get(url("v1.2", "/contacts"), headers=root.headers())).status == 200
    assert (await add_fault(client, path="/x", drop=True))["data"]["id"] == first + 2  # ids are never given again
    assert (await client.post("/_telephony/faults", json={"path": "/x", "drop": True})).status == 401


@pytest.mark.parametrize(
    ("rule", "field"),
    [
        ({"status": 503}, "path"),
        ({"path": "/calls", "webhook": "crm", "status": 503}, "webhook"),
        ({"path": "/calls"}, None),
        ({"path": "/calls", "status": 503, "latency_ms": 10}, "latency_ms"),
        ({"path": "/calls", "status": 404}, "status"),
        ({"path": "/calls", "latency_ms": 10, "retry_after": 3}, "retry_after"),
        ({"path": "/calls", "duplicate": True}, "duplicate"),
        ({"webhook": "crm", "status": 503}, "status"),
        ({"webhook": "crm", "drop": True, "method": "POST"}, "method"),
        ({"path": "/calls", "status": 503, "method": "post"}, "method"),
        ({"path": "calls", "status": 503}, "path"),
        ({"path": "/calls", "status": 503, "probability": 0}, "probability"),
        ({"path": "/calls", "latency_ms": 600_001}, "latency_ms"),
        ({"path": "/calls", "status": 503, "colour": "red"}, "colour"),
    ],
)
async def test_a_bad_rule_is_a_400_naming_the_field(client, rule, field):
    errors = (await add_fault(client, 400, **rule))["errors"]
    assert errors[0]["field"] == field, errors
    assert await listed_faults(client) == []
