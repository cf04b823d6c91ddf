"""The customer module of accounts: /me, /aclroles, /users, /users/{id}/audio, /customers/{id}, and roles."""

from __future__ import annotations

import pytest

from telephony.accounts.models import USER_FIELDS
from telephony.domain.events.base import data_of
from tests.accounts.conftest import HOME, ROOT_ID
from tests.accounts.helpers import (
    PASSWORD,
    Creds,
    create_api_key,
    create_api_token,
    create_customer,
    create_user,
    error_of,
    events,
    is_user_id,
    login,
    status_of,
    url,
)

READ_ONLY = "reader@example.com"
AGENT = "agent@example.com"
ROLES = {READ_ONLY: "ROLE_READ_ONLY", AGENT: "ROLE_AGENT"}
ME_FIELDS = {"balance", "cc", "cli", "currency_iso", "is_root", "language"}  # the spec's Me
ME_FIELDS |= {"id", "email", "first_name", "last_name", "customer_id", "sip_domain", "sip_password"}  # real-platform.md


@pytest.fixture
async def staff(client) -> dict[str, int]:
    """A read-only user and an agent in the bootstrap customer, by email."""
    return {email: await create_user(client, HOME, email, roles=[role]) for email, role in ROLES.items()}


@pytest.fixture(params=list(ROLES))
async def non_root(request, client, version, staff) -> Creds:
    """A logged-in user without root rights: read-only, then agent."""
    return await login(client, version, request.param, PASSWORD)


# --- GET /me -----------------------------------------------------------------------------------


async def test_me_is_an_object_with_the_me_fields_identity_and_sip_credentials(client, version, scheme, root):
    response = await client.get(url(version, "/me"), headers=root.headers(scheme))
    assert response.status == 200
    body = await response.json()
    data = body["data"]
    assert isinstance(data, dict)
    assert set(data) >= ME_FIELDS
    assert (data["id"], data["customer_id"], data["is_root"]) == (ROOT_ID, HOME, True)
    assert data["sip_domain"] and data["sip_password"]
    assert body["links"]["self"] == url(version, "/me")


@pytest.mark.parametrize("cli", [None, "+442071230000"], ids=["no-cli", "a-cli"])
async def test_me_shows_what_it_shares_with_the_users_record_as_users_shows_it(client, version, cli):
    user_id = await create_user(client, HOME, "me@example.com", cli=cli, cc=None, language="de")
    creds = await login(client, version, "me@example.com", PASSWORD)
    me = (await (await client.get(url(version, "/me"), headers=creds.headers())).json())["data"]
    user = (await (await client.get(url(version, f"/users/{user_id}"), headers=creds.headers())).json())["data"]
    shared = set(me) & set(user)
    assert shared >= {"id", "email", "first_name", "last_name", "cc", "cli", "is_root", "language"}
    assert {k: me[k] for k in shared} == {k: user[k] for k in shared}
    assert (me["cli"], me["cc"]) == (cli, None)


async def test_me_describes_the_caller_not_the_root(client, version, staff):
    reader = await login(client, version, READ_ONLY, PASSWORD)
    data = (await (await client.get(url(version, "/me"), headers=reader.headers())).json())["data"]
    assert (data["id"], data["email"], data["is_root"]) == (staff[READ_ONLY], READ_ONLY, False)


# --- GET /aclroles -----------------------------------------------------------------------------


async def test_aclroles_lists_the_roles_as_a_collection(client, version, scheme, root):
    response = await client.get(url(version, "/aclroles"), headers=root.headers(scheme))
    assert response.status == 200
    body = await response.json()
    assert body["total"] == len(body["data"]) >= 4
    assert all(set(role) == {"id", "_name", "name", "product_code"} for role in body["data"])
    assert {"ROLE_ROOT_ADMIN", "ROLE_READ_ONLY", "ROLE_AGENT"} <= {role["_name"] for role in body["data"]}


async def test_one_aclrole_by_id(client, version, scheme, root):
    response = await client.get(url(version, "/aclroles/4"), headers=root.headers(scheme))
    assert response.status == 200
    body = await response.json()
    assert body["data"] == {"id": 4, "_name": "ROLE_READ_ONLY", "name": "Read-only", "product_code": "PBX"}
    assert body["links"]["self"] == url(version, "/aclroles/4")


async def test_an_unknown_aclrole_is_a_404(client, version, root):
    await error_of(await client.get(url(version, "/aclroles/999"), headers=root.headers()), 404)


# --- GET /users, GET /users/{id} ---------------------------------------------------------------


async def test_users_lists_the_customers_users_as_user_resources(client, version, scheme, root, staff):
    response = await client.get(url(version, "/users"), headers=root.headers(scheme))
    assert response.status == 200
    body = await response.json()
    assert body["total"] == 3 and {u["id"] for u in body["data"]} == {ROOT_ID, *staff.values()}
    for user in body["data"]:
        assert set(user) == USER_FIELDS and is_user_id(user["id"]) and user["customer"] == HOME
    by_email = {u["email"]: u for u in body["data"]}
    assert by_email[READ_ONLY]["roles"] == ["ROLE_READ_ONLY"] and by_email[READ_ONLY]["is_root"] is False


async def test_users_filters_like_every_collection(client, version, root, staff):
    params = {"filter": '[{"property": "email", "operator": "like", "value": "agent"}]'}
    body = await (await client.get(url(version, "/users"), params=params, headers=root.headers())).json()
    assert [u["id"] for u in body["data"]] == [staff[AGENT]] and body["total"] == 1


@pytest.mark.parametrize(
    "params",
    [
        pytest.param({"filter": '[{"property": "password", "operator": "eq", "value": "x"}]'}, id="unknown-property"),
        pytest.param({"filter": '[{"property": "id", "operator": "between", "value": 1}]'}, id="unknown-operator"),
        pytest.param({"filter": "not json"}, id="malformed-filter"),
        pytest.param({"page": "0"}, id="page-zero"),
    ],
)
async def test_a_malformed_user_list_request_is_a_400(client, version, root, params):
    error = await error_of(await client.get(url(version, "/users"), params=params, headers=root.headers()), 400)
    assert error["errors"][0]["field"] in ("filter", "page")


async def test_one_user_by_id(client, version, scheme, root, staff):
    response = await client.get(url(version, f"/users/{staff[AGENT]}"), headers=root.headers(scheme))
    assert response.status == 200
    body = await response.json()
    assert body["data"]["email"] == AGENT and body["data"]["roles"] == ["ROLE_AGENT"]
    assert body["links"]["self"] == url(version, f"/users/{staff[AGENT]}")


async def test_an_unknown_user_is_a_404(client, version, root):
    for method in ("GET", "DELETE"):
        for path in ("/users/9999999", "/users/9999999/audio"):
            await error_of(await client.request(method, url(version, path), headers=root.headers()), 404)


async def test_a_read_only_user_may_still_list_and_read_users(client, version, scheme, staff):
    reader = await login(client, version, READ_ONLY, PASSWORD)
    response = await client.get(url(version, "/users"), headers=reader.headers(scheme))
    assert response.status == 200 and (await response.json())["total"] == 3
    response = await client.get(url(version, f"/users/{ROOT_ID}"), headers=reader.headers(scheme))
    assert response.status == 200


# --- PATCH /users (bulk) -----------------------------------------------------------------------


async def user_groups(client, root: Creds, n: int) -> list[int]:
    """`n` new user groups of the root user's customer, by id."""
    made = [await client.post(url("v1.2", "/usergroups"), json={"name": f"Team {i}"}, headers=root.headers())
            for i in range(n)]  # fmt: skip
    return [(await response.json())["data"]["id"] for response in made]


async def test_bulk_patch_changes_location_and_groups_of_several_users(client, version, scheme, root, staff):
    one, two, three = await user_groups(client, root, 3)
    changes = [{"id": staff[AGENT], "location_id": 7, "groups": [one, two]},
               {"id": staff[READ_ONLY], "groups": [three]}]  # fmt: skip
    response = await client.patch(url(version, "/users"), json=changes, headers=root.headers(scheme))
    assert response.status == 200
    body = await response.json()
    assert body["total"] == 2
    got = {u["id"]: (u["location_id"], u["groups"]) for u in body["data"]}
    assert got == {staff[AGENT]: ("7", [one, two]), staff[READ_ONLY]: (None, [three])}
    stored = await (await client.get(url(version, f"/users/{staff[AGENT]}"), headers=root.headers())).json()
    assert stored["data"] == next(u for u in body["data"] if u["id"] == staff[AGENT])


async def test_bulk_patch_with_an_unknown_user_is_a_404_and_changes_nothing(client, version, root, staff):
    (group,) = await user_groups(client, root, 1)
    changes = [{"id": staff[AGENT], "groups": [group]}, {"id": 9999999, "groups": [group]}]
    await error_of(await client.patch(url(version, "/users"), json=changes, headers=root.headers()), 404)
    stored = await (await client.get(url(version, f"/users/{staff[AGENT]}"), headers=root.headers())).json()
    assert stored["data"]["groups"] == []


async def test_bulk_patch_of_fields_it_cannot_change_is_a_400_naming_each_and_changes_nothing(client, version, root,
                                                                                                staff):  # fmt: skip
    before = (await (await client.get(url(version, f"/users/{staff[AGENT]}"), headers=root.headers())).json())["data"]
    for extra, refused in (({"ext": "250", "monitor": "A"}, "This field is read-only"),
                           ({"favourite": "tea", "colour": "red"}, "This field is not allowed here")):  # fmt: skip
        body = [{"id": staff[AGENT], "location_id": "9", **extra}]
        error = await error_of(await client.patch(url(version, "/users"), json=body, headers=root.headers()), 400)
        assert [(e["field"], e["message"].split(":")[0]) for e in error["errors"]] == [(f, refused) for f in extra]
    after = (await (await client.get(url(version, f"/users/{staff[AGENT]}"), headers=root.headers())).json())["data"]
    assert after == before and await events(client, "user.updated") == []


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"id": ROOT_ID}, id="not-an-array"),
        pytest.param([{"groups": [1]}], id="item-without-id"),
        pytest.param([{"id": ROOT_ID, "groups": "all"}], id="groups-not-an-array"),
    ],
)
async def test_bulk_patch_with_an_invalid_body_is_a_400(client, version, root, body):
    await error_of(await client.patch(url(version, "/users"), json=body, headers=root.headers()), 400)


# --- DELETE /users/{id} ------------------------------------------------------------------------


async def test_deleting_a_user_answers_204_and_ends_its_tokens(client, version, scheme, root, staff):
    agent = await login(client, version, AGENT, PASSWORD)
    api_key = await create_api_key(client, staff[AGENT])
    response = await client.delete(url(version, f"/users/{staff[AGENT]}"), headers=root.headers(scheme))
    assert response.status == 204 and await response.read() == b""
    await error_of(await client.get(url(version, f"/users/{staff[AGENT]}"), headers=root.headers()), 404)
    assert await status_of(client, version, agent) == 401
    assert await status_of(client, version, api_key) == 401
    await error_of(await client.post(url(version, "/login"), json={"email": AGENT, "password": PASSWORD}), 400)
    listed = await (await client.get(url(version, "/users"), headers=root.headers())).json()
    assert staff[AGENT] not in {u["id"] for u in listed["data"]} and listed["total"] == 2


async def test_a_root_user_cannot_delete_itself(client, version, root):
    await error_of(await client.delete(url(version, f"/users/{ROOT_ID}"), headers=root.headers()), 400)


async def test_a_user_deletion_records_the_acting_user_and_token_kind(client, version, root, staff):
    await client.delete(url(version, f"/users/{staff[AGENT]}"), headers=root.headers())
    (deleted,) = await events(client, "user.deleted")
    assert data_of(deleted.event) == {"id": staff[AGENT]}
    assert (deleted.meta.user_id, deleted.meta.customer_id, deleted.meta.token_kind) == (ROOT_ID, HOME, "login")
    assert deleted.meta.api_version == version


async def test_a_change_made_with_an_api_key_records_the_api_key_kind(client, version, staff):
    api_key = await create_api_key(client, ROOT_ID)
    await client.patch(url(version, "/users"), json=[{"id": staff[AGENT], "location_id": 1}], headers=api_key.headers())
    (updated,) = await events(client, "user.updated")
    assert (updated.meta.user_id, updated.meta.token_kind) == (ROOT_ID, "apikey")


# --- /users/{id}/audio -------------------------------------------------------------------------


async def test_user_audio_reads_and_resets_the_announcements(client, version, scheme, root, staff):
    response = await client.get(url(version, f"/users/{staff[AGENT]}/audio"), headers=root.headers(scheme))
    assert response.status == 200
    body = await response.json()
    assert body["data"]["user_id"] == staff[AGENT]
    assert body["links"]["self"] == url(version, f"/users/{staff[AGENT]}/audio")
    response = await client.delete(url(version, f"/users/{staff[AGENT]}/audio"), headers=root.headers(scheme))
    assert response.status == 204 and await response.read() == b""


async def test_a_user_may_reset_its_own_audio_but_not_a_colleagues(client, version, staff, non_root):
    response = await client.delete(url(version, f"/users/{non_root.user_id}/audio"), headers=non_root.headers())
    assert response.status == 204
    response = await client.delete(url(version, f"/users/{ROOT_ID}/audio"), headers=non_root.headers())
    await error_of(response, 403)


# --- DELETE /customers/{id} --------------------------------------------------------------------


async def test_deleting_the_customer_ends_all_its_tokens_at_once(client, version, scheme, root, staff):
    agent = await login(client, version, AGENT, PASSWORD)
    api_key = await create_api_key(client, staff[READ_ONLY])
    api_token = await create_api_token(client, await login(client, "v1.2", READ_ONLY, PASSWORD), "ci")
    response = await client.delete(url(version, f"/customers/{HOME}"), headers=root.headers(scheme))
    assert response.status == 204 and await response.read() == b""
    for dead in (root, agent, api_key, api_token):
        assert await status_of(client, version, dead) == 401
    await error_of(await client.post(url(version, "/login"), json={"email": AGENT, "password": PASSWORD}), 400)


async def test_deleting_a_customer_leaves_other_customers_alone(client, version, root):
    _, other_root = await create_customer(client, "Other Ltd", "boss@other.example")
    other = await login(client, version, "boss@other.example", PASSWORD)
    await client.delete(url(version, f"/customers/{HOME}"), headers=root.headers())
    assert await status_of(client, version, other) == 200
    users = await (await client.get(url(version, "/users"), headers=other.headers())).json()
    assert [u["id"] for u in users["data"]] == [other_root]


async def test_deleting_an_unknown_customer_is_a_404(client, version, root):
    await error_of(await client.delete(url(version, "/customers/999999"), headers=root.headers()), 404)


async def test_a_customer_deletion_records_the_acting_user(client, version, root):
    await client.delete(url(version, f"/customers/{HOME}"), headers=root.headers())
    (deleted,) = await events(client, "customer.deleted")
    assert (deleted.meta.user_id, deleted.meta.token_kind) == (ROOT_ID, "login")


# --- permissions -------------------------------------------------------------------------------


async def test_a_non_root_user_may_not_bulk_patch_users(client, version, scheme, non_root, staff):
    body = [{"id": non_root.user_id, "groups": [1]}]
    response = await client.patch(url(version, "/users"), json=body, headers=non_root.headers(scheme))
    await error_of(response, 403)


async def test_a_non_root_user_may_not_delete_users(client, version, scheme, non_root, staff):
    for target in (ROOT_ID, *staff.values()):
        response = await client.delete(url(version, f"/users/{target}"), headers=non_root.headers(scheme))
        await error_of(response, 403)


async def test_a_non_root_user_may_not_delete_its_customer(client, version, scheme, non_root):
    response = await client.delete(url(version, f"/customers/{HOME}"), headers=non_root.headers(scheme))
    await error_of(response, 403)
    assert await status_of(client, version, non_root) == 200


async def test_a_non_root_user_may_read_its_own_world(client, version, non_root):
    for path in ("/me", "/aclroles", "/aclroles/1", f"/users/{non_root.user_id}/audio", "/ping"):
        assert (await client.get(url(version, path), headers=non_root.headers())).status == 200, path
