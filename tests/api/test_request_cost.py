"""What a request pays for: one middleware layer around it; the fault rules and the NUL check only
for the requests they apply to; and no timer when it need not wait for the log."""

from __future__ import annotations

import asyncio

import pytest
from yarl import URL

from telephony.api import nul, positions
from telephony.keys import EVENT_LOG

ADMIN = {"email": "admin@example.com", "password": "change-me-now"}
CONTROL = {"X-Control-Key": "test-control-key-0123456789"}
CONTACTS = "/v1.2/voipstudio/contacts"


async def token_headers(client) -> dict[str, str]:
    login = await client.post("/v1.2/voipstudio/login", json=ADMIN)
    return {"X-Auth-Token": (await login.json())["user_token"]}


async def test_every_request_passes_through_one_middleware_layer(client):
    assert len(client.app.middlewares) == 1


async def test_a_request_whose_target_spells_no_nul_is_not_searched_for_one(client, monkeypatch):
    searched = []
    search = nul._in_request
    monkeypatch.setattr(nul, "_in_request", lambda request: searched.append(request.path) or search(request))
    headers = await token_headers(client)
    assert (await client.get(CONTACTS + "?page=1&sort=id", headers=headers)).status == 200
    assert (await client.post(CONTACTS, json={"first_name": "Ann"}, headers=headers)).status == 201
    assert searched == []
    refused = await client.get(URL(CONTACTS + "?sort=a%00", encoded=True), headers=headers)
    assert refused.status == 400 and (await refused.json())["errors"][0]["field"] == "sort"
    assert searched == [CONTACTS]


async def test_a_fault_rule_added_applies_to_the_next_request_and_none_once_it_is_removed(client):
    headers = await token_headers(client)
    rule = {"method": "GET", "path": "/contacts", "status": 503}
    made = await client.post("/_telephony/faults", json=rule, headers=CONTROL)
    assert (await client.get(CONTACTS, headers=headers)).status == 503
    removed = await client.delete(f"/_telephony/faults/{(await made.json())['data']['id']}", headers=CONTROL)
    assert removed.status == 204
    assert (await client.get(CONTACTS, headers=headers)).status == 200


def no_timer(*args, **kwargs):
    raise AssertionError("a timer was set for a request that need not wait")


@pytest.mark.sqlite_only  # a PostgreSQL log is shared: a request reads its head (`catch_up`)
async def test_a_request_on_a_log_that_no_other_process_writes_waits_for_no_timer(client, monkeypatch):
    headers = await token_headers(client)
    monkeypatch.setattr(positions.asyncio, "timeout", no_timer)
    assert (await client.get(CONTACTS, headers=headers)).status == 200
    created = await client.post(CONTACTS, json={"first_name": "Ann"}, headers=headers)
    assert created.status == 201
    reached = {**headers, positions.HEADER: created.headers[positions.HEADER]}
    assert (await client.get(CONTACTS, headers=reached)).status == 200


async def test_a_request_for_a_position_not_reached_yet_still_waits_for_it(client):
    headers = await token_headers(client)
    ahead = client.app[EVENT_LOG].position + 1
    read = asyncio.ensure_future(client.get(CONTACTS, headers={**headers, positions.HEADER: str(ahead)}))
    await asyncio.sleep(0.05)
    assert not read.done()
    assert (await client.post(CONTACTS, json={"first_name": "Ann"}, headers=headers)).status == 201
    assert (await read).status == 200
