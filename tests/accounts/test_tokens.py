"""Tokens: both schemes on both versions, inactivity timeouts, expiry, API tokens (v1.2) and API keys."""

from __future__ import annotations

import base64
import re

import pytest

from telephony.accounts import service
from telephony.app import create_app
from telephony.clock import wire_time
from telephony.domain.events.base import data_of
from tests.accounts.conftest import HOME, ROOT_ID
from tests.accounts.helpers import (
    HEX40,
    PASSWORD,
    SCHEMES,
    VERSIONS,
    Creds,
    advance,
    create_api_key,
    create_api_token,
    create_user,
    error_of,
    events,
    filter_param,
    login,
    status_of,
    token_id_of,
    url,
)

API_TOKEN_FIELDS = set(
    ["user_id", "token", "customer_id", "name", "host", "user_agent", "expiry", "last_request_at", "created_at"]
)
WIRE_TIME = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")
PROTECTED = [
    ("POST", "/logout"),
    ("GET", "/ping"),
    ("GET", "/aclroles"),
    ("GET", "/aclroles/1"),
    ("GET", "/me"),
    ("GET", "/users"),
    ("PATCH", "/users"),
    ("GET", f"/users/{ROOT_ID}"),
    ("DELETE", f"/users/{ROOT_ID}"),
    ("GET", f"/users/{ROOT_ID}/audio"),
    ("DELETE", f"/users/{ROOT_ID}/audio"),
    ("DELETE", f"/customers/{HOME}"),
]
API_TOKENS = [("POST", "/apitokens"), ("GET", "/apitokens"), ("DELETE", "/apitokens/" + "a" * 40)]
ENDPOINTS = [pytest.param(v, m, p, id=f"{v} {m} {p}") for v in VERSIONS for m, p in PROTECTED + API_TOKENS]


# --- authentication ----------------------------------------------------------------------------


@pytest.mark.parametrize("version, method, path", ENDPOINTS)
async def test_every_endpoint_outside_the_login_family_needs_a_token(client, version, method, path):
    error = await error_of(await client.request(method, url(version, path)), 401)
    assert "token" in error["message"].lower()


@pytest.mark.parametrize("version, method, path", ENDPOINTS)
async def test_an_unknown_token_is_a_401_naming_the_token(client, version, method, path, scheme):
    unknown = Creds(ROOT_ID, "0123456789abcdef0123456789abcdef01234567")
    error = await error_of(await client.request(method, url(version, path), headers=unknown.headers(scheme)), 401)
    assert unknown.token in error["message"]


async def test_a_login_token_works_with_both_schemes_under_either_version(client, root, scheme):
    for version in VERSIONS:
        response = await client.get(url(version, "/me"), headers=root.headers(scheme))
        assert response.status == 200
        assert (await response.json())["data"]["id"] == root.user_id


async def test_a_basic_pair_naming_another_user_is_a_401(client, version, root):
    other = await create_user(client, HOME, "colleague@example.com")
    await error_of(await client.get(url(version, "/ping"), headers=Creds(other, root.token).headers("basic")), 401)


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("not base64!", id="not-base64"),
        pytest.param(base64.b64encode(b"no-colon").decode(), id="no-separator"),
        pytest.param(base64.b64encode(b"alice:" + b"a" * 40).decode(), id="user-not-a-number"),
        pytest.param(base64.b64encode(b"1000001:").decode(), id="empty-token"),
    ],
)
async def test_malformed_basic_credentials_are_a_401(client, version, value):
    response = await client.get(url(version, "/ping"), headers={"Authorization": f"Basic {value}"})
    await error_of(response, 401)


async def test_an_api_key_authenticates_with_both_schemes_and_needs_no_login(client, version, scheme):
    user_id = await create_user(client, HOME, "integration@example.com")
    api_key = await create_api_key(client, user_id, "crm")
    assert HEX40.match(api_key.token)
    response = await client.get(url(version, "/me"), headers=api_key.headers(scheme))
    assert response.status == 200
    assert (await response.json())["data"]["email"] == "integration@example.com"
    issued = [data_of(e.event) for e in await events(client, "token.issued") if e.event.user_id == user_id]
    assert [t["kind"] for t in issued] == ["apikey"]


async def test_an_api_token_authenticates_with_both_schemes_on_both_versions(client, root_v12, version, scheme):
    api_token = await create_api_token(client, root_v12, "etl")
    assert await status_of(client, version, api_token, scheme) == 200


# --- inactivity timeouts -----------------------------------------------------------------------


@pytest.mark.parametrize("version, minutes", [("v1.1", 15), ("v1.2", 30)])
async def test_a_login_token_expires_after_its_versions_inactivity_timeout(
    client, settings, root_email, root_password, version, minutes
):
    creds = await login(client, version, root_email, root_password)
    await advance(client, minutes * 60 - 30)
    assert await status_of(client, version, creds) == 200  # a ping resets the timer
    await advance(client, minutes * 60 - 30)
    assert await status_of(client, version, creds) == 200
    await advance(client, minutes * 60 + 1)
    error = await error_of(await client.get(url(version, "/ping"), headers=creds.headers()), 401)
    assert creds.token in error["message"]


async def test_the_default_timeouts_are_the_platforms(settings):
    assert (settings.auth.v11_inactivity_seconds, settings.auth.v12_inactivity_seconds) == (15 * 60, 30 * 60)


async def test_the_version_a_token_was_issued_under_decides_its_timeout(client, root_email, root_password):
    creds = await login(client, "v1.1", root_email, root_password)
    await advance(client, 16 * 60)
    assert await status_of(client, "v1.2", creds) == 401


@pytest.mark.parametrize("path", ["/me", "/users", "/aclroles"])
async def test_any_request_keeps_a_token_alive(client, root_email, root_password, path):
    creds = await login(client, "v1.1", root_email, root_password)
    for _ in range(3):
        await advance(client, 10 * 60)
        assert (await client.get(url("v1.1", path), headers=creds.headers())).status == 200
    assert await status_of(client, "v1.1", creds) == 200


async def test_the_expiry_timer_records_the_expiry_as_token_revoked_events(client, root_email, root_password):
    creds = await login(client, "v1.1", root_email, root_password)
    survivor = await login(client, "v1.2", root_email, root_password)
    await advance(client, 15 * 60 + 1)
    revoked = {e.event.token_id: e for e in await events(client, "token.revoked")}
    expired = revoked[await token_id_of(client, creds.token)]
    assert expired.event.reason == "expired"
    assert expired.meta.source == "scheduler"
    assert await token_id_of(client, survivor.token) not in revoked
    assert await status_of(client, "v1.1", creds) == 401


async def test_a_never_expiring_api_token_survives_a_restart_and_an_hour(
    aiohttp_client, settings, clock, root_email, root_password
):
    first = await aiohttp_client(create_app(settings, clock=clock))
    session = await login(first, "v1.2", root_email, root_password)
    api_token = await create_api_token(first, session, "forever", expiry=0)
    await first.close()

    second = await aiohttp_client(create_app(settings, clock=clock))
    await advance(second, 3600)
    for scheme in SCHEMES:
        assert await status_of(second, "v1.2", api_token, scheme) == 200
    assert await status_of(second, "v1.2", session) == 401  # the login token idled out


async def test_a_login_token_survives_a_restart_within_its_timeout(
    aiohttp_client, settings, clock, root_email, root_password
):
    first = await aiohttp_client(create_app(settings, clock=clock))
    session = await login(first, "v1.1", root_email, root_password)
    await first.close()
    second = await aiohttp_client(create_app(settings, clock=clock))
    await advance(second, 10 * 60)
    assert await status_of(second, "v1.1", session) == 200


async def test_an_api_token_with_an_expiry_dies_after_that_many_seconds(client, clock, root_v12):
    api_token_created = clock.time()
    api_token = await create_api_token(client, root_v12, "two-minutes", expiry=120)
    await advance(client, 100)
    assert await status_of(client, "v1.2", api_token) == 200
    await advance(client, 21)  # its expiry timer records the expiry at 120 s
    revoked = {e.event.token_id: e for e in await events(client, "token.revoked")}
    expired = revoked[await token_id_of(client, api_token.token)]
    assert expired.event.reason == "expired"
    assert expired.recorded_at.startswith(wire_time(api_token_created + 120).replace(" ", "T"))
    assert await status_of(client, "v1.2", api_token) == 401


async def test_use_does_not_extend_an_api_tokens_expiry(client, root_v12):
    api_token = await create_api_token(client, root_v12, "two-minutes", expiry=120)
    for _ in range(3):
        await advance(client, 50)
        await status_of(client, "v1.2", api_token)
    assert await status_of(client, "v1.2", api_token) == 401


# --- POST /apitokens ---------------------------------------------------------------------------


async def test_post_apitokens_answers_201_with_the_api_token_envelope(client, root_v12, scheme):
    headers = {**root_v12.headers(scheme), "User-Agent": "deploy-bot/1.0"}
    response = await client.post(url("v1.2", "/apitokens"), json={"name": "ci", "expiry": 3600}, headers=headers)
    assert response.status == 201
    body = await response.json()
    data = body["data"]
    assert set(data) == API_TOKEN_FIELDS
    assert HEX40.match(data["token"])
    assert (data["user_id"], data["customer_id"], data["name"], data["expiry"]) == (ROOT_ID, HOME, "ci", 3600)
    assert data["user_agent"] == "deploy-bot/1.0" and data["host"]
    assert data["last_request_at"] is None and WIRE_TIME.match(data["created_at"])
    assert body["links"]["self"] == url("v1.2", f"/apitokens/{data['token']}")


async def test_an_api_token_expiry_defaults_to_never(client, root_v12):
    response = await client.post(url("v1.2", "/apitokens"), json={"name": "ci"}, headers=root_v12.headers())
    assert (await response.json())["data"]["expiry"] == 0


@pytest.mark.parametrize(
    "body, field",
    [
        pytest.param({"expiry": 0}, "name", id="no-name"),
        pytest.param({"name": ""}, "name", id="empty-name"),
        pytest.param({"name": "ci", "expiry": -1}, "expiry", id="negative-expiry"),
        pytest.param({"name": "ci", "expiry": "soon"}, "expiry", id="expiry-not-a-number"),
    ],
)
async def test_post_apitokens_with_an_invalid_body_is_a_400_naming_the_field(client, root_v12, body, field):
    error = await error_of(await client.post(url("v1.2", "/apitokens"), json=body, headers=root_v12.headers()), 400)
    assert error["errors"][0]["field"] == field


async def test_api_token_names_are_unique_per_user(client, root_v12):
    await create_api_token(client, root_v12, "ci")
    response = await client.post(url("v1.2", "/apitokens"), json={"name": "ci"}, headers=root_v12.headers())
    error = await error_of(response, 400)
    assert error["errors"] == [{"field": "name", "message": "This name is already used"}]

    other = await create_user(client, HOME, "colleague@example.com")
    await create_api_token(client, await login(client, "v1.2", "colleague@example.com", PASSWORD), "ci")
    assert other


async def test_the_name_of_a_revoked_api_token_may_be_used_again(client, root_v12):
    first = await create_api_token(client, root_v12, "ci")
    await client.delete(url("v1.2", f"/apitokens/{first.token}"), headers=root_v12.headers())
    await create_api_token(client, root_v12, "ci")


async def test_apitokens_are_served_on_both_versions(client, root, version):
    """The spec adds /apitokens in v1.2; as every spec endpoint, it is served under v1.1 too (README)."""
    response = await client.post(url(version, "/apitokens"), json={"name": "ci"}, headers=root.headers())
    assert response.status == 201
    body = await response.json()
    token = body["data"]["token"]
    assert body["links"]["self"] == url(version, f"/apitokens/{token}")
    listed = await (await client.get(url(version, "/apitokens"), headers=root.headers())).json()
    assert [item["token"] for item in listed["data"]] == [token]
    assert (await client.delete(url(version, f"/apitokens/{token}"), headers=root.headers())).status == 204


DIGITS_IN_A_ROW = "3cd38951736986345299550b6232cea9c1cca580"
"""An API token with 20 decimal digits in a row, as about one random token in a thousand has."""


async def test_an_api_token_with_digits_in_a_row_is_listed_and_deleted_like_any_other(client, root, version,
                                                                                         monkeypatch):  # fmt: skip
    monkeypatch.setattr(service, "new_token", lambda entropy: DIGITS_IN_A_ROW)
    response = await client.post(url(version, "/apitokens"), json={"name": "ci"}, headers=root.headers())
    assert response.status == 201 and (await response.json())["data"]["token"] == DIGITS_IN_A_ROW
    listed = await (await client.get(url(version, "/apitokens"), headers=root.headers())).json()
    assert [item["token"] for item in listed["data"]] == [DIGITS_IN_A_ROW]
    assert await status_of(client, version, Creds(ROOT_ID, DIGITS_IN_A_ROW)) == 200
    assert (await client.delete(url(version, f"/apitokens/{DIGITS_IN_A_ROW}"), headers=root.headers())).status == 204
    assert await status_of(client, version, Creds(ROOT_ID, DIGITS_IN_A_ROW)) == 401


# --- GET /apitokens ----------------------------------------------------------------------------


async def test_get_apitokens_lists_the_callers_api_tokens_each_with_its_token(client, root_v12):
    made = {name: (await create_api_token(client, root_v12, name)).token for name in ("ci", "etl")}
    await create_api_key(client, root_v12.user_id)  # API keys are not API tokens
    colleague = await create_user(client, HOME, "colleague@example.com")
    await create_api_token(client, await login(client, "v1.2", "colleague@example.com", PASSWORD), "theirs")

    response = await client.get(url("v1.2", "/apitokens"), headers=root_v12.headers())
    assert response.status == 200
    body = await response.json()
    assert set(body) == {"data", "total"} and body["total"] == 2
    assert {item["name"]: item["token"] for item in body["data"]} == made
    assert all(item["user_id"] == ROOT_ID and item["customer_id"] == HOME for item in body["data"])
    assert colleague not in {item["user_id"] for item in body["data"]}


@pytest.mark.parametrize(
    "condition, names",
    [
        pytest.param(("name", "eq", "etl"), ["etl"], id="eq"),
        pytest.param(("name", "like", "ci"), ["ci", "ci-nightly"], id="like-substring"),
        pytest.param(("name", "in", ["ci", "etl"]), ["ci", "etl"], id="in"),
        pytest.param(("name", "neq", "ci"), ["ci-nightly", "etl"], id="neq"),
    ],
)
async def test_get_apitokens_filters_on_name(client, root_v12, condition, names):
    for name in ("ci", "ci-nightly", "etl"):
        await create_api_token(client, root_v12, name)
    params = {"filter": filter_param(condition)}
    response = await client.get(url("v1.2", "/apitokens"), params=params, headers=root_v12.headers())
    body = await response.json()
    assert response.status == 200, body
    assert sorted(item["name"] for item in body["data"]) == names and body["total"] == len(names)


async def test_get_apitokens_pages_and_counts_every_match(client, root_v12):
    for name in ("a", "b", "c"):
        await create_api_token(client, root_v12, name)
    params = {"limit": "2", "page": "2", "sort": "name"}
    response = await client.get(url("v1.2", "/apitokens"), params=params, headers=root_v12.headers())
    body = await response.json()
    assert [item["name"] for item in body["data"]] == ["c"] and body["total"] == 3


async def test_get_apitokens_with_an_unknown_filter_property_is_a_400(client, root_v12):
    params = {"filter": filter_param(("color", "eq", "red"))}
    response = await client.get(url("v1.2", "/apitokens"), params=params, headers=root_v12.headers())
    await error_of(response, 400)


async def test_get_apitokens_shows_when_a_token_was_last_used(client, root_v12):
    api_token = await create_api_token(client, root_v12, "ci")
    await advance(client, 5)
    await status_of(client, "v1.2", api_token)
    body = await (await client.get(url("v1.2", "/apitokens"), headers=root_v12.headers())).json()
    assert WIRE_TIME.match(body["data"][0]["last_request_at"])


# --- DELETE /apitokens/{token} -----------------------------------------------------------------


async def test_delete_apitokens_revokes_the_token_with_204_and_no_body(client, root_v12, scheme):
    api_token = await create_api_token(client, root_v12, "ci")
    response = await client.delete(url("v1.2", f"/apitokens/{api_token.token}"), headers=root_v12.headers(scheme))
    assert response.status == 204
    assert await response.read() == b""
    assert await status_of(client, "v1.2", api_token) == 401
    body = await (await client.get(url("v1.2", "/apitokens"), headers=root_v12.headers())).json()
    assert body == {"data": [], "total": 0}
    await error_of(await client.delete(url("v1.2", f"/apitokens/{api_token.token}"), headers=root_v12.headers()), 404)


async def test_an_api_token_may_revoke_itself(client, root_v12, scheme):
    api_token = await create_api_token(client, root_v12, "ci")
    response = await client.delete(url("v1.2", f"/apitokens/{api_token.token}"), headers=api_token.headers(scheme))
    assert response.status == 204
    assert await status_of(client, "v1.2", api_token, scheme) == 401
    assert await status_of(client, "v1.2", root_v12) == 200


async def test_delete_apitokens_of_an_unknown_token_is_a_404(client, root_v12):
    await error_of(await client.delete(url("v1.2", "/apitokens/" + "0" * 40), headers=root_v12.headers()), 404)


@pytest.mark.parametrize("kind", ["login", "apikey"])
async def test_delete_apitokens_reaches_only_api_tokens_not_login_tokens_or_api_keys(client, root_v12, kind):
    other = root_v12 if kind == "login" else await create_api_key(client, ROOT_ID)
    api_token = await create_api_token(client, root_v12, "ci")
    response = await client.delete(url("v1.2", f"/apitokens/{other.token}"), headers=api_token.headers())
    await error_of(response, 404)
    assert await status_of(client, "v1.2", other) == 200


async def test_a_user_cannot_delete_a_colleagues_api_token(client, root_v12):
    await create_user(client, HOME, "colleague@example.com")
    colleague = await login(client, "v1.2", "colleague@example.com", PASSWORD)
    theirs = await create_api_token(client, colleague, "theirs")
    await error_of(await client.delete(url("v1.2", f"/apitokens/{theirs.token}"), headers=root_v12.headers()), 404)
    assert await status_of(client, "v1.2", theirs) == 200


# --- who did it --------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["login", "apikey"])
async def test_an_api_token_creation_records_the_acting_user_and_token_kind(client, root_v12, kind):
    actor = root_v12 if kind == "login" else await create_api_key(client, ROOT_ID)
    api_token = await create_api_token(client, actor, "ci")
    (issued,) = [e for e in await events(client, "token.issued") if e.event.name == "ci"]
    assert issued.event.token_id == await token_id_of(client, api_token.token)
    assert (issued.meta.user_id, issued.meta.customer_id, issued.meta.token_kind) == (ROOT_ID, HOME, kind)
    assert issued.meta.api_version == "v1.2" and issued.meta.request_id


async def test_a_revocation_records_the_acting_token(client, root_v12):
    api_token = await create_api_token(client, root_v12, "ci")
    await client.delete(url("v1.2", f"/apitokens/{api_token.token}"), headers=api_token.headers())
    (revoked,) = await events(client, "token.revoked")
    assert revoked.event.reason == "deleted"
    assert (revoked.meta.user_id, revoked.meta.token_kind) == (ROOT_ID, "apitoken")
    assert revoked.meta.token_id == revoked.event.token_id
