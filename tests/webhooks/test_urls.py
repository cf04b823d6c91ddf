"""Where webhooks may go: no credentials in URLs, no link-local or metadata address (written out or
behind a name, at save time and at each delivery) unless allowed, and reasons only for loopback."""

from __future__ import annotations

import socket
import ssl

import msgspec
import pytest
import trustme
from aiohttp import web

from telephony.app import create_app
from telephony.eventlog import Metadata
from telephony.keys import EVENT_LOG
from telephony.webhooks.configuration import WebhookCreate, create
from tests.accounts.helpers import login
from tests.webhooks.conftest import delivered
from tests.webhooks.receiver import Receiver, start
from tests.webhooks.test_configuration import hook
from tests.webhooks.test_delivery import missed_call

ADMIN = ("admin@example.com", "change-me-now")
NOT_ALLOWED = "Webhooks may not be sent to this address."
LOCAL = ["127.0.0.0/8", "::1/128"]


def networks(settings, **lists):
    return msgspec.structs.replace(settings, webhooks=msgspec.structs.replace(settings.webhooks, **lists))


async def listed(client, root) -> list[dict]:
    return (await (await client.get("/_telephony/webhooks", headers=root.headers())).json())["data"]


async def test_a_url_holding_a_user_name_or_password_is_refused_and_never_stored(client, root, receiver):
    with_password = receiver.url.replace("https://", "https://crm:hunter2@")
    refused = (await hook(client, root, 400, url=with_password))["errors"][0]
    assert refused == {"field": "url", "message": "A webhook URL must not hold a user name or password."}
    assert (await hook(client, root, 400, url=receiver.url.replace("https://", "https://crm@")))["errors"][0][
        "field"] == "url"  # fmt: skip
    await hook(client, root, url=receiver.url)
    response = await client.patch("/_telephony/webhooks/crm", json={"url": with_password}, headers=root.headers())
    assert response.status == 400
    assert [w["url"] for w in await listed(client, root)] == [receiver.url]


async def test_the_password_of_a_url_saved_before_they_were_refused_is_not_shown(client, root, receiver):
    before = WebhookCreate(name="old", url=receiver.url.replace("https://", "https://crm:hunter2@"),
                           events=["call.state"])  # fmt: skip
    await client.server.app[EVENT_LOG].transact(create(100001, before, "sealed", "2026-01-01 00:00:00"), Metadata())
    (shown,) = await listed(client, root)
    assert shown["url"] == receiver.url.replace("https://", "https://crm:***@")


@pytest.mark.parametrize("url", [
    "https://169.254.169.254/latest/meta-data/",
    "https://[fe80::1]/hooks",
    "https://[fe80::1%25eth0]:8443/hooks",
    "https://[::ffff:169.254.169.254]/hooks",
    "https://[fd00:ec2::254]/hooks",
    "https://0.0.0.0:8443/hooks",
    "https://0xa9fea9fe/hooks",  # a name the resolver reads as 169.254.169.254
])  # fmt: skip
async def test_link_local_and_metadata_addresses_are_refused_written_out_or_behind_a_name(client, root, url):
    refused = (await hook(client, root, 400, url=url))["errors"][0]
    assert refused == {"field": "url", "message": NOT_ALLOWED}


async def test_allow_networks_lets_a_refused_network_through_and_deny_networks_refuses_more(
    aiohttp_client, settings, clock, receiver
):
    denied = await aiohttp_client(create_app(networks(settings, deny_networks=LOCAL), clock=clock))
    root = await login(denied, "v1.2", *ADMIN)
    assert (await hook(denied, root, 400, url=receiver.url))["errors"][0]["message"] == NOT_ALLOWED
    by_name = receiver.url.replace("127.0.0.1", "localhost")
    assert (await hook(denied, root, 400, url=by_name))["errors"][0]["message"] == NOT_ALLOWED
    await denied.close()
    allowed = networks(settings, deny_networks=LOCAL, allow_networks=["127.0.0.1/32", "0.0.0.0/8"])
    client = await aiohttp_client(create_app(allowed, clock=clock))
    root = await login(client, "v1.2", *ADMIN)
    await hook(client, root, url=receiver.url)
    tried = (await hook(client, root, 400, name="any", url="https://0.0.0.0:9/hooks"))["errors"][0]
    assert tried["message"] == "The URL does not answer HTTPS requests."  # allowed: tried, and nobody answers


def own_address() -> str:
    """This machine's address on its way out (no packet is sent), when it has one beside loopback."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.123", 9))
        except OSError:
            pytest.skip("no network interface beside loopback")
        address = probe.getsockname()[0]
    if address.startswith("127."):
        pytest.skip("no network interface beside loopback")
    return address


async def test_the_reason_a_url_does_not_answer_is_said_only_for_a_loopback_receiver(client, root):
    loopback = (await hook(client, root, 400, url="https://127.0.0.1:9/hooks"))["errors"][0]["message"]
    assert loopback == "The URL does not answer HTTPS requests: it cannot be connected to."
    elsewhere = (await hook(client, root, 400, url=f"https://{own_address()}:9/hooks"))["errors"][0]["message"]
    assert elsewhere == "The URL does not answer HTTPS requests."  # nothing said of the server's network


async def test_an_untrusted_certificate_is_said_only_when_a_ca_file_is_configured(aiohttp_client, aiohttp_server,
                                                                                settings, clock):  # fmt: skip
    address, stranger = own_address(), trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    stranger.issue_cert(address).configure_cert(context)
    server = await aiohttp_server(web.Application(), host=address, ssl=context)
    url = f"https://{address}:{server.port}/hooks"
    client = await aiohttp_client(create_app(settings, clock=clock))  # [webhooks] ca_file set: the tests' CA
    said = (await hook(client, await login(client, "v1.2", *ADMIN), 400, url=url))["errors"][0]["message"]
    assert said == "The URL does not answer HTTPS requests: its certificate is not trusted."
    await client.close()
    client = await aiohttp_client(create_app(networks(settings, ca_file=""), clock=clock))
    said = (await hook(client, await login(client, "v1.2", *ADMIN), 400, url=url))["errors"][0]["message"]
    assert said == "The URL does not answer HTTPS requests."


async def test_a_delivery_to_an_address_refused_since_the_webhook_was_saved_is_not_sent(
    aiohttp_client, aiohttp_server, settings, clock, ca
):
    """The networks are checked at each delivery, through the name's addresses then: a name may point
    elsewhere by then, and the configuration may have changed."""
    receiver = await start(aiohttp_server, ca, Receiver())
    client = await aiohttp_client(create_app(settings, clock=clock))
    root = await login(client, "v1.2", *ADMIN)
    await hook(client, root, name="by-address", url=receiver.url, events=["call.hangup"])
    await hook(client, root, name="by-name", url=receiver.url.replace("127.0.0.1", "localhost"),
               events=["call.hangup"])  # fmt: skip
    await client.close()
    client = await aiohttp_client(create_app(networks(settings, deny_networks=LOCAL), clock=clock))
    root = await login(client, "v1.2", *ADMIN)
    await missed_call(client)
    await delivered(client)
    assert receiver.got == []
    for name in ("by-address", "by-name"):
        response = await client.get(f"/_telephony/webhooks/{name}/deliveries", headers=root.headers())
        (delivery,) = (await response.json())["data"]
        assert [a["error"] for a in delivery["history"]] == ["address not allowed"]
