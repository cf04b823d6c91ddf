"""Brute force: repeated failures in the login family are refused with 429 for `[auth] lockout_seconds`."""

from __future__ import annotations

import msgspec
import pytest

from telephony import wiring
from telephony.api.route_table import template
from telephony.app import create_app
from tests.accounts.conftest import HOME
from tests.accounts.helpers import (
    PASSWORD,
    advance,
    challenge,
    create_user,
    error_of,
    login,
    mailed_secret,
    url,
)

WRONG = "not-the-password"
TWO_FACTOR = "two-factor@example.com"


async def _fail_login(client, version: str, email: str, times: int) -> None:
    for _ in range(times):
        response = await client.post(url(version, "/login"), json={"email": email, "password": WRONG})
        await error_of(response, 400)


async def test_repeated_failed_logins_for_one_email_are_refused_with_429(
    client, settings, version, root_email, root_password
):
    await _fail_login(client, version, root_email, settings.auth.max_failures)
    for password in (WRONG, root_password):
        response = await client.post(url(version, "/login"), json={"email": root_email, "password": password})
        error = await error_of(response, 429)
        assert "too many" in error["message"].lower()


async def test_moving_the_clock_past_the_lockout_allows_logins_again(
    client, settings, version, root_email, root_password
):
    await _fail_login(client, version, root_email, settings.auth.max_failures)
    await advance(client, settings.auth.lockout_seconds - 10)
    right = {"email": root_email, "password": root_password}
    await error_of(await client.post(url(version, "/login"), json=right), 429)
    await advance(client, 11)
    await login(client, version, root_email, root_password)


async def test_failures_older_than_the_window_do_not_count(client, settings, version, root_email, root_password):
    await _fail_login(client, version, root_email, settings.auth.max_failures - 1)
    await advance(client, settings.auth.failure_window_seconds + 1)
    await _fail_login(client, version, root_email, settings.auth.max_failures - 1)
    await login(client, version, root_email, root_password)


async def test_the_limit_and_the_lockout_come_from_the_configuration(
    aiohttp_client, settings, clock, root_email, root_password
):
    auth = msgspec.structs.replace(settings.auth, max_failures=2, lockout_seconds=60)
    client = await aiohttp_client(create_app(msgspec.structs.replace(settings, auth=auth), clock=clock))
    await _fail_login(client, "v1.2", root_email, 2)
    right = {"email": root_email, "password": root_password}
    await error_of(await client.post(url("v1.2", "/login"), json=right), 429)
    await advance(client, 61)
    await login(client, "v1.2", root_email, root_password)


async def test_repeated_wrong_login_codes_are_refused_with_429(client, settings, version):
    await create_user(client, HOME, TWO_FACTOR, two_factor_auth="E")
    nonce = await challenge(client, version, TWO_FACTOR, PASSWORD)
    code = await mailed_secret(client, TWO_FACTOR)
    wrong = "000000" if code != "000000" else "111111"
    for _ in range(settings.auth.max_failures):
        await error_of(await client.post(url(version, "/login2fa"), json={"code": wrong, "nonce": nonce}), 400)
    await error_of(await client.post(url(version, "/login2fa"), json={"code": code, "nonce": nonce}), 429)

    await advance(client, settings.auth.lockout_seconds + 1)
    nonce = await challenge(client, version, TWO_FACTOR, PASSWORD)
    code = await mailed_secret(client, TWO_FACTOR)
    response = await client.post(url(version, "/login2fa"), json={"code": code, "nonce": nonce})
    assert response.status == 200


async def test_repeated_wrong_reset_tokens_are_refused_with_429(client, settings, version, root_email):
    """A reset names no account, so only the address counts, with its own (higher) limit."""
    await client.post(url(version, "/password"), json={"email": root_email})
    token = await mailed_secret(client, root_email)
    for attempt in range(settings.auth.max_failures_per_address):
        guess = {"token": f"{attempt:040x}", "password": "a-brand-new-password"}
        await error_of(await client.post(url(version, "/reset"), json=guess), 400)
    real = {"token": token, "password": "a-brand-new-password"}
    await error_of(await client.post(url(version, "/reset"), json=real), 429)

    await advance(client, settings.auth.lockout_seconds + 1)
    assert (await client.post(url(version, "/reset"), json=real)).status == 200
    await login(client, version, root_email, "a-brand-new-password")


REFUSING = sorted({template(r.path) for r in wiring.api_routes() if r.shape and 429 in r.shape.errors})


def test_the_login_family_is_what_declares_429():
    assert REFUSING == ["/login", "/login2fa", "/reset"]


@pytest.mark.parametrize("path", REFUSING)
async def test_a_locked_address_is_refused_on_every_endpoint_of_the_family_saying_when_to_retry(
    client, settings, version, root_email, path
):
    """Failures from one address on many emails lock the address, at its own higher limit; the 429
    says in `Retry-After` how many seconds are left, and after them the lock has lifted."""
    for n in range(settings.auth.max_failures_per_address):
        await _fail_login(client, version, f"nobody{n}@example.com", 1)
    await advance(client, 100)
    body = {"email": root_email, "password": WRONG, "code": "000000", "nonce": "0" * 40, "token": "0" * 40}
    fields = {"/login": ("email", "password"), "/login2fa": ("code", "nonce"), "/reset": ("token", "password")}[path]
    response = await client.post(url(version, path), json={k: body[k] for k in fields})
    error = await error_of(response, 429)
    assert error["errors"][0]["message"] == error["message"]
    wait = int(response.headers["Retry-After"])
    assert wait == settings.auth.lockout_seconds - 100 and f"{wait} seconds" in error["message"]
    await advance(client, wait - 1)
    await error_of(await client.post(url(version, path), json={k: body[k] for k in fields}), 429)
    await advance(client, 1)
    assert (await client.post(url(version, path), json={k: body[k] for k in fields})).status == 400
