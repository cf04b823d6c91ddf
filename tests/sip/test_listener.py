"""SIP's listener of its own: `wss://` at the root path on `[sip] host` and `port` with the configured
certificate (a `trustme` CA's), serving the same endpoint as `/_telephony/sip`, started and stopped
with the app."""

from __future__ import annotations

import socket
import ssl

import aiohttp
import msgspec
import pytest
import trustme

from telephony.app import create_app
from telephony.config import Sip
from tests.sip.agent import Agent, me


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def settings(settings, ca, tmp_path):
    served = ca.issue_cert("127.0.0.1", "localhost")
    certificate, key = tmp_path / "sip.pem", tmp_path / "sip.key"
    served.cert_chain_pems[0].write_to_path(str(certificate))
    served.private_key_pem.write_to_path(str(key))
    sip = Sip(host="127.0.0.1", port=free_port(), certificate=str(certificate), private_key=str(key))
    return msgspec.structs.replace(settings, sip=sip)


async def test_a_client_connects_over_wss_at_the_root_and_subscribes(client, root, settings, ca):
    trusted = ssl.create_default_context()
    ca.configure_trust(trusted)
    mine = await me(client, root)
    async with aiohttp.ClientSession() as session:
        url = f"wss://127.0.0.1:{settings.sip.port}/"
        async with session.ws_connect(url, protocols=("sip",), ssl=trusted) as ws:
            assert ws.protocol == "sip"
            agent = Agent(ws, str(mine["id"]), mine["sip_domain"], mine["sip_password"])  # type: ignore[arg-type]
            assert (await agent.subscribe(agent.user)).code == 200
            assert 'state="full"' in (await agent.notify()).body.decode()


async def test_the_listener_refuses_a_client_that_does_not_trust_its_certificate(client, settings):
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.ClientConnectorCertificateError):
            await session.ws_connect(f"wss://127.0.0.1:{settings.sip.port}/", protocols=("sip",))


async def test_the_listener_stops_with_the_app(aiohttp_client, settings, clock):
    app = create_app(settings, clock=clock)
    served = await aiohttp_client(app)
    with socket.create_connection(("127.0.0.1", settings.sip.port), timeout=5):
        pass
    await served.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", settings.sip.port), timeout=5).close()


@pytest.mark.parametrize("path", ["/", "/elsewhere"])
async def test_a_request_that_is_not_sip_is_answered_as_on_the_main_listener(client, settings, ca, path):
    """Not a WebSocket upgrade: the same 400 naming why as `/_telephony/sip`; an unknown path, the same 404."""
    trusted = ssl.create_default_context()
    ca.configure_trust(trusted)
    url = f"https://127.0.0.1:{settings.sip.port}{path}"
    async with aiohttp.ClientSession() as session, session.get(url, ssl=trusted) as answer:
        status, body = answer.status, await answer.json()
    main = await client.get("/_telephony/sip" if path == "/" else "/_telephony/elsewhere")
    assert (status, body) == (main.status, await main.json())
    assert status == (400 if path == "/" else 404) and body["errors"][0]["message"]
