"""REGISTER over the WebSocket: a browser softphone is a registration of its user, as the simulated
ones are, until its expiry, an un-REGISTER or its socket's close."""

from __future__ import annotations

import asyncio

from tests.accounts.helpers import CONTROL
from tests.calls.helpers import advance, get
from tests.sip.agent import Agent, connected

UA = "SIP.js/0.21.2"


async def registrations(client, user_id) -> list[dict]:
    response = await client.get(f"/_telephony/users/{user_id}/registrations", headers=CONTROL)
    assert response.status == 200
    return (await response.json())["data"]


async def register(agent: Agent, expires: int = 600, to: str | None = None):
    agent.user_agent = UA
    return await agent.authenticated("REGISTER", to or agent.user, extra=f"Expires: {expires}\r\n")


async def test_a_register_makes_a_registration_of_the_user_with_its_agent_and_contact(client, root):
    before = await registrations(client, root.user_id)
    agent = await connected(client, root)
    answer = await register(agent)
    assert answer.code == 200 and f"<sip:{agent.user}@{agent.host};transport=ws>" in answer.headers["Contact"]
    after = await registrations(client, root.user_id)
    assert len(after) == len(before) + 1
    assert (after[-1]["user_agent"], after[-1]["contact"]) == (UA, f"sip:{agent.user}@{agent.host};transport=ws")
    user = (await get(client, root, f"/users/{root.user_id}"))["data"]
    assert user["nb_sip_locations"] == len(after)


async def test_a_register_with_expires_0_ends_the_registration(client, root):
    before = await registrations(client, root.user_id)
    agent = await connected(client, root)
    await register(agent)
    assert (await register(agent, expires=0)).code == 200
    assert await registrations(client, root.user_id) == before


async def test_a_registration_ends_at_its_expiry_and_a_refresh_records_nothing(client, root):
    before = await registrations(client, root.user_id)
    agent = await connected(client, root)
    await register(agent, expires=120)
    await advance(client, 100)
    await register(agent, expires=120)
    assert len(await registrations(client, root.user_id)) == len(before) + 1
    await advance(client, 100)
    assert len(await registrations(client, root.user_id)) == len(before) + 1
    await advance(client, 30)
    assert await registrations(client, root.user_id) == before


async def test_a_registration_ends_when_its_socket_closes(client, root):
    before = await registrations(client, root.user_id)
    agent = await connected(client, root)
    await register(agent)
    await agent.ws.close()
    for _ in range(100):  # the server learns of the close when the frame arrives
        if await registrations(client, root.user_id) == before:
            break
        await asyncio.sleep(0.02)
    assert await registrations(client, root.user_id) == before


async def test_a_user_registers_only_itself(client, root):
    agent = await connected(client, root)
    assert (await register(agent, to="1000999")).code == 403


async def test_a_register_whose_user_agent_holds_a_nul_is_recorded_as_sent_on_both_stores(client, root):
    agent = await connected(client, root)
    agent.user_agent = "SIP.js\x00"
    answer = await agent.authenticated("REGISTER", agent.user, extra="Expires: 600\r\n")
    assert answer.code == 200
    assert (await registrations(client, root.user_id))[-1]["user_agent"] == "SIP.js\x00"
