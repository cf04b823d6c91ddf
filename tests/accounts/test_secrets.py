"""No password, token, API key, reset token or nonce is ever stored or logged in plain text.

One test drives every secret-bearing endpoint on both versions and collects each secret it sent or
received; then the raw bytes of every file in the data dir, and everything logged (the app's own
access log included, at DEBUG), must contain none of them.
"""

from __future__ import annotations

import base64
import logging
from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer

from telephony.app import create_app
from telephony.logs import AccessLogger
from tests.accounts.conftest import HOME
from tests.accounts.helpers import (
    CONTROL,
    PASSWORD,
    VERSIONS,
    Creds,
    advance,
    challenge,
    create_api_key,
    create_api_token,
    create_customer,
    create_user,
    login,
    mailed_secret,
    url,
)
from tests.conftest import CONTROL_KEY

TWO_FACTOR = "two-factor@example.com"
NEW_PASSWORD = "freshly-reset-password-42"
WRONG_PASSWORD = "almost-the-password-17"
B_PASSWORD = "b-admin-password-99"


class Secrets:
    """Every secret a test used or received, with the forms a leak could take (Basic pairs too)."""

    def __init__(self) -> None:
        self.values: set[str] = set()

    def add(self, *values: str) -> None:
        self.values.update(values)

    def creds(self, *creds: Creds) -> None:
        for c in creds:
            self.add(c.token, base64.b64encode(f"{c.user_id}:{c.token}".encode()).decode())

    def found_in(self, blob: bytes) -> list[str]:
        return sorted(s for s in self.values if s.encode() in blob)


@pytest.fixture
async def served(aiohttp_client, settings, clock, caplog):
    """The app as `telephony serve` runs it (its access logger), with every log line captured."""
    caplog.set_level(logging.DEBUG)
    server = TestServer(create_app(settings, clock=clock))
    await server.start_server(access_log_class=AccessLogger)  # TestServer ignores server_kwargs
    return await aiohttp_client(server)


async def _use(client, creds: Creds) -> None:
    for version in VERSIONS:
        for scheme in ("x-auth-token", "basic"):
            response = await client.get(url(version, "/me"), headers=creds.headers(scheme))
            assert response.status == 200


async def _exercise(client, settings, secrets: Secrets) -> None:
    root_email, root_password = settings.bootstrap.admin_email, settings.bootstrap.admin_password
    secrets.add(root_password, PASSWORD, NEW_PASSWORD, WRONG_PASSWORD, B_PASSWORD, CONTROL_KEY)

    sessions = [await login(client, version, root_email, root_password) for version in VERSIONS]
    await client.post(url("v1.1", "/login"), json={"email": root_email, "password": WRONG_PASSWORD})
    root = sessions[1]
    await create_customer(client, "B Ltd", "root@b.example", B_PASSWORD)
    b_root = await login(client, "v1.1", "root@b.example", B_PASSWORD)

    await create_user(client, HOME, TWO_FACTOR, two_factor_auth="E")
    nonce = await challenge(client, "v1.2", TWO_FACTOR, PASSWORD, device_fingerprint="laptop-1")
    secrets.add(nonce)
    body = {"code": await mailed_secret(client, TWO_FACTOR), "nonce": nonce, "add_device": True}
    two_factor = (await (await client.post(url("v1.2", "/login2fa"), json=body)).json())["user_token"]

    api_token = await create_api_token(client, root, "ci")
    short_lived = await create_api_token(client, root, "short", expiry=60)
    api_key = await create_api_key(client, root.user_id, "crm")
    listed = await (await client.get(url("v1.2", "/apitokens"), headers=root.headers())).json()
    keys = await (await client.get(f"/_telephony/users/{root.user_id}/apikeys", headers=CONTROL)).json()
    assert {item["token"] for item in listed["data"]} == {api_token.token, short_lived.token}
    assert [item["key"] for item in keys["data"]] == [api_key.token]
    me = (await (await client.get(url("v1.2", "/me"), headers=root.headers())).json())["data"]
    secrets.add(me["sip_password"])
    secrets.creds(*sessions, b_root, Creds(0, two_factor), api_token, short_lived, api_key)
    for creds in (*sessions, b_root, api_token, api_key):
        await _use(client, creds)

    unknown = Creds(root.user_id, "0123456789abcdef0123456789abcdef01234567")
    secrets.creds(unknown)
    assert (await client.get(url("v1.1", "/ping"), headers=unknown.headers("basic"))).status == 401

    await client.post(url("v1.1", "/password"), json={"email": root_email})
    reset_token = await mailed_secret(client, root_email)
    secrets.add(reset_token)
    response = await client.post(url("v1.1", "/reset"), json={"token": reset_token, "password": NEW_PASSWORD})
    assert response.status == 200
    root = await login(client, "v1.2", root_email, NEW_PASSWORD)
    secrets.creds(root)
    await client.post(url("v1.2", "/logout"), headers=root.headers("basic"))
    await advance(client, 3600)  # the expiry timers run and record their revocations


def _data_dir_bytes(data_dir: Path) -> dict[Path, bytes]:
    files = {path: path.read_bytes() for path in data_dir.rglob("*") if path.is_file()}
    assert files, f"nothing in {data_dir}"
    return files


def _logged(caplog, capfd) -> bytes:
    out, err = capfd.readouterr()
    lines = [caplog.text, out, err, *(repr(vars(record)) for record in caplog.records)]
    return "\n".join(lines).encode()


async def test_no_secret_is_ever_stored_in_plain_text_in_the_data_dir(served, settings, caplog):
    secrets = Secrets()
    await _exercise(served, settings, secrets)
    for path, blob in _data_dir_bytes(settings.data_dir).items():  # as it is while serving (WAL and all)
        assert not secrets.found_in(blob), path
    await served.close()
    for path, blob in _data_dir_bytes(settings.data_dir).items():  # and once closed and checkpointed
        assert not secrets.found_in(blob), path


async def test_no_secret_is_ever_logged(served, settings, caplog, capfd):
    secrets = Secrets()
    await _exercise(served, settings, secrets)
    await served.close()
    logged = _logged(caplog, capfd)
    assert "/v1.2/voipstudio/me" in logged.decode()  # the access log was captured
    assert not secrets.found_in(logged)


async def test_deleting_an_api_token_stores_no_plain_token(served, settings):
    root = await login(served, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)
    api_token = await create_api_token(served, root, "ci")
    assert (await served.delete(url("v1.2", f"/apitokens/{api_token.token}"), headers=root.headers())).status == 204
    await served.close()
    secrets = Secrets()
    secrets.creds(root, api_token)
    for path, blob in _data_dir_bytes(settings.data_dir).items():
        assert not secrets.found_in(blob), path


async def test_deleting_an_api_token_logs_no_plain_token(served, settings, caplog, capfd):
    """DELETE /apitokens/{token} carries the token in its path, which the access log writes."""
    root = await login(served, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)
    api_token = await create_api_token(served, root, "ci")
    assert (await served.delete(url("v1.2", f"/apitokens/{api_token.token}"), headers=root.headers())).status == 204
    await served.close()
    secrets = Secrets()
    secrets.creds(root, api_token)
    assert not secrets.found_in(_logged(caplog, capfd))
