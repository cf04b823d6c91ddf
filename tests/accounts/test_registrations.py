"""Users' SIP clients: registered with every new user, added and removed by the operator, counted on the
user (`nb_sip_locations`), recorded as `sip.registered` / `sip.unregistered`, rebuilt at a restart."""

from __future__ import annotations

import json
import re

import msgspec
import pytest

from telephony.accounts import Registrations
from telephony.app import create_app
from telephony.config import Simulator
from telephony.domain.events.base import data_of
from telephony.keys import MEMORY
from tests.accounts.conftest import HOME, ROOT_ID
from tests.accounts.helpers import (
    CONTROL,
    PASSWORD,
    create_customer,
    create_user,
    error_of,
    events,
    login,
    url,
)

WIRE_TIME = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")
DEFAULT_AGENT = "telephony-softphone/1.0"


def clients_path(user_id: int) -> str:
    return f"/_telephony/users/{user_id}/registrations"


async def registrations(client, user_id: int) -> list[dict]:
    response = await client.get(clients_path(user_id), headers=CONTROL)
    body = await response.json()
    assert response.status == 200, body
    assert body["total"] == len(body["data"])
    return body["data"]


async def register(client, user_id: int, **body) -> dict:
    response = await client.post(clients_path(user_id), json=body, headers=CONTROL)
    answer = await response.json()
    assert response.status == 201, answer
    return answer["data"]


async def unregister(client, user_id: int, registration_id: int) -> None:
    response = await client.delete(f"{clients_path(user_id)}/{registration_id}", headers=CONTROL)
    assert response.status == 204, await response.text()


async def locations(client, root, user_id: int) -> int:
    """`nb_sip_locations` as a client of the platform reads it, on the user and in the users' list."""
    response = await client.get(url("v1.2", f"/users/{user_id}"), headers=root.headers())
    one = (await response.json())["data"]["nb_sip_locations"]
    listed = await (await client.get(url("v1.2", "/users"), params={"limit": 5000}, headers=root.headers())).json()
    assert one == next(u["nb_sip_locations"] for u in listed["data"] if u["id"] == user_id)
    return one


def projection(client) -> Registrations:
    return client.server.app[MEMORY][Registrations]


async def verified(client) -> None:
    body = (await (await client.post("/_telephony/verify", headers=CONTROL)).json())["data"]
    assert "registrations" in body["compared"] and body["problem"] is None


# --- defaults at creation ----------------------------------------------------------------------


async def test_a_new_user_starts_with_one_simulated_softphone(client, root_v12):
    body = {"email": "ann@example.com", "password": PASSWORD}
    response = await client.post(f"/_telephony/customers/{HOME}/users", json=body, headers=CONTROL)
    user_id = (await response.json())["data"]["id"]
    assert (await response.json())["data"]["nb_sip_locations"] == 1
    assert await locations(client, root_v12, user_id) == 1
    (registration,) = await registrations(client, user_id)
    assert registration == {"id": 1, "user_id": user_id, "user_agent": DEFAULT_AGENT,
                            "contact": f"sip:{user_id}@198.51.100.1:5060;transport=udp",
                            "registered_at": registration["registered_at"]}  # fmt: skip
    assert WIRE_TIME.match(registration["registered_at"])
    assert projection(client).count(user_id) == 1


async def test_the_default_registrations_are_recorded_with_the_user_in_one_transaction(client):
    user_id = await create_user(client, HOME, "ann@example.com")
    created = next(e for e in await events(client, "user.created") if e.event.id == user_id)
    (registered,) = [e for e in await events(client, "sip.registered") if e.event.user_id == user_id]
    assert (registered.position, registered.stream, registered.version) == (created.position + 1, f"sip-{user_id}", 1)
    assert registered.meta.request_id == created.meta.request_id and registered.recorded_at == created.recorded_at
    assert data_of(registered.event) == {"user_id": user_id, "customer_id": HOME, "registration_id": 1,
                               "user_agent": DEFAULT_AGENT, "contact": f"sip:{user_id}@198.51.100.1:5060;transport=udp",
                               "registered_at": created.event.body.created_at, "locations": 1}  # fmt: skip


async def test_the_bootstrap_root_user_and_a_new_customers_root_user_have_their_softphone(client, root_v12):
    assert await locations(client, root_v12, ROOT_ID) == 1
    customer_id, other_root = await create_customer(client, "B Ltd", "root@b.example")
    assert [r["user_id"] for r in await registrations(client, other_root)] == [other_root]
    other = await login(client, "v1.2", "root@b.example", PASSWORD)
    assert await locations(client, other, other_root) == 1
    registered = [data_of(e.event) for e in await events(client, "sip.registered")]
    assert [(d["user_id"], d["customer_id"]) for d in registered] == [(ROOT_ID, HOME), (other_root, customer_id)]


async def test_with_no_default_registrations_a_new_user_has_none(aiohttp_client, settings, clock):
    settings = msgspec.structs.replace(settings, simulator=Simulator(default_registrations=0))
    client = await aiohttp_client(create_app(settings, clock=clock))
    root = await login(client, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)
    user_id = await create_user(client, HOME, "ann@example.com")
    for who in (ROOT_ID, user_id):
        assert await locations(client, root, who) == 0
        assert await registrations(client, who) == []
    assert await events(client, "sip.registered") == []


async def test_the_operator_may_say_how_many_clients_a_new_user_starts_with(client, root_v12):
    body = {"email": "ann@example.com", "password": PASSWORD, "nb_sip_locations": 3}
    response = await client.post(f"/_telephony/customers/{HOME}/users", json=body, headers=CONTROL)
    created = (await response.json())["data"]
    user_id = created["id"]
    assert response.status == 201 and created["nb_sip_locations"] == 3
    assert await locations(client, root_v12, user_id) == 3
    assert [r["id"] for r in await registrations(client, user_id)] == [1, 2, 3]
    hosts = [r["contact"].split("@")[1].split(":")[0] for r in await registrations(client, user_id)]
    assert hosts == ["198.51.100.1", "198.51.100.2", "198.51.100.3"]
    none = await create_user(client, HOME, "bob@example.com", attributes={"nb_sip_locations": 0})
    assert await locations(client, root_v12, none) == 0


async def test_a_new_user_has_at_most_a_hundred_clients(client):
    body = {"email": "ann@example.com", "password": PASSWORD, "nb_sip_locations": 101}
    error = await error_of(await client.post(f"/_telephony/customers/{HOME}/users", json=body, headers=CONTROL), 400)
    assert error["errors"][0]["field"] == "nb_sip_locations"


# --- registering and unregistering ----------------------------------------------------------------


async def test_clients_come_and_go_on_the_user_the_list_and_the_projection(client, root_v12):
    user_id = await create_user(client, HOME, "ann@example.com")
    await locations(client, root_v12, user_id)  # the users' page is cached now
    added = await register(client, user_id, user_agent="Zoiper rv2.10", contact="sips:ann@192.0.2.7:5061")
    assert added["id"] == 2 and added["user_id"] == user_id and WIRE_TIME.match(added["registered_at"])
    assert (added["user_agent"], added["contact"]) == ("Zoiper rv2.10", "sips:ann@192.0.2.7:5061")
    assert await locations(client, root_v12, user_id) == 2
    assert [r["id"] for r in await registrations(client, user_id)] == [1, 2]
    assert (await registrations(client, user_id))[1] == added
    assert projection(client).count(user_id) == 2
    assert [r.registration_id for r in projection(client).of(user_id)] == [1, 2]

    await unregister(client, user_id, 1)
    assert await locations(client, root_v12, user_id) == 1
    await unregister(client, user_id, 2)
    assert await locations(client, root_v12, user_id) == 0
    assert await registrations(client, user_id) == []
    assert projection(client).count(user_id) == 0 and projection(client).of(user_id) == []
    again = await register(client, user_id)
    assert again["id"] == 3 and again["contact"] == f"sip:{user_id}@198.51.100.3:5060;transport=udp"
    await verified(client)


async def test_the_changes_are_events_with_the_count_they_leave(client):
    user_id = await create_user(client, HOME, "ann@example.com")
    await register(client, user_id, user_agent="desk/1", contact="sip:ann@192.0.2.9")
    await unregister(client, user_id, 1)
    (_, added) = [e for e in await events(client, "sip.registered") if e.event.user_id == user_id]
    assert added.stream == f"sip-{user_id}" and added.meta.request_id
    fields = ("registration_id", "user_agent", "contact", "locations", "customer_id")
    assert {k: data_of(added.event)[k] for k in fields} == {
        "registration_id": 2, "user_agent": "desk/1", "contact": "sip:ann@192.0.2.9", "locations": 2,
        "customer_id": HOME}  # fmt: skip
    (removed,) = await events(client, "sip.unregistered")
    assert (removed.stream, data_of(removed.event)) == (
        f"sip-{user_id}",
        {"user_id": user_id, "customer_id": HOME, "registration_id": 1, "locations": 1},
    )


SIP_URI = "Expected a SIP URI: sip: or sips: and an address without spaces"


@pytest.mark.parametrize(
    "body, field, said",
    [
        pytest.param({"contact": "http://192.0.2.1"}, "contact", SIP_URI, id="not-sip"),
        pytest.param({"contact": "sip:ann @192.0.2.1"}, "contact", SIP_URI, id="space"),
        pytest.param({"contact": "sip:"}, "contact", SIP_URI, id="no-address"),
        pytest.param({"contact": "sip:" + "a" * 252}, "contact", "at most 255 characters", id="too-long"),
        pytest.param({"contact": 5060}, "contact", "Expected a string or null", id="not-a-string"),
        pytest.param({"user_agent": ""}, "user_agent", "at least 1 character", id="empty-agent"),
        pytest.param({"user_agent": "x" * 256}, "user_agent", "at most 255 characters", id="long-agent"),
    ],
)
async def test_a_bad_client_is_a_400_naming_its_field_and_changes_nothing(client, body, field, said):
    error = await error_of(await client.post(clients_path(ROOT_ID), json=body, headers=CONTROL), 400)
    assert error["errors"][0]["field"] == field and said in error["message"]
    assert len(await registrations(client, ROOT_ID)) == 1


async def test_unknown_users_and_registrations_are_404(client):
    for method, path in [("GET", clients_path(9_999_999)), ("POST", clients_path(9_999_999)),
                         ("DELETE", f"{clients_path(9_999_999)}/1"), ("DELETE", f"{clients_path(ROOT_ID)}/2"),
                         ("DELETE", f"{clients_path(ROOT_ID)}/{2**70}")]:  # fmt: skip
        error = await error_of(await client.request(method, path, json={}, headers=CONTROL), 404)
        assert "not found" in error["message"]
    await unregister(client, ROOT_ID, 1)
    await error_of(await client.delete(f"{clients_path(ROOT_ID)}/1", headers=CONTROL), 404)


async def test_a_deleted_user_and_the_users_of_a_deleted_customer_are_forgotten(client, root_v12):
    user_id = await create_user(client, HOME, "ann@example.com")
    response = await client.delete(url("v1.2", f"/users/{user_id}"), headers=root_v12.headers())
    assert response.status == 204
    assert projection(client).count(user_id) == 0
    for method, path in [("GET", clients_path(user_id)), ("POST", clients_path(user_id)),
                         ("DELETE", f"{clients_path(user_id)}/1")]:  # fmt: skip
        await error_of(await client.request(method, path, json={}, headers=CONTROL), 404)

    customer_id, other_root = await create_customer(client, "B Ltd", "root@b.example")
    other = await login(client, "v1.2", "root@b.example", PASSWORD)
    await register(client, other_root)
    assert projection(client).count(other_root) == 2
    assert (await client.delete(url("v1.2", f"/customers/{customer_id}"), headers=other.headers())).status == 204
    assert projection(client).count(other_root) == 0
    await error_of(await client.post(clients_path(other_root), json={}, headers=CONTROL), 404)
    assert projection(client).count(ROOT_ID) == 1
    await verified(client)


# --- rebuilt from the log -----------------------------------------------------------------------


async def test_a_restart_rebuilds_the_same_registrations(aiohttp_client, settings, clock):
    first = await aiohttp_client(create_app(settings, clock=clock))
    ann = await create_user(first, HOME, "ann@example.com", nb_sip_locations=2)
    bob = await create_user(first, HOME, "bob@example.com")
    await register(first, ann, user_agent="desk/1")
    await unregister(first, ann, 1)
    await unregister(first, bob, 1)
    before = projection(first).state()
    listed = {u: await registrations(first, u) for u in (ROOT_ID, ann, bob)}
    await first.close()

    second = await aiohttp_client(create_app(settings, clock=clock))
    assert projection(second).state() == before
    assert {u: await registrations(second, u) for u in (ROOT_ID, ann, bob)} == listed
    assert [r["id"] for r in listed[ann]] == [2, 3] and listed[bob] == []
    await verified(second)
    assert (await register(second, ann))["id"] == 4


async def test_an_imported_user_registers_as_many_clients_as_its_import_says(client, root_v12):
    users = [{"id": 1_500_000 + n, "email": f"u{n}@example.com", "nb_sip_locations": n} for n in (0, 2)]
    lines = [json.dumps({"resource": "users", "customer_id": HOME, "data": user}) for user in users]
    assert (await client.post("/_telephony/import", data="\n".join(lines), headers=CONTROL)).status == 200
    for user in users:
        assert await locations(client, root_v12, user["id"]) == user["nb_sip_locations"]
        assert len(await registrations(client, user["id"])) == user["nb_sip_locations"]
    await verified(client)
