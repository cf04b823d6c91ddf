"""Small helpers for the accounts tests: URLs, both authentication schemes, logins and operator calls.

Every helper talks HTTP to the real app, as a client of the platform (or its operator) would.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from typing import Any

from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient

from telephony.keys import EVENT_LOG
from telephony.security import digest
from tests.conftest import CONTROL_KEY

SERVICE = "voipstudio"
VERSIONS = ("v1.1", "v1.2")
SCHEMES = ("x-auth-token", "basic")
CONTROL = {"X-Control-Key": CONTROL_KEY}
HEX40 = re.compile(r"^[0-9a-f]{40}$")
PASSWORD = "correct-horse-battery-staple"


def url(version: str, path: str) -> str:
    return f"/{version}/{SERVICE}{path}"


def auth_headers(scheme: str, user_id: int, token: str) -> dict[str, str]:
    """`X-Auth-Token: <token>`, or `Authorization: Basic base64(<user_id>:<token>)`."""
    if scheme == "x-auth-token":
        return {"X-Auth-Token": token}
    if scheme == "basic":
        return {"Authorization": "Basic " + base64.b64encode(f"{user_id}:{token}".encode()).decode()}
    raise ValueError(f"unknown scheme {scheme!r}")


@dataclass(frozen=True)
class Creds:
    """A user id and a secret that authenticates it (login token, API token or API key)."""

    user_id: int
    token: str

    def headers(self, scheme: str = "x-auth-token") -> dict[str, str]:
        return auth_headers(scheme, self.user_id, self.token)


def is_user_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 100_000 <= value <= 9_999_999


def filter_param(*conditions: tuple[str, str, Any]) -> str:
    """The `filter` query value: a JSON array of `{property, operator, value}`."""
    return json.dumps([{"property": p, "operator": o, "value": v} for p, o, v in conditions])


async def error_of(response: ClientResponse, status: int) -> dict:
    """The error body of a response that must have `status`; checks the `{message, errors}` shape."""
    body = await response.json()
    assert response.status == status, body
    assert set(body) == {"message", "errors"} and body["message"]
    assert body["errors"] and all(set(item) == {"field", "message"} for item in body["errors"])
    return body


# --- the login family --------------------------------------------------------------------------


async def login(client: TestClient, version: str, email: str, password: str, **extra: Any) -> Creds:
    """POST /login that must succeed; the user id and token it answered."""
    response = await client.post(url(version, "/login"), json={"email": email, "password": password, **extra})
    body = await response.json()
    assert response.status == 200, body
    return Creds(body["user_id"], body["user_token"])


async def challenge(client: TestClient, version: str, email: str, password: str, **extra: Any) -> str:
    """POST /login of a two-factor user, which must answer 202; the nonce."""
    response = await client.post(url(version, "/login"), json={"email": email, "password": password, **extra})
    body = await response.json()
    assert response.status == 202, body
    return body["nonce"]


async def create_api_token(client: TestClient, creds: Creds, name: str, expiry: int = 0) -> Creds:
    """POST /apitokens (v1.2) as `creds`; the new token, for the same user."""
    body = {"name": name, "expiry": expiry}
    response = await client.post(url("v1.2", "/apitokens"), json=body, headers=creds.headers())
    body = await response.json()
    assert response.status == 201, body
    return Creds(creds.user_id, body["data"]["token"])


async def status_of(client: TestClient, version: str, creds: Creds, scheme: str = "x-auth-token") -> int:
    """The status of GET /ping with these credentials: 200 while they live, 401 after."""
    response = await client.get(url(version, "/ping"), headers=creds.headers(scheme))
    return response.status


# --- operator endpoints ------------------------------------------------------------------------


async def create_customer(client: TestClient, name: str, email: str, password: str = PASSWORD) -> tuple[int, int]:
    """A new customer and its root user, through the control key; their ids."""
    body = {"name": name, "admin_email": email, "admin_password": password}
    response = await client.post("/_telephony/customers", json=body, headers=CONTROL)
    data = (await response.json())["data"]
    assert response.status == 201, data
    return data["customer"]["id"], data["user"]["id"]


async def create_user(client: TestClient, customer_id: int, email: str, password: str = PASSWORD, **fields: Any) -> int:
    """A user of `customer_id` (roles and any User attribute as keywords), through the control key; its id."""
    body = {"email": email, "password": password, **fields}
    response = await client.post(f"/_telephony/customers/{customer_id}/users", json=body, headers=CONTROL)
    data = (await response.json())["data"]
    assert response.status == 201, data
    return data["id"]


async def create_api_key(client: TestClient, user_id: int, name: str = "integration") -> Creds:
    """An API key of `user_id`, as made in the dashboard (the control endpoint)."""
    response = await client.post(f"/_telephony/users/{user_id}/apikeys", json={"name": name}, headers=CONTROL)
    data = (await response.json())["data"]
    assert response.status == 201, data
    return Creds(user_id, data["key"])


async def outbox(client: TestClient, to: str | None = None) -> list[dict]:
    response = await client.get("/_telephony/outbox", params={"to": to} if to else {}, headers=CONTROL)
    assert response.status == 200
    return (await response.json())["data"]


async def mailed_secret(client: TestClient, to: str) -> str:
    """The code or token at the end of the last mail sent to `to`."""
    mails = await outbox(client, to)
    assert mails, f"no mail to {to}"
    return mails[-1]["body"].rsplit(" ", 1)[1]


async def advance(client: TestClient, seconds: float) -> dict:
    """Moves the server's clock forward and runs what became due."""
    response = await client.post("/_telephony/clock", json={"advance": seconds}, headers=CONTROL)
    body = await response.json()
    assert response.status == 200, body
    return body["data"]


# --- the event log -----------------------------------------------------------------------------


async def events(client: TestClient, *types: str) -> list:
    return await client.server.app[EVENT_LOG].read(types=list(types))


async def token_id_of(client: TestClient, token: str) -> str:
    """The id the event log knows a token by (it keeps only the token's digest)."""
    wanted = digest(token)
    for event in await events(client, "token.issued"):
        if event.event.digest == wanted:
            return event.event.token_id
    raise AssertionError("no token.issued event for this token")
