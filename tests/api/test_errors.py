"""Every failure is the JSON error body, on both versions; CORS preflights are answered."""

from __future__ import annotations

import pytest

from telephony import wiring
from telephony.api.access import OPEN
from telephony.api.responses import json_response
from telephony.api.route_table import Route
from telephony.api.wire import read_json
from telephony.eventlog import ConcurrencyError

VERSIONS = ["v1.1", "v1.2"]


async def echo(request):
    body = await read_json(request, dict)
    return json_response({"data": body})


async def explode(request):
    raise RuntimeError("secret internals")


async def collide(request):
    """A decision whose stream moved under it, as the writer reports it."""
    raise ConcurrencyError("contact-7", 0, 2)


@pytest.fixture
def probe_routes(monkeypatch):
    routes = [
        Route("POST", "/probe", echo, OPEN),
        Route("GET", "/explode", explode, OPEN),
        Route("GET", "/collide", collide, OPEN),
    ]
    original = wiring.api_routes
    monkeypatch.setattr(wiring, "api_routes", lambda: [*original(), *routes])


def assert_error_body(body: dict) -> None:
    assert set(body) == {"message", "errors"}
    assert isinstance(body["message"], str) and body["message"]
    assert body["errors"] and all(set(item) == {"field", "message"} for item in body["errors"])


@pytest.mark.parametrize("version", VERSIONS)
async def test_unknown_route_is_a_json_404(client, version):
    response = await client.get(f"/{version}/voipstudio/no-such-thing")
    assert response.status == 404
    assert response.content_type == "application/json"
    assert_error_body(await response.json())
    assert response.headers["X-Request-Id"]


@pytest.mark.parametrize("version", VERSIONS)
async def test_wrong_method_is_a_json_405(probe_routes, client, version):
    response = await client.delete(f"/{version}/voipstudio/probe")
    assert response.status == 405
    assert "POST" in response.headers["Allow"]
    assert_error_body(await response.json())


@pytest.mark.parametrize("version", VERSIONS)
async def test_malformed_json_is_a_400(probe_routes, client, version):
    response = await client.post(
        f"/{version}/voipstudio/probe", data=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert response.status == 400
    body = await response.json()
    assert_error_body(body)
    assert "JSON" in body["message"]


@pytest.mark.parametrize("version", VERSIONS)
async def test_an_oversized_body_is_a_413(probe_routes, client, settings, version):
    big = b"[" + b"1," * (settings.server.max_body_bytes // 2) + b"1]"
    response = await client.post(f"/{version}/voipstudio/probe", data=big)
    assert response.status == 413
    assert_error_body(await response.json())


@pytest.mark.parametrize("version", VERSIONS)
async def test_an_unexpected_exception_is_a_500_without_internals(probe_routes, client, version):
    response = await client.get(f"/{version}/voipstudio/explode")
    assert response.status == 500
    text = await response.text()
    assert "secret internals" not in text and "Traceback" not in text
    assert_error_body(await response.json())


async def test_a_stream_that_moved_under_a_decision_is_a_409_naming_it(probe_routes, client):
    response = await client.get("/v1.2/voipstudio/collide")
    assert response.status == 409
    body = await response.json()
    assert_error_body(body)
    assert body["errors"][0]["message"] == "stream 'contact-7' is at version 2, expected 0"


async def test_the_request_id_is_echoed_when_the_caller_sends_one(client):
    response = await client.get("/_telephony/health", headers={"X-Request-Id": "abc-123"})
    assert response.headers["X-Request-Id"] == "abc-123"


async def test_every_answer_carries_a_request_id_a_streamed_one_and_a_refusal_too(client, control_headers):
    requests = [("GET", "/_telephony/export", control_headers), ("GET", "/_telephony/export", {}),
                ("GET", "/v1.2/voipstudio/nothing", {}), ("DELETE", "/v1.2/voipstudio/login", {})]  # fmt: skip
    for method, path, headers in requests:
        response = await client.request(method, path, headers={**headers, "X-Request-Id": "given-1"})
        assert response.headers["X-Request-Id"] == "given-1", (method, path, response.status)


async def test_health_is_open_and_reports_the_log_position(client):
    response = await client.get("/_telephony/health")
    assert response.status == 200
    body = await response.json()
    assert body.pop("clock")
    assert set(body.pop("reactors")) == {"voicemail-mail", "webhook-dispatcher", "report-planner"}
    owners = {"call-simulator", "invoice-closing", "messaging-steps", "report-runs", "token-expiry", "webhook-sender"}
    reacting = {"voicemail-mail", "webhook-dispatcher"}  # taken by the reactor itself: on PostgreSQL soon after
    leases = body.pop("leases")
    assert leases == sorted(leases) and owners <= set(leases) <= owners | reacting
    assert body == {"status": "ok", "position": 3, "writing": True, "failed_projections": {}}


@pytest.mark.parametrize("version", VERSIONS)
async def test_cors_preflight_allows_the_methods_and_headers_clients_send(probe_routes, client, version):
    response = await client.options(
        f"/{version}/voipstudio/probe",
        headers={
            "Origin": "https://crm.example.com",
            "Access-Control-Request-Method": "PATCH",
            "Access-Control-Request-Headers": "Content-Type, X-Auth-Token, Authorization",
        },
    )
    assert response.status == 200
    assert response.headers["Access-Control-Allow-Origin"] in ("*", "https://crm.example.com")
    methods = {m.strip() for m in response.headers["Access-Control-Allow-Methods"].split(",")}
    assert {"GET", "POST", "PATCH", "DELETE"} <= methods
    headers = {h.strip().lower() for h in response.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"content-type", "x-auth-token", "authorization"} <= headers


async def test_actual_cross_origin_responses_carry_the_allowed_origin(probe_routes, client):
    response = await client.post("/v1.2/voipstudio/probe", json={"a": 1}, headers={"Origin": "https://crm.example.com"})
    assert response.status == 200
    assert response.headers["Access-Control-Allow-Origin"] in ("*", "https://crm.example.com")


@pytest.mark.parametrize("version", VERSIONS)
async def test_a_deeply_nested_body_is_a_400_not_a_500(probe_routes, client, version):
    response = await client.post(f"/{version}/voipstudio/probe", data=b"[" * 100_000 + b"]" * 100_000)
    assert response.status == 400
    assert_error_body(await response.json())


async def test_a_long_query_string_reaches_the_api_and_gets_a_json_answer(client):
    response = await client.get("/v1.2/voipstudio/no-such-thing?filter=" + "x" * 100_000)
    assert response.status == 404
    assert_error_body(await response.json())


async def test_an_id_too_long_for_64_bits_is_a_404_not_a_500(client):
    login = await client.post(
        "/v1.2/voipstudio/login", json={"email": "admin@example.com", "password": "change-me-now"}
    )
    headers = {"X-Auth-Token": (await login.json())["user_token"]}
    for path in ("/contacts/99999999999999999999", "/contacts/1,99999999999999999999", "/users/99999999999999999999"):
        response = await client.get("/v1.2/voipstudio" + path, headers=headers)
        assert response.status in (404, 405)
        assert_error_body(await response.json())


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [("/contacts", {"first_name": "Ann", "dialler_source_id": 2**64}, "dialler_source_id"),
     ("/queues", {"name": "Q", "ring_time": -(2**70)}, "ring_time"),
     ("/apitokens", {"name": "forever", "expiry": 2**64}, "expiry")],
)  # fmt: skip
async def test_a_number_beyond_64_bits_in_a_body_is_a_400_naming_it(client, path, body, field):
    login = await client.post(
        "/v1.2/voipstudio/login", json={"email": "admin@example.com", "password": "change-me-now"}
    )
    headers = {"X-Auth-Token": (await login.json())["user_token"]}
    response = await client.post(f"/v1.2/voipstudio{path}", json=body, headers=headers)
    assert response.status == 400
    body = await response.json()
    assert_error_body(body)
    assert body["errors"][0]["field"] == field


async def test_a_text_holding_a_nul_is_kept_on_sqlite_and_a_400_naming_the_field_on_postgresql(client, settings):
    admin = {"email": "admin@example.com", "password": "change-me-now"}
    login = await client.post("/v1.2/voipstudio/login", json=admin)
    headers = {"X-Auth-Token": (await login.json())["user_token"]}
    bodies = [("/contacts", {"first_name": "Ann\x00"}, "first_name"), ("/apitokens", {"name": "t\x00"}, "name"),
              ("/contacts", {"first_name": "Ann", "labels": ["ok", "b\x00"]}, "labels[1]")]  # fmt: skip
    for path, body, field in bodies:
        response = await client.post(f"/v1.2/voipstudio{path}", json=body, headers=headers)
        if not settings.eventlog.url:
            assert response.status == 201, await response.text()
            continue
        assert response.status == 400
        answer = await response.json()
        assert_error_body(answer)
        assert answer["errors"] == [{"field": field, "message": "Text cannot hold a NUL character (\\u0000)"}]
    listed = await (await client.get("/v1.2/voipstudio/contacts", headers=headers)).json()
    assert listed["total"] == (0 if settings.eventlog.url else 2)
