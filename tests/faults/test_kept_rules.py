"""Fault rules are events: a restart keeps them and their counts, `[faults]` in the configuration
makes and removes its own, and `telephony log` shows them."""

from __future__ import annotations

import msgspec
import pytest

from telephony.app import create_app
from telephony.config import Faults
from telephony.fault_rule import FaultRule
from tests.accounts.helpers import CONTROL, url
from tests.faults.helpers import add_fault, listed_faults
from tests.serving import logged_events

CONFIGURED = FaultRule(method="GET", path="/ping", status=503, count=2)


@pytest.mark.sqlite_only  # the commands on the data dir's SQLite log
async def test_a_restart_keeps_the_rules_and_their_counts(aiohttp_client, settings, clock, tmp_path):
    configured = msgspec.structs.replace(settings, faults=Faults(rules=[CONFIGURED]))
    client = await aiohttp_client(create_app(configured, clock=clock))
    await add_fault(client, webhook="crm", duplicate=True)
    assert (await client.get(url("v1.2", "/ping"))).status == 503
    before = await listed_faults(client)
    await client.close()

    client = await aiohttp_client(create_app(configured, clock=clock))
    assert await listed_faults(client) == before  # the configured rule was not added again
    assert [(f["source"], f["fired"], f["active"]) for f in before] == [("config", 1, True), ("api", 0, True)]
    statuses = [(await client.get(url("v1.1", "/ping"))).status for _ in range(2)]
    assert statuses == [503, 401]  # the rule's second firing, then the request reaches the API (no token: 401)
    verified = await (await client.post("/_telephony/verify", headers=CONTROL)).json()
    assert verified["data"]["problem"] is None and "fault_rules" in verified["data"]["compared"]
    await client.close()

    client = await aiohttp_client(create_app(settings, clock=clock))  # the rule is gone from the configuration
    assert [f["source"] for f in await listed_faults(client)] == ["api"]
    await client.close()
    added = logged_events(settings.data_dir, "--type", "fault.added", cwd=tmp_path)
    assert [(e["data"]["source"], e["data"]["rule"].get("path"), e["data"]["rule"].get("webhook")) for e in added] == [
        ("config", "/ping", None), ("api", None, "crm")]  # fmt: skip
    removed = logged_events(settings.data_dir, "--type", "fault.removed", cwd=tmp_path)
    assert [e["data"]["id"] for e in removed] == [added[0]["data"]["id"]]


async def test_a_configured_rule_removed_through_the_api_comes_back_at_the_next_start(aiohttp_client, settings, clock):
    configured = msgspec.structs.replace(settings, faults=Faults(rules=[CONFIGURED]))
    client = await aiohttp_client(create_app(configured, clock=clock))
    assert (await client.delete("/_telephony/faults", headers=CONTROL)).status == 204
    await client.close()
    client = await aiohttp_client(create_app(configured, clock=clock))
    (again,) = await listed_faults(client)
    assert (again["id"], again["source"], again["fired"]) == (2, "config", 0)
