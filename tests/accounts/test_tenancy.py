"""Tenancy: a user of one customer never sees nor touches another customer's records."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.accounts.conftest import HOME, ROOT_ID
from tests.accounts.helpers import (
    PASSWORD,
    Creds,
    create_api_key,
    create_api_token,
    create_customer,
    create_user,
    error_of,
    filter_param,
    login,
    status_of,
    url,
)


@dataclass(frozen=True)
class Tenants:
    """Customer A (the bootstrap one) and customer B (made by the operator), each with users and tokens."""

    a_root: Creds
    a_agent: Creds
    b_customer: int
    b_root: Creds
    b_user: int
    b_api_token: Creds
    b_api_key: Creds


@pytest.fixture
async def tenants(client, version, root) -> Tenants:
    await create_user(client, HOME, "agent@a.example")
    a_agent = await login(client, version, "agent@a.example", PASSWORD)
    await create_api_token(client, root, "a-ci")
    b_customer, _ = await create_customer(client, "B Ltd", "root@b.example")
    b_user = await create_user(client, b_customer, "user@b.example", roles=["ROLE_READ_ONLY"])
    b_root = await login(client, version, "root@b.example", PASSWORD)
    b_api_token = await create_api_token(client, b_root, "b-ci")
    return Tenants(root, a_agent, b_customer, b_root, b_user, b_api_token, await create_api_key(client, b_user))


CROSS_TENANT = [
    ("GET", "/users/{b_user}"),
    ("DELETE", "/users/{b_user}"),
    ("GET", "/users/{b_user}/audio"),
    ("DELETE", "/users/{b_user}/audio"),
    ("PATCH", "/users"),  # with B's user in the bulk body
    ("DELETE", "/customers/{b_customer}"),
]


@pytest.mark.parametrize("method, path", CROSS_TENANT, ids=[f"{m} {p}" for m, p in CROSS_TENANT])
async def test_a_root_user_gets_404_for_every_id_of_another_customer(client, version, scheme, tenants, method, path):
    body = [{"id": tenants.b_user, "groups": [1]}] if method == "PATCH" else None
    path = path.format(b_user=tenants.b_user, b_customer=tenants.b_customer)
    response = await client.request(method, url(version, path), json=body, headers=tenants.a_root.headers(scheme))
    await error_of(response, 404)
    await _b_is_intact(client, version, tenants)


async def test_reading_another_customers_user_is_a_404_for_a_non_root_user_too(client, version, scheme, tenants):
    for path in (f"/users/{tenants.b_user}", f"/users/{tenants.b_user}/audio"):
        await error_of(await client.get(url(version, path), headers=tenants.a_agent.headers(scheme)), 404)
    response = await client.delete(url(version, f"/users/{tenants.b_user}/audio"), headers=tenants.a_agent.headers())
    await error_of(response, 404)


async def test_another_customers_api_token_cannot_be_deleted(client, tenants, scheme):
    path = url("v1.2", f"/apitokens/{tenants.b_api_token.token}")
    await error_of(await client.delete(path, headers=tenants.a_root.headers(scheme)), 404)
    assert await status_of(client, "v1.2", tenants.b_api_token) == 200


async def test_user_lists_never_include_another_customers_users(client, version, scheme, tenants):
    for creds in (tenants.a_root, tenants.a_agent):
        body = await (await client.get(url(version, "/users"), headers=creds.headers(scheme))).json()
        assert {u["id"] for u in body["data"]} == {ROOT_ID, tenants.a_agent.user_id} and body["total"] == 2
        assert {u["customer"] for u in body["data"]} == {HOME}


async def test_a_filter_on_another_customers_ids_finds_nothing(client, version, tenants):
    params = {"filter": filter_param(("id", "in", [tenants.b_user, tenants.b_root.user_id]))}
    body = await (await client.get(url(version, "/users"), params=params, headers=tenants.a_root.headers())).json()
    assert body == {"data": [], "total": 0}


async def test_api_token_lists_never_include_another_customers_tokens(client, tenants, scheme):
    body = await (await client.get(url("v1.2", "/apitokens"), headers=tenants.a_root.headers(scheme))).json()
    assert [item["name"] for item in body["data"]] == ["a-ci"] and body["total"] == 1
    params = {"filter": filter_param(("name", "eq", "b-ci"))}
    body = await (await client.get(url("v1.2", "/apitokens"), params=params, headers=tenants.a_root.headers())).json()
    assert body == {"data": [], "total": 0}


async def test_each_customer_sees_only_itself_in_me(client, version, tenants):
    for creds, customer in ((tenants.a_root, HOME), (tenants.b_root, tenants.b_customer)):
        data = (await (await client.get(url(version, "/me"), headers=creds.headers())).json())["data"]
        assert (data["id"], data["customer_id"]) == (creds.user_id, customer)


async def test_a_basic_pair_cannot_borrow_another_customers_user_id(client, version, tenants):
    borrowed = Creds(tenants.b_root.user_id, tenants.a_root.token)
    await error_of(await client.get(url(version, "/me"), headers=borrowed.headers("basic")), 401)


async def test_deleting_one_customer_leaves_the_other_working(client, version, tenants):
    response = await client.delete(url(version, f"/customers/{tenants.b_customer}"), headers=tenants.b_root.headers())
    assert response.status == 204
    for dead in (tenants.b_root, tenants.b_api_token, tenants.b_api_key):
        assert await status_of(client, version, dead) == 401
    for alive in (tenants.a_root, tenants.a_agent):
        assert await status_of(client, version, alive) == 200
    body = await (await client.get(url(version, "/users"), headers=tenants.a_root.headers())).json()
    assert body["total"] == 2


async def _b_is_intact(client, version: str, t: Tenants) -> None:
    for creds in (t.b_root, t.b_api_token, t.b_api_key):
        assert await status_of(client, version, creds) == 200
    users = await (await client.get(url(version, "/users"), headers=t.b_root.headers())).json()
    by_id = {u["id"]: u for u in users["data"]}
    assert set(by_id) == {t.b_root.user_id, t.b_user}
    assert by_id[t.b_user]["groups"] == []
