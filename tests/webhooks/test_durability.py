"""Deliveries survive restarts: a pending one resumes, nothing is sent twice after a clean stop, and a
server killed with SIGKILL in the middle of a POST sends it again with the same webhook-id."""

from __future__ import annotations

import asyncio

import aiohttp
from aiohttp import web

from telephony.app import create_app
from tests.accounts.helpers import login
from tests.calls.helpers import advance
from tests.serving import CONTROL_KEY, SERVICE, Server, logged_events
from tests.serving import login as serving_login
from tests.webhooks.conftest import delivered
from tests.webhooks.receiver import Receiver, server_context, start
from tests.webhooks.test_configuration import hook
from tests.webhooks.test_delivery import missed_call

ADMIN = ("admin@example.com", "change-me-now")
EVERY = ["call.initial", "call.missed", "call.hangup"]


async def test_a_pending_delivery_resumes_after_a_restart_and_nothing_is_sent_twice(aiohttp_client, aiohttp_server,
                                                                                    settings, clock, ca):  # fmt: skip
    receiver = await start(aiohttp_server, ca, Receiver(failures=1))
    client = await aiohttp_client(create_app(settings, clock=clock))
    await hook(client, await login(client, "v1.2", *ADMIN), url=receiver.url)
    await missed_call(client)
    await delivered(client)
    assert receiver.names() == ["call.initial"]  # failed: a retry is due in about 5 s
    await client.close()
    client = await aiohttp_client(create_app(settings, clock=clock))
    await delivered(client)
    assert len(receiver.got) == 1  # not due yet
    await advance(client, 6)
    await delivered(client)
    assert receiver.names() == ["call.initial", *EVERY]
    await client.close()
    client = await aiohttp_client(create_app(settings, clock=clock))
    await advance(client, 100_000)
    await delivered(client)
    assert len(receiver.got) == 4  # every delivery was recorded: nothing is sent again


class Stalling:
    """A receiver whose first request never answers (the server dies meanwhile); later ones do."""

    def __init__(self) -> None:
        self.got: list[tuple[str, str]] = []
        self.first = asyncio.Event()
        self.never = asyncio.Event()
        """Never set: the first request hangs until its connection goes."""

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.got.append((request.headers["webhook-id"], body["event_name"]))
        if len(self.got) == 1:
            self.first.set()
            await self.never.wait()
        return web.Response(status=200)


async def test_a_server_killed_during_a_delivery_sends_it_again_with_the_same_id(tmp_path, aiohttp_server, ca):
    stalling = Stalling()
    app = web.Application()
    app.router.add_post("/hooks", stalling.handle)
    receiver = await aiohttp_server(app, ssl=server_context(ca))
    pem = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(pem))
    server = Server(tmp_path / "data", tmp_path, TELEPHONY_WEBHOOKS_CA_FILE=str(pem))
    await server.start()
    control = {"X-Control-Key": CONTROL_KEY}
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=20)) as session:
            token = await serving_login(session, server.url)
            async with session.post(f"{server.url}/_telephony/webhooks", headers={"X-Auth-Token": token}, json={
                    "name": "crm", "events": ["call.state"],
                    "url": f"https://127.0.0.1:{receiver.port}/hooks"}) as response:  # fmt: skip
                assert response.status == 201, await response.text()
            async with session.post(f"{server.url}/_telephony/customers/100001/ddis", headers=control,
                                    json={"e164": "+442071230000", "target_type": "H"}) as response:  # fmt: skip
                assert response.status == 201
            async with session.post(f"{server.url}/_telephony/simulate/inbound-call", headers=control,
                                    json={"from": "+447700900555", "to": "+442071230000"}) as response:  # fmt: skip
                assert response.status == 201
            await asyncio.wait_for(stalling.first.wait(), 20)
            server.kill()  # in the middle of the first POST
            await server.start()
            for _ in range(200):
                if len(stalling.got) >= 4:
                    break
                await asyncio.sleep(0.05)
    finally:
        server.stop()
    first_id = stalling.got[0][0]
    assert stalling.got[1] == (first_id, "call.initial")  # sent again, as the same message
    assert [name for _, name in stalling.got[1:]] == EVERY
    queued = logged_events(tmp_path / "data", "--type", "webhook.delivery_queued", cwd=tmp_path)
    assert len(queued) == 3  # queued once each on the log: at least once only outside it
    assert SERVICE
