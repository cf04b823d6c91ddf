"""Generated and mutated SIP messages (hypothesis) sent to a running server over real WebSockets: every
answer is a SIP message, the server stays up, and no NOTIFY shows another customer's call."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator

import aiohttp
import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sipmessage import Request

from telephony.config import Control, EventLogSettings, Settings, Simulator, Storage
from telephony.embedded import serving
from telephony.sip.codec import parse
from tests.accounts.helpers import CONTROL, PASSWORD, url
from tests.conftest import CONTROL_KEY
from tests.sip.agent import PATH, Agent

SETTINGS_SIM = Simulator(seed=3, no_answer_seconds=3600.0, answer_rate=0.0, busy_rate=0.0)


@pytest.fixture(scope="module")
def server(tmp_path_factory, module_eventlog_url) -> Iterator[dict]:
    """A server with a second customer whose call rings all along, and the bootstrap root's credentials."""
    data = tmp_path_factory.mktemp("fuzz") / "data"
    config = Settings(storage=Storage(data_dir=str(data)), control=Control(key=CONTROL_KEY), simulator=SETTINGS_SIM,
                      eventlog=EventLogSettings(url=module_eventlog_url))  # fmt: skip
    with serving(config) as base:
        made = requests.post(
            f"{base}/_telephony/customers",
            headers=CONTROL,
            timeout=10,
            json={"name": "Other", "admin_email": "o@other.test", "admin_password": PASSWORD},
        ).json()
        other = made["data"]["user"]["id"]
        token = requests.post(
            f"{base}{url('v1.2', '/login')}", timeout=10, json={"email": "o@other.test", "password": PASSWORD}
        ).json()["user_token"]
        placed = requests.post(f"{base}{url('v1.2', '/calls')}", headers={"X-Auth-Token": token}, timeout=10,
                               json={"to": "+447000999001"}).json()  # fmt: skip
        mine = requests.post(f"{base}{url('v1.2', '/login')}", timeout=10, json={
            "email": config.bootstrap.admin_email, "password": config.bootstrap.admin_password}).json()  # fmt: skip
        me = requests.get(f"{base}{url('v1.2', '/me')}", headers={"X-Auth-Token": mine["user_token"]},
                          timeout=10).json()["data"]  # fmt: skip
        yield {"base": base, "other": other, "call": placed["data"]["id"], "me": me}


nodes = st.sampled_from(["{me}", "{other}", "queue-1", "ivr-1", "conf-1", "{me}x", "*", ""])
mutations = st.lists(st.tuples(st.integers(0, 2000), st.binary(max_size=8)), max_size=3)


def mutated(text: str, changes: list[tuple[int, bytes]]) -> bytes:
    data = bytearray(text.encode())
    for at, inserted in changes:
        data[at % (len(data) + 1) : at % (len(data) + 1) + len(inserted) // 2] = inserted
    return bytes(data)


async def exchange(server: dict, messages: list[tuple[str, list[tuple[int, bytes]]]]) -> list[str]:
    """Authenticate a dialog subscription of the user's own, send the messages (with digest credentials
    of one nonce, so those left whole are authenticated), then an OPTIONS whose answer ends what is
    read: every frame the server sent."""
    me = server["me"]
    async with aiohttp.ClientSession() as session, session.ws_connect(server["base"] + PATH, protocols=("sip",)) as ws:
        agent = Agent(ws, str(me["id"]), me["sip_domain"], me["sip_password"])  # type: ignore[arg-type]
        assert (await agent.subscribe(agent.user)).code == 200
        await agent.notify()
        await agent.send(agent.request("SUBSCRIBE", agent.user, extra="Event: dialog\r\n"))
        challenge = await agent.response()
        for count, (node, changes) in enumerate(messages, start=1):
            node = node.format(me=me["id"], other=server["other"])
            credentials = agent.credentials(challenge, "SUBSCRIBE", node, nc=count)
            text = agent.request("SUBSCRIBE", node, extra="Event: dialog\r\nExpires: 60\r\n" + credentials)
            await agent.send(mutated(text, changes))
        marker = secrets.token_hex(8)
        await agent.send(agent.request("OPTIONS", agent.user, call_id=marker))
        frames = []
        while marker not in (frame := await agent.text()) or not frame.startswith("SIP/2.0 200"):
            frames.append(frame)
        return frames


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(nodes, mutations), min_size=1, max_size=4))
def test_generated_and_mutated_messages_get_sip_answers_and_never_another_customers_dialog(server, messages):
    frames = asyncio.run(exchange(server, messages))
    for frame in frames:
        if frame.startswith("SIP/2.0 400 ") or frame.startswith("SIP/2.0 513 "):
            continue  # the answer to what did not parse copies what it could read
        message = parse(frame.encode())
        if isinstance(message, Request):
            assert message.method == "NOTIFY" and f'id="{server["call"]}-' not in message.body.decode()
    assert requests.get(server["base"] + "/_telephony/health", timeout=10).status_code == 200


def test_an_authenticated_subscription_to_another_customers_user_is_refused(server):
    frames = asyncio.run(exchange(server, [("{other}", [])]))
    assert [frame.split("\r\n")[0] for frame in frames if not frame.startswith("NOTIFY")] == ["SIP/2.0 403 Forbidden"]
