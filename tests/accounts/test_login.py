"""The login family on both versions: /login, /login2fa, /logout, /ping, /password, /reset, /confirmation."""

from __future__ import annotations

import pytest

from tests.accounts.conftest import HOME
from tests.accounts.helpers import (
    CONTROL,
    HEX40,
    PASSWORD,
    advance,
    auth_headers,
    challenge,
    create_api_key,
    create_api_token,
    create_user,
    error_of,
    is_user_id,
    login,
    mailed_secret,
    outbox,
    status_of,
    url,
)

TWO_FACTOR = "two-factor@example.com"


@pytest.fixture
async def two_factor_user(client) -> int:
    return await create_user(client, HOME, TWO_FACTOR, two_factor_auth="E")


# --- POST /login -------------------------------------------------------------------------------


async def test_login_answers_message_user_token_and_user_id_in_the_platform_shapes(
    client, version, root_email, root_password
):
    response = await client.post(url(version, "/login"), json={"email": root_email, "password": root_password})
    assert response.status == 200
    body = await response.json()
    assert set(body) == {"message", "user_token", "user_id"}
    assert isinstance(body["message"], str) and body["message"]
    assert HEX40.match(body["user_token"])
    assert is_user_id(body["user_id"]) and 6 <= len(str(body["user_id"])) <= 7


async def test_login_accepts_the_optional_fields_of_the_spec(client, version, root_email, root_password):
    creds = await login(client, version, root_email, root_password, remember_me=True, device_fingerprint="fp-1")
    assert await status_of(client, version, creds) == 200


async def test_login_matches_the_email_case_insensitively(client, version, root_email, root_password):
    await login(client, version, root_email.upper(), root_password)


@pytest.mark.parametrize(
    "credentials",
    [
        pytest.param({"password": "wrong-password"}, id="wrong-password"),
        pytest.param({"email": "nobody@example.com"}, id="unknown-email"),
    ],
)
async def test_wrong_credentials_are_a_400_with_the_error_body(client, version, root_email, root_password, credentials):
    body = {"email": root_email, "password": root_password, **credentials}
    error = await error_of(await client.post(url(version, "/login"), json=body), 400)
    assert "invalid email and/or password" in error["message"].lower()
    assert error["errors"][0]["message"] == error["message"]


async def test_a_login_without_a_password_is_a_400_naming_the_field(client, version, root_email):
    error = await error_of(await client.post(url(version, "/login"), json={"email": root_email}), 400)
    assert error["errors"][0]["field"] == "password"


# --- two-factor login --------------------------------------------------------------------------


async def test_a_two_factor_user_gets_202_with_a_nonce_and_no_token(client, version, two_factor_user):
    response = await client.post(url(version, "/login"), json={"email": TWO_FACTOR, "password": PASSWORD})
    assert response.status == 202
    body = await response.json()
    assert set(body) == {"message", "nonce"}
    assert HEX40.match(body["nonce"])
    (mail,) = await outbox(client, TWO_FACTOR)
    assert mail["body"].rsplit(" ", 1)[1].isdigit()


async def test_a_two_factor_user_with_a_wrong_password_gets_400_and_no_code(client, version, two_factor_user):
    response = await client.post(url(version, "/login"), json={"email": TWO_FACTOR, "password": "wrong-password"})
    await error_of(response, 400)
    assert await outbox(client, TWO_FACTOR) == []


async def test_login2fa_with_the_mailed_code_answers_the_login_result(client, version, scheme, two_factor_user):
    nonce = await challenge(client, version, TWO_FACTOR, PASSWORD)
    code = await mailed_secret(client, TWO_FACTOR)
    response = await client.post(url(version, "/login2fa"), json={"code": code, "nonce": nonce})
    assert response.status == 200
    body = await response.json()
    assert set(body) == {"message", "user_token", "user_id"}
    assert body["user_id"] == two_factor_user and HEX40.match(body["user_token"])
    response = await client.get(url(version, "/me"), headers=auth_headers(scheme, body["user_id"], body["user_token"]))
    assert (await response.json())["data"]["email"] == TWO_FACTOR


@pytest.mark.parametrize("wrong", ["code", "nonce"])
async def test_a_wrong_code_or_nonce_is_a_400(client, version, two_factor_user, wrong):
    nonce = await challenge(client, version, TWO_FACTOR, PASSWORD)
    code = await mailed_secret(client, TWO_FACTOR)
    body = {"code": code, "nonce": nonce}
    body[wrong] = "000000" if wrong == "code" and code != "000000" else "f" * 40
    error = await error_of(await client.post(url(version, "/login2fa"), json=body), 400)
    assert "invalid code and/or nonce" in error["message"].lower()


async def test_login2fa_without_a_nonce_is_a_400_naming_the_field(client, version):
    error = await error_of(await client.post(url(version, "/login2fa"), json={"code": "123456"}), 400)
    assert error["errors"][0]["field"] == "nonce"


async def test_a_login_code_works_only_once(client, version, two_factor_user):
    nonce = await challenge(client, version, TWO_FACTOR, PASSWORD)
    body = {"code": await mailed_secret(client, TWO_FACTOR), "nonce": nonce}
    assert (await client.post(url(version, "/login2fa"), json=body)).status == 200
    await error_of(await client.post(url(version, "/login2fa"), json=body), 400)


async def test_a_login_code_expires(client, settings, version, two_factor_user):
    nonce = await challenge(client, version, TWO_FACTOR, PASSWORD)
    code = await mailed_secret(client, TWO_FACTOR)
    await advance(client, settings.auth.two_factor_ttl_seconds + 1)
    await error_of(await client.post(url(version, "/login2fa"), json={"code": code, "nonce": nonce}), 400)


async def test_a_device_added_at_login2fa_skips_the_code_at_the_next_login_from_it(client, version, two_factor_user):
    nonce = await challenge(client, version, TWO_FACTOR, PASSWORD, device_fingerprint="laptop-1")
    code = await mailed_secret(client, TWO_FACTOR)
    body = {"code": code, "nonce": nonce, "add_device": True, "device_fingerprint": "laptop-1"}
    assert (await client.post(url(version, "/login2fa"), json=body)).status == 200

    creds = await login(client, version, TWO_FACTOR, PASSWORD, device_fingerprint="laptop-1")
    assert creds.user_id == two_factor_user
    await challenge(client, version, TWO_FACTOR, PASSWORD, device_fingerprint="phone-2")
    await challenge(client, version, TWO_FACTOR, PASSWORD)


async def test_add_device_remembers_the_fingerprint_sent_at_login(client, version, two_factor_user):
    """The spec's client sends `device_fingerprint` to /login and only `add_device` to /login2fa."""
    nonce = await challenge(client, version, TWO_FACTOR, PASSWORD, device_fingerprint="laptop-1")
    body = {"code": await mailed_secret(client, TWO_FACTOR), "nonce": nonce, "add_device": True}
    assert (await client.post(url(version, "/login2fa"), json=body)).status == 200
    await login(client, version, TWO_FACTOR, PASSWORD, device_fingerprint="laptop-1")


async def test_without_add_device_the_code_is_asked_again(client, version, two_factor_user):
    nonce = await challenge(client, version, TWO_FACTOR, PASSWORD, device_fingerprint="laptop-1")
    body = {"code": await mailed_secret(client, TWO_FACTOR), "nonce": nonce, "device_fingerprint": "laptop-1"}
    assert (await client.post(url(version, "/login2fa"), json=body)).status == 200
    await challenge(client, version, TWO_FACTOR, PASSWORD, device_fingerprint="laptop-1")


# --- POST /logout, GET /ping -------------------------------------------------------------------


async def test_ping_answers_a_message(client, version, scheme, root):
    response = await client.get(url(version, "/ping"), headers=root.headers(scheme))
    assert response.status == 200
    body = await response.json()
    assert set(body) == {"message"} and body["message"]


async def test_logout_ends_the_token_at_once(client, version, scheme, root):
    response = await client.post(url(version, "/logout"), headers=root.headers(scheme))
    assert response.status == 200
    body = await response.json()
    assert set(body) == {"message"} and body["message"]
    await error_of(await client.get(url(version, "/ping"), headers=root.headers(scheme)), 401)
    await error_of(await client.post(url(version, "/logout"), headers=root.headers(scheme)), 401)


async def test_logout_ends_only_that_session_not_api_tokens_api_keys_or_other_sessions(
    client, version, root, root_email, root_password
):
    api_token = await create_api_token(client, root, "ci")
    api_key = await create_api_key(client, root.user_id)
    other_session = await login(client, version, root_email, root_password)
    assert (await client.post(url(version, "/logout"), headers=root.headers())).status == 200
    assert await status_of(client, version, root) == 401
    for survivor in (api_token, api_key, other_session):
        assert await status_of(client, version, survivor) == 200


async def test_logout_with_an_api_key_leaves_the_key_usable(client, version, scheme, root):
    api_key = await create_api_key(client, root.user_id)
    assert (await client.post(url(version, "/logout"), headers=api_key.headers(scheme))).status == 200
    assert await status_of(client, version, api_key, scheme) == 200


async def test_logout_with_an_api_token_leaves_the_token_usable(client, root_v12):
    """API tokens outlive logouts (real-platform.md); they end with DELETE /apitokens/{token}."""
    api_token = await create_api_token(client, root_v12, "long-lived")
    assert (await client.post(url("v1.2", "/logout"), headers=api_token.headers())).status == 200
    assert await status_of(client, "v1.2", api_token) == 200
    assert await status_of(client, "v1.2", root_v12) == 200


# --- password reset ----------------------------------------------------------------------------

NEW_PASSWORD = "a-brand-new-password"


async def test_password_reset_mails_a_token_that_sets_the_new_password(client, version, root_email, root_password):
    response = await client.post(url(version, "/password"), json={"email": root_email})
    assert response.status == 200
    assert set(await response.json()) == {"message"}
    token = await mailed_secret(client, root_email)
    assert HEX40.match(token)

    response = await client.post(url(version, "/reset"), json={"token": token, "password": NEW_PASSWORD})
    assert response.status == 200
    assert set(await response.json()) == {"message"}
    await login(client, version, root_email, NEW_PASSWORD)
    old = {"email": root_email, "password": root_password}
    await error_of(await client.post(url(version, "/login"), json=old), 400)


async def test_a_reset_token_is_single_use(client, version, root_email):
    await client.post(url(version, "/password"), json={"email": root_email})
    token = await mailed_secret(client, root_email)
    assert (await client.post(url(version, "/reset"), json={"token": token, "password": NEW_PASSWORD})).status == 200
    response = await client.post(url(version, "/reset"), json={"token": token, "password": "yet-another-password"})
    error = await error_of(response, 400)
    assert error["errors"][0]["field"] == "token"
    await login(client, version, root_email, NEW_PASSWORD)


async def test_a_reset_token_expires(client, settings, version, root_email, root_password):
    await client.post(url(version, "/password"), json={"email": root_email})
    token = await mailed_secret(client, root_email)
    await advance(client, settings.auth.reset_token_ttl_seconds + 1)
    await error_of(await client.post(url(version, "/reset"), json={"token": token, "password": NEW_PASSWORD}), 400)
    await login(client, version, root_email, root_password)


async def test_a_reset_revokes_every_token_of_the_user(client, version, root, root_email):
    api_token = await create_api_token(client, root, "ci")
    api_key = await create_api_key(client, root.user_id)
    await client.post(url(version, "/password"), json={"email": root_email})
    token = await mailed_secret(client, root_email)
    assert (await client.post(url(version, "/reset"), json={"token": token, "password": NEW_PASSWORD})).status == 200
    for revoked in (root, api_token, api_key):
        assert await status_of(client, version, revoked) == 401


async def test_a_reset_leaves_other_users_tokens_alone(client, version, root, root_email):
    other = await create_user(client, HOME, "colleague@example.com")
    colleague = await login(client, version, "colleague@example.com", PASSWORD)
    assert colleague.user_id == other
    await client.post(url(version, "/password"), json={"email": root_email})
    token = await mailed_secret(client, root_email)
    await client.post(url(version, "/reset"), json={"token": token, "password": NEW_PASSWORD})
    assert await status_of(client, version, colleague) == 200


async def test_password_for_an_unknown_address_answers_the_same_and_mails_nothing(client, version):
    response = await client.post(url(version, "/password"), json={"email": "nobody@example.com"})
    assert response.status == 200
    assert set(await response.json()) == {"message"}
    assert await outbox(client) == []


@pytest.mark.parametrize("path", ["/password", "/confirmation"])
async def test_an_invalid_email_is_a_400_naming_the_field(client, version, path):
    error = await error_of(await client.post(url(version, path), json={"email": "not-an-email"}), 400)
    assert error["errors"][0]["field"] == "email"


@pytest.mark.parametrize("address", ["ann@example", "x" * 243 + "@example.com"], ids=["no-dot", "too-long"])
async def test_the_login_family_and_new_users_refuse_the_same_addresses(client, address):
    """One email type (`telephony.domain.types.Email`) judges every address, length included."""
    for path in ("/password", "/confirmation"):
        error = await error_of(await client.post(url("v1.2", path), json={"email": address}), 400)
        assert error["errors"][0]["field"] == "email"
    body = {"email": address, "password": PASSWORD}
    error = await error_of(await client.post(f"/_telephony/customers/{HOME}/users", json=body, headers=CONTROL), 400)
    assert error["errors"][0]["field"] == "email"


async def test_reset_with_an_unknown_token_is_a_400(client, version):
    response = await client.post(url(version, "/reset"), json={"token": "0" * 40, "password": NEW_PASSWORD})
    error = await error_of(response, 400)
    assert error["errors"][0]["field"] == "token"


async def test_reset_with_a_too_short_password_is_a_400_and_keeps_the_token(client, version, root_email):
    await client.post(url(version, "/password"), json={"email": root_email})
    token = await mailed_secret(client, root_email)
    error = await error_of(await client.post(url(version, "/reset"), json={"token": token, "password": "short"}), 400)
    assert error["errors"][0]["field"] == "password"
    assert (await client.post(url(version, "/reset"), json={"token": token, "password": NEW_PASSWORD})).status == 200


# --- POST /confirmation ------------------------------------------------------------------------


async def test_confirmation_resends_the_confirmation_mail(client, version, root_email):
    response = await client.post(url(version, "/confirmation"), json={"email": root_email})
    assert response.status == 200
    assert set(await response.json()) == {"message"}
    (mail,) = await outbox(client, root_email)
    assert "confirm" in mail["subject"].lower()


async def test_confirmation_for_an_unknown_address_answers_the_same_and_mails_nothing(client, version):
    response = await client.post(url(version, "/confirmation"), json={"email": "nobody@example.com"})
    assert response.status == 200
    assert await outbox(client) == []
