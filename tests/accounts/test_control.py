"""Operator endpoints of accounts under /_telephony/: customers, users, API keys, the outbox and the clock."""

from __future__ import annotations

import io
import json
import re
import time
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import pypdf
import pytest

from telephony.domain.events.base import data_of
from tests.accounts.conftest import HOME, ROOT_ID
from tests.accounts.helpers import (
    CONTROL,
    HEX40,
    PASSWORD,
    create_api_key,
    create_customer,
    create_user,
    error_of,
    events,
    is_user_id,
    login,
    outbox,
    status_of,
    url,
)
from tests.calls.test_voicemail_mail import settled
from tests.messaging.test_faxes import fax, provision

WIRE_TIME = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")
ENDPOINTS = [
    ("POST", "/_telephony/customers"),
    ("POST", f"/_telephony/customers/{HOME}/users"),
    ("PATCH", f"/_telephony/users/{ROOT_ID}"),
    ("POST", f"/_telephony/users/{ROOT_ID}/apikeys"),
    ("GET", f"/_telephony/users/{ROOT_ID}/apikeys"),
    ("POST", f"/_telephony/users/{ROOT_ID}/registrations"),
    ("GET", f"/_telephony/users/{ROOT_ID}/registrations"),
    ("DELETE", f"/_telephony/users/{ROOT_ID}/registrations/1"),
    ("GET", "/_telephony/outbox"),
    ("GET", "/_telephony/clock"),
    ("POST", "/_telephony/clock"),
]


@pytest.mark.parametrize("method, path", ENDPOINTS, ids=[f"{m} {p}" for m, p in ENDPOINTS])
@pytest.mark.parametrize("key", [None, "wrong-key"], ids=["no-key", "wrong-key"])
async def test_every_operator_endpoint_needs_the_control_key(client, method, path, key):
    headers = {"X-Control-Key": key} if key else {}
    error = await error_of(await client.request(method, path, json={}, headers=headers), 401)
    assert "X-Control-Key" in error["message"]


async def test_a_user_token_is_not_a_control_key(client, root):
    response = await client.get("/_telephony/outbox", headers=root.headers())
    await error_of(response, 401)


# --- customers and users -----------------------------------------------------------------------


async def test_creating_a_customer_answers_201_with_the_customer_and_its_root_user(client, version):
    body = {"name": "B Ltd", "admin_email": "root@b.example", "admin_password": PASSWORD}
    response = await client.post("/_telephony/customers", json=body, headers=CONTROL)
    assert response.status == 201
    data = (await response.json())["data"]
    customer, user = data["customer"], data["user"]
    assert customer["name"] == "B Ltd" and isinstance(customer["id"], int) and customer["id"] != HOME
    assert is_user_id(user["id"]) and user["email"] == "root@b.example"
    assert (user["is_root"], user["is_initial"], user["customer"]) == (True, True, customer["id"])
    assert user["roles"] == ["ROLE_ROOT_ADMIN"]
    assert "password" not in str(data)
    creds = await login(client, version, "root@b.example", PASSWORD)
    assert creds.user_id == user["id"]


GOOD_CUSTOMER = {"name": "B", "admin_email": "root@b.example", "admin_password": PASSWORD}


@pytest.mark.parametrize(
    "change, field",
    [
        pytest.param({"name": None}, "name", id="no-name"),
        pytest.param({"admin_email": "not-an-email"}, "admin_email", id="bad-email"),
        pytest.param({"admin_password": "short"}, "admin_password", id="short-password"),
    ],
)
async def test_an_invalid_customer_is_a_400_naming_the_field(client, change, field):
    body = {k: v for k, v in {**GOOD_CUSTOMER, **change}.items() if v is not None}
    error = await error_of(await client.post("/_telephony/customers", json=body, headers=CONTROL), 400)
    assert error["errors"][0]["field"] == field


async def test_an_email_is_used_by_one_user_only(client, root_email):
    body = {"name": "B", "admin_email": root_email.upper(), "admin_password": PASSWORD}
    error = await error_of(await client.post("/_telephony/customers", json=body, headers=CONTROL), 400)
    assert error["errors"][0]["field"] == "email"
    body = {"email": root_email, "password": PASSWORD}
    await error_of(await client.post(f"/_telephony/customers/{HOME}/users", json=body, headers=CONTROL), 400)


@pytest.mark.parametrize("roles", [["ROLE_READ_ONLY"], [4], ["4"]], ids=["by-name", "by-id", "by-id-text"])
async def test_a_user_gets_its_roles_by_name_or_id(client, roles):
    body = {"email": "reader@example.com", "password": PASSWORD, "roles": roles, "first_name": "Rea"}
    response = await client.post(f"/_telephony/customers/{HOME}/users", json=body, headers=CONTROL)
    assert response.status == 201
    user = (await response.json())["data"]
    assert user["roles"] == ["ROLE_READ_ONLY"]
    assert (user["is_root"], user["first_name"], user["customer"]) == (False, "Rea", HOME)
    assert is_user_id(user["id"])


async def test_a_user_without_roles_is_an_agent(client):
    user_id = await create_user(client, HOME, "someone@example.com")
    reader = await login(client, "v1.2", "someone@example.com", PASSWORD)
    user = (await (await client.get(url("v1.2", f"/users/{user_id}"), headers=reader.headers())).json())["data"]
    assert user["roles"] == ["ROLE_AGENT"]


@pytest.mark.parametrize("where", ["top-level", "attributes"])
async def test_user_attributes_may_be_given_at_the_top_level_or_under_attributes(client, where):
    extra = {"two_factor_auth": "E", "language": "de"}
    body = {
        "email": "x@example.com",
        "password": PASSWORD,
        **(extra if where == "top-level" else {"attributes": extra}),
    }
    response = await client.post(f"/_telephony/customers/{HOME}/users", json=body, headers=CONTROL)
    user = (await response.json())["data"]
    assert response.status == 201 and (user["two_factor_auth"], user["language"]) == ("E", "de")


@pytest.mark.parametrize(
    "extra, field",
    [
        pytest.param({"roles": ["ROLE_NOPE"]}, "roles", id="unknown-role"),
        pytest.param({"attributes": {"colour": "red"}}, "colour", id="unknown-attribute"),
        pytest.param({"attributes": {"customer": 1}}, "customer", id="protected-attribute"),
        pytest.param({"attributes": {"dnd": "yes"}}, "dnd", id="wrong-type"),
        pytest.param({"password": "short"}, "password", id="short-password"),
    ],
)
async def test_an_invalid_user_is_a_400_naming_the_field(client, extra, field):
    body = {"email": "x@example.com", "password": PASSWORD, **extra}
    response = await client.post(f"/_telephony/customers/{HOME}/users", json=body, headers=CONTROL)
    error = await error_of(response, 400)
    assert error["errors"][0]["field"] == field


async def test_a_user_of_an_unknown_or_deleted_customer_is_a_404(client, root):
    body = {"email": "x@example.com", "password": PASSWORD}
    await error_of(await client.post("/_telephony/customers/999999/users", json=body, headers=CONTROL), 404)
    await client.delete(url("v1.2", f"/customers/{HOME}"), headers=root.headers())
    await error_of(await client.post(f"/_telephony/customers/{HOME}/users", json=body, headers=CONTROL), 404)


# --- changing a user ---------------------------------------------------------------------------


async def change_user(client, user_id: int, body: dict, status: int = 200) -> dict:
    """PATCH /_telephony/users/{id}: the answer's body, which must have `status`."""
    response = await client.patch(f"/_telephony/users/{user_id}", json=body, headers=CONTROL)
    answer = await response.json()
    assert response.status == status, answer
    return answer


async def test_the_operator_changes_any_user_attribute_as_one_event(client, version, root):
    user_id = await create_user(client, HOME, "desk@example.com", ext="201")
    changes = {"ext": "202", "cli": "+442071230000", "monitor": "inbound", "dnd": True, "fm": True,
               "fm_targets": ["+447700900200"], "fm_strategy": "hunt", "vm_to_email": True,
               "vm_emails": ["desk@example.com"], "roles": [2], "first_name": "Dee"}  # fmt: skip
    changed = (await change_user(client, user_id, changes))["data"]
    stored = {**changes, "monitor": "I", "fm_strategy": "H", "roles": ["ROLE_ADMIN"]}  # codes and role names
    assert {k: changed[k] for k in stored} == stored
    shown = (await (await client.get(url(version, f"/users/{user_id}"), headers=root.headers())).json())["data"]
    assert shown == changed
    (updated,) = await events(client, "user.updated")
    assert data_of(updated.event) == {"id": user_id, "changes": stored}
    assert (updated.meta.token_kind, updated.meta.user_id) == ("control", None)


BAD_ATTRIBUTES = {"colour": "red", "dnd": "yes", "monitor": "sometimes", "roles": ["ROLE_NOPE"], "ext": "1"}
"""Five problems: an unknown attribute, a wrong type, a value outside its dictionary, an unknown role,
an extension calls could not dial."""


@pytest.mark.parametrize("how", ["create", "change"])
async def test_a_creation_and_a_change_refuse_the_same_attributes_naming_every_problem(client, how):
    if how == "create":
        body = {"email": "x@example.com", "password": PASSWORD, **BAD_ATTRIBUTES}
        response = await client.post(f"/_telephony/customers/{HOME}/users", json=body, headers=CONTROL)
        error = await error_of(response, 400)
    else:
        error = await change_user(client, ROOT_ID, BAD_ATTRIBUTES, 400)
    assert {e["field"] for e in error["errors"]} == set(BAD_ATTRIBUTES)
    assert len(error["errors"]) == len(BAD_ATTRIBUTES)
    assert await events(client, "user.updated") == []


async def test_an_extension_rings_one_user_of_a_customer(client):
    first = await create_user(client, HOME, "first@example.com", ext="301")
    second = await create_user(client, HOME, "second@example.com", ext="302")
    error = await change_user(client, second, {"ext": "301", "groups": [999]}, 400)
    assert [(e["field"], e["message"]) for e in error["errors"]] == [
        ("groups", "User group 999 not found"),
        ("ext", f"Extension 301 is already used by user {first}"),
    ]
    body = {"email": "third@example.com", "password": PASSWORD, "ext": "302"}
    response = await client.post(f"/_telephony/customers/{HOME}/users", json=body, headers=CONTROL)
    assert (await error_of(response, 400))["errors"][0]["field"] == "ext"
    _, other_root = await create_customer(client, "Other Ltd", "boss@other.example")
    assert (await change_user(client, other_root, {"ext": "301"}))["data"]["ext"] == "301"  # another customer's


async def test_a_users_own_get_body_is_taken_back_and_what_the_platform_sets_cannot_change(client, version, root):
    shown = (await (await client.get(url(version, f"/users/{ROOT_ID}"), headers=root.headers())).json())["data"]
    assert (await change_user(client, ROOT_ID, shown))["data"] == shown
    read_only = {"email": "new@example.com", "nb_sip_locations": 5, "created_at": "2020-01-01 00:00:00"}
    error = await change_user(client, ROOT_ID, {**shown, **read_only}, 400)
    assert {e["field"] for e in error["errors"]} == set(read_only)
    assert all("read-only" in e["message"] for e in error["errors"])


async def test_changing_an_unknown_user_is_a_404(client):
    assert (await change_user(client, 9999999, {"dnd": True}, 404))["message"] == "User 9999999 not found"


async def test_changed_roles_decide_the_users_next_request(client, version):
    user_id = await create_user(client, HOME, "reader@example.com", roles=["ROLE_READ_ONLY"])
    reader = await login(client, version, "reader@example.com", PASSWORD)
    contact = {"first_name": "Ann"}
    await error_of(await client.post(url(version, "/contacts"), json=contact, headers=reader.headers()), 403)
    await change_user(client, user_id, {"roles": ["ROLE_ADMIN"]})
    assert (await client.post(url(version, "/contacts"), json=contact, headers=reader.headers())).status == 201


# --- API keys ----------------------------------------------------------------------------------


async def test_creating_an_api_key_answers_201_with_the_key(client):
    response = await client.post(f"/_telephony/users/{ROOT_ID}/apikeys", json={"name": "crm"}, headers=CONTROL)
    assert response.status == 201
    data = (await response.json())["data"]
    assert set(data) == {"id", "name", "key", "user_id", "created_at"}
    assert HEX40.match(data["key"]) and (data["name"], data["user_id"]) == ("crm", ROOT_ID)
    assert WIRE_TIME.match(data["created_at"])


async def test_listing_api_keys_shows_each_live_key(client):
    keys = [await create_api_key(client, ROOT_ID, name) for name in ("crm", "bi")]
    response = await client.get(f"/_telephony/users/{ROOT_ID}/apikeys", headers=CONTROL)
    body = await response.json()
    assert response.status == 200 and body["total"] == 2
    assert [(item["name"], item["key"]) for item in body["data"]] == [("crm", keys[0].token), ("bi", keys[1].token)]


async def test_api_key_names_are_unique_per_user(client):
    await create_api_key(client, ROOT_ID, "crm")
    response = await client.post(f"/_telephony/users/{ROOT_ID}/apikeys", json={"name": "crm"}, headers=CONTROL)
    error = await error_of(response, 400)
    assert error["errors"] == [{"field": "name", "message": "This name is already used"}]


async def test_api_keys_of_an_unknown_user_are_a_404(client):
    await error_of(await client.post("/_telephony/users/9999999/apikeys", json={"name": "x"}, headers=CONTROL), 404)
    await error_of(await client.get("/_telephony/users/9999999/apikeys", headers=CONTROL), 404)


async def test_an_api_key_creation_names_the_operator_as_the_actor(client):
    await create_api_key(client, ROOT_ID, "crm")
    (issued,) = await events(client, "token.issued")
    assert issued.meta.token_kind == "control" and issued.meta.user_id is None


async def test_an_api_key_of_a_deleted_user_no_longer_works(client, root):
    user_id = await create_user(client, HOME, "leaver@example.com")
    api_key = await create_api_key(client, user_id)
    await client.delete(url("v1.2", f"/users/{user_id}"), headers=root.headers())
    assert await status_of(client, "v1.2", api_key) == 401
    await error_of(await client.post(f"/_telephony/users/{user_id}/apikeys", json={"name": "x"}, headers=CONTROL), 404)


# --- outbox ------------------------------------------------------------------------------------


async def test_the_outbox_lists_mail_newest_last_and_narrows_to_a_recipient(client, root_email):
    await create_user(client, HOME, "other@example.com")
    for email in (root_email, "other@example.com", root_email):
        await client.post(url("v1.1", "/confirmation"), json={"email": email})
    mails = await outbox(client)
    assert [m["to"] for m in mails] == [root_email, "other@example.com", root_email]
    assert all(
        set(m) == {"id", "to", "subject", "body", "transport", "created_at", "status", "date", "message_id",
                   "attachments"} for m in mails
    )  # fmt: skip
    assert {m["status"] for m in mails} == {"sent"}
    assert [m["id"] for m in mails] == sorted(m["id"] for m in mails)
    assert [m["to"] for m in await outbox(client, "other@example.com")] == ["other@example.com"]


async def test_the_outbox_dates_each_mail_in_real_time_and_gives_it_a_message_id(client, clock, root_email):
    clock.set_to(datetime(2031, 1, 1, tzinfo=UTC))  # the domain's time, far from the real one
    before = time.time()
    for _ in range(2):
        await client.post(url("v1.1", "/confirmation"), json={"email": root_email})
    mails = await outbox(client)
    dates = [parsedate_to_datetime(m["date"]).timestamp() for m in mails]
    assert all(int(before) <= date <= time.time() for date in dates)  # `Date:` is real time (whole seconds)
    assert all(m["created_at"].startswith("2031-01-01") for m in mails)  # the record keeps the clock's
    assert len({m["message_id"] for m in mails}) == 2 and all(re.fullmatch(r"<[^<>@]+@[^<>@]+>", m["message_id"])
                                                             for m in mails)  # fmt: skip


async def test_a_mails_attachment_is_served_by_its_url_as_its_media_type(client, root_email):
    await provision(client, fax_enabled=True, fax_email="faxes@example.com")
    record = (await fax(client, pages=2))["data"]
    await settled(client)
    (mail,) = await outbox(client, "faxes@example.com")
    (attached,) = mail["attachments"]
    assert set(attached) == {"filename", "media_type", "size", "url"}
    assert attached["url"] == f"/_telephony/outbox/{mail['id']}/attachments/0"
    response = await client.get(attached["url"], headers=CONTROL)
    assert response.status == 200 and response.content_type == "application/pdf"
    body = await response.read()
    assert len(body) == attached["size"] and len(pypdf.PdfReader(io.BytesIO(body)).pages) == 2
    await error_of(await client.get(attached["url"]), 401)
    await client.post(url("v1.1", "/confirmation"), json={"email": root_email})
    (plain,) = await outbox(client, root_email)
    for path in (
        f"/_telephony/outbox/{mail['id']}/attachments/1",
        f"/_telephony/outbox/{plain['id']}/attachments/0",
        "/_telephony/outbox/999999/attachments/0",
        f"/_telephony/outbox/{record['id']}x/attachments/0",
    ):
        await error_of(await client.get(path, headers=CONTROL), 404)


# --- clock -------------------------------------------------------------------------------------


async def test_the_clock_reads_and_moves_forward(client, root):
    response = await client.get("/_telephony/clock", headers=CONTROL)
    before = (await response.json())["data"]
    assert response.status == 200 and WIRE_TIME.match(before["now"])
    response = await client.post("/_telephony/clock", json={"advance": 86400}, headers=CONTROL)
    after = (await response.json())["data"]
    assert response.status == 200 and 86400 <= after["epoch"] - before["epoch"] < 86400 + 60
    assert after["jobs_run"] >= 1  # the login token's expiry timer became due


async def test_the_clock_can_be_set_to_a_later_time(client):
    response = await client.post("/_telephony/clock", json={"set": "2999-01-01 00:00:00"}, headers=CONTROL)
    assert response.status == 200
    assert (await response.json())["data"]["now"].startswith("2999-01-01 00:00:0")


@pytest.mark.parametrize(
    "body, field",
    [
        pytest.param({"advance": -5}, "advance", id="backwards"),
        pytest.param({"set": "2000-01-01 00:00:00"}, "set", id="set-in-the-past"),
        pytest.param({"set": "next tuesday"}, "set", id="set-unreadable"),
        pytest.param({}, None, id="nothing"),
    ],
)
async def test_the_clock_refuses_to_go_back_or_guess(client, body, field):
    error = await error_of(await client.post("/_telephony/clock", json=body, headers=CONTROL), 400)
    assert error["errors"][0]["field"] == field


# --- conflicts ---------------------------------------------------------------------------------------


async def test_a_number_of_a_deleted_customer_can_be_provisioned_again_and_its_stream_goes_on(client):
    customer_id, _ = await create_customer(client, "Gone Ltd", "gone@example.com")
    number = {"e164": "+33612345678"}
    first = await client.post(f"/_telephony/customers/{customer_id}/ddis", json=number, headers=CONTROL)
    assert first.status == 201
    gone = await login(client, "v1.2", "gone@example.com", PASSWORD)
    assert (await client.delete(url("v1.2", f"/customers/{customer_id}"), headers=gone.headers())).status == 204

    again = await client.post(f"/_telephony/customers/{HOME}/ddis", json=number, headers=CONTROL)
    assert again.status == 201 and (await again.json())["data"]["e164"] == "+33612345678"
    created = [e for e in await events(client, "ddi.created") if e.stream == "ddi-+33612345678"]
    assert [(e.version, e.event.customer_id) for e in created] == [(1, customer_id), (2, HOME)]
    twice = await client.post(f"/_telephony/customers/{HOME}/ddis", json=number, headers=CONTROL)
    assert (await error_of(twice, 400))["errors"][0]["field"] == "e164"


async def test_a_number_of_a_deleted_customer_can_be_imported_again_and_its_stream_goes_on(client):
    customer_id, _ = await create_customer(client, "Gone Ltd", "gone@example.com")
    number = {"e164": "+33612345679"}
    assert (await client.post(f"/_telephony/customers/{customer_id}/ddis", json=number, headers=CONTROL)).status == 201
    gone = await login(client, "v1.2", "gone@example.com", PASSWORD)
    assert (await client.delete(url("v1.2", f"/customers/{customer_id}"), headers=gone.headers())).status == 204
    line = {"resource": "ddis", "customer_id": HOME, "data": number}
    assert (await client.post("/_telephony/import", data=json.dumps(line), headers=CONTROL)).status == 200
    created = [e for e in await events(client, "ddi.created") if e.stream == "ddi-+33612345679"]
    assert [(e.version, e.event.customer_id) for e in created] == [(1, customer_id), (2, HOME)]
