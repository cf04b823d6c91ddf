"""A real HTTPS receiver of webhooks for the tests, and how a receiver verifies a delivery."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import ssl
from dataclasses import dataclass, field

import trustme
from aiohttp import web


def verified(secret: str, headers, body: bytes, now: int, tolerance: int = 300) -> dict:
    """A delivery's body when its Standard Webhooks signature is right and its time recent; else raises."""
    message_id, timestamp = headers["webhook-id"], int(headers["webhook-timestamp"])
    if abs(now - timestamp) > tolerance:
        raise ValueError("too old: a replay?")
    key = base64.b64decode(secret.removeprefix("whsec_"))
    expected = base64.b64encode(hmac.new(key, f"{message_id}.{timestamp}.".encode() + body, hashlib.sha256).digest())
    for signature in headers["webhook-signature"].split():
        version, _, value = signature.partition(",")
        if version == "v1" and hmac.compare_digest(value.encode(), expected):
            return json.loads(body)
    raise ValueError("bad signature")


@dataclass
class Receiver:
    """What the receiver got (headers and body of each POST, in arrival order) and how it answers:
    `failures` answers 500 that many times, then `status`."""

    url: str = ""
    got: list[tuple[dict, bytes]] = field(default_factory=list)
    failures: int = 0
    status: int = 204

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        self.got.append(({k.lower(): v for k, v in request.headers.items()}, body))
        if self.failures > 0:
            self.failures -= 1
            return web.Response(status=500, text="not now")
        return web.Response(status=self.status, text="thanks")

    def bodies(self) -> list[dict]:
        return [json.loads(body) for _, body in self.got]

    def names(self, call_id: int | None = None) -> list[str]:
        return [b["event_name"] for b in self.bodies() if call_id is None or b.get("call_id") == call_id]


def server_context(ca: trustme.CA) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    return context


async def start(aiohttp_server, ca: trustme.CA | None, receiver: Receiver, path: str = "/hooks") -> Receiver:
    app = web.Application()
    app.router.add_post(path, receiver.handle)
    server = await aiohttp_server(app, ssl=server_context(ca) if ca else None)
    receiver.url = f"{'https' if ca else 'http'}://127.0.0.1:{server.port}{path}"
    return receiver
