"""Configuring webhooks: by name, for root and admin users only, with URLs that answer HTTPS."""

from __future__ import annotations

import time

import trustme

from tests.accounts.helpers import CONTROL, PASSWORD, create_user, error_of, login
from tests.webhooks.receiver import Receiver, start

HOME = 100001
ONLY_ADMINS = "Access denied: only root and admin users may"


async def hook(client, creds, status: int = 201, **body) -> dict:
    response = await client.post("/_telephony/webhooks", json={"name": "crm", "events": ["call.state"], **body},
                                 headers=creds.headers())  # fmt: skip
    answer = await response.json()
    assert response.status == status, answer
    return answer


async def test_a_webhook_is_made_named_changed_rotated_and_deleted(client, root, receiver):
    made = (await hook(client, root, url=receiver.url))["data"]
    assert made["secret"].startswith("whsec_") and (made["name"], made["enabled"]) == ("crm", True)
    listed = await (await client.get("/_telephony/webhooks", headers=root.headers("basic"))).json()
    assert listed["total"] == 1 and "secret" not in listed["data"][0] and "secret_sealed" not in listed["data"][0]
    assert (await hook(client, root, 400, url=receiver.url))["errors"][0]["field"] == "name"
    response = await client.patch("/_telephony/webhooks/crm", json={"events": ["call.missed", "call.hangup"],
                                  "enabled": False}, headers=root.headers())  # fmt: skip
    changed = (await response.json())["data"]
    assert (changed["events"], changed["enabled"]) == (["call.missed", "call.hangup"], False)
    response = await client.post("/_telephony/webhooks/crm/rotate-secret", headers=root.headers())
    rotated = (await response.json())["data"]["secret"]
    assert rotated.startswith("whsec_") and rotated != made["secret"]
    assert (await client.delete("/_telephony/webhooks/crm", headers=root.headers())).status == 204
    await error_of(await client.get("/_telephony/webhooks/crm", headers=root.headers()), 404)


async def test_a_webhook_named_with_many_digits_is_reached_by_its_name(client, root, receiver):
    named = "build-12345678901234567890"  # a name, not a number beyond 64 bits
    await hook(client, root, url=receiver.url, name=named)
    response = await client.get(f"/_telephony/webhooks/{named}", headers=root.headers())
    assert response.status == 200 and (await response.json())["data"]["name"] == named
    assert (await client.delete(f"/_telephony/webhooks/{named}", headers=root.headers())).status == 204


async def test_only_root_and_admin_users_of_the_customer_configure_webhooks(client, root, receiver):
    await hook(client, root, url=receiver.url)
    await create_user(client, HOME, "agent@example.com", roles=["ROLE_AGENT"])
    agent = await login(client, "v1.2", "agent@example.com", PASSWORD)
    await error_of(await client.get("/_telephony/webhooks", headers=agent.headers()), 403)
    await create_user(client, HOME, "admin2@example.com", roles=["ROLE_ADMIN"])
    admin = await login(client, "v1.2", "admin2@example.com", PASSWORD)
    response = await client.get("/_telephony/webhooks/crm", headers=admin.headers())
    assert response.status == 200
    await error_of(await client.get("/_telephony/webhooks"), 401)
    response = await client.post("/_telephony/customers", json={"name": "Other", "admin_email": "o@example.com",
                                 "admin_password": PASSWORD}, headers=CONTROL)  # fmt: skip
    assert response.status == 201
    other = await login(client, "v1.2", "o@example.com", PASSWORD)
    await error_of(await client.get("/_telephony/webhooks/crm", headers=other.headers()), 404)


async def test_a_user_who_may_not_see_webhooks_is_told_so_not_that_it_may_not_change_settings(client, root, receiver):
    await hook(client, root, url=receiver.url)
    for email, role in (("agent@example.com", "ROLE_AGENT"), ("reader@example.com", "ROLE_READ_ONLY")):
        await create_user(client, HOME, email, roles=[role])
        user = await login(client, "v1.2", email, PASSWORD)
        for path in ("/webhooks", "/webhooks/crm", "/webhooks/crm/deliveries", "/calls/1/deliveries"):
            refused = await error_of(await client.get("/_telephony" + path, headers=user.headers()), 403)
            assert refused["message"] == f"{ONLY_ADMINS} see webhooks and their deliveries"
        refused = await error_of(await client.delete("/_telephony/webhooks/crm", headers=user.headers()), 403)
        assert refused["message"] == f"{ONLY_ADMINS} change webhooks"


async def test_urls_must_be_https_answer_and_be_trusted(client, root, receiver, aiohttp_server):
    assert "https" in (await hook(client, root, 400, url="http://127.0.0.1:9/hooks"))["errors"][0]["message"]
    refused = await hook(client, root, 400, url="https://127.0.0.1:9/hooks")
    assert "cannot be connected" in refused["errors"][0]["message"] and refused["errors"][0]["field"] == "url"
    stranger = await start(aiohttp_server, trustme.CA(), Receiver())
    assert "not trusted" in (await hook(client, root, 400, url=stranger.url))["errors"][0]["message"]
    assert (await hook(client, root, 400, url="not a url"))["errors"][0]["field"] == "url"
    await hook(client, root, url=receiver.url)  # its CA is [webhooks] ca_file
    response = await client.patch("/_telephony/webhooks/crm", json={"url": "ftp://example.com/x"},
                                  headers=root.headers())  # fmt: skip
    assert (await error_of(response, 400))["errors"][0]["field"] == "url"


async def test_the_configuration_makes_demo_webhooks_at_start(aiohttp_client, settings, clock, receiver):
    import msgspec

    from telephony.app import create_app
    from telephony.config import ConfiguredWebhook
    from tests.webhooks.conftest import delivered
    from tests.webhooks.receiver import verified
    from tests.webhooks.test_delivery import missed_call

    secret = "whsec_" + "QUJD" * 11
    demo = ConfiguredWebhook(name="demo", url=receiver.url, events=["call.hangup"], secret=secret)
    configured = msgspec.structs.replace(settings, webhooks=msgspec.structs.replace(settings.webhooks, hooks=[demo]))
    client = await aiohttp_client(create_app(configured, clock=clock))
    root = await login(client, "v1.2", "admin@example.com", "change-me-now")
    (made,) = (await (await client.get("/_telephony/webhooks", headers=root.headers())).json())["data"]
    assert (made["name"], made["events"], made["url"]) == ("demo", ["call.hangup"], receiver.url)
    await missed_call(client)
    await delivered(client)
    ((headers, body),) = receiver.got
    assert verified(secret, headers, body, int(time.time()))["event_name"] == "call.hangup"
    await client.close()
    moved = msgspec.structs.replace(demo, events=["call.missed"])
    again = msgspec.structs.replace(settings, webhooks=msgspec.structs.replace(settings.webhooks, hooks=[moved]))
    client = await aiohttp_client(create_app(again, clock=clock))
    root = await login(client, "v1.2", "admin@example.com", "change-me-now")
    (made,) = (await (await client.get("/_telephony/webhooks", headers=root.headers())).json())["data"]
    assert made["events"] == ["call.missed"]  # brought up to date, not made twice
