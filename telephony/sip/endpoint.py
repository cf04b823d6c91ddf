"""The SIP-over-WebSocket endpoint (RFC 7118): `GET /_telephony/sip` upgraded with subprotocol `sip`.

Each text or binary frame is one SIP message, answered on the same socket. A frame over 64 KiB is
answered 513 (up to `MAX_FRAME_BYTES`, past which the socket closes as RFC 6455 says). A request
without the upgrade or without the `sip` subprotocol is a 400 with the platform's error body.

A socket a browser opened (its upgrade names an `Origin`, as a browser's always does, RFC 6455
§4.1) can carry WebRTC audio: its calls' media is offered on the address the browser reached the
server at. Other programs' sockets (a script, a server-side connector) get INVITEs with no media.
"""

from __future__ import annotations

from aiohttp import WSMsgType, hdrs, web

from ..api.control import control_route, control_shape
from ..api.errors import BadRequest
from ..keys import SIP
from .connection import Connection
from .registrar import Registrar
from .subscriptions import Subscriptions

SUBPROTOCOL = "sip"
MAX_FRAME_BYTES = 1024 * 1024


async def sip_socket(request: web.Request) -> web.StreamResponse:
    ws = web.WebSocketResponse(protocols=(SUBPROTOCOL,), max_msg_size=MAX_FRAME_BYTES, autoping=True)
    ready = ws.can_prepare(request)
    if not ready.ok or ready.protocol != SUBPROTOCOL:
        raise BadRequest.field(None, "Expected a WebSocket upgrade offering the subprotocol sip (RFC 7118)")
    await ws.prepare(request)
    hub = request.app[SIP]
    connection = Connection(hub, ws, request.remote or "")
    connection.media_host = media_host(request)
    connection.subscriptions = Subscriptions(connection)
    connection.registrar = Registrar(connection, hub.register_client, hub.unregister_client)
    hub.connections.add(connection)
    try:
        async for frame in ws:
            if frame.type is WSMsgType.TEXT:
                await connection.received(frame.data.encode("utf-8"))
            elif frame.type is WSMsgType.BINARY:
                await connection.received(frame.data)
    finally:
        await connection.closed()
    return ws


def media_host(request: web.Request) -> str | None:
    """The address a browser's socket reached the server at (where its calls' media is), else None."""
    if hdrs.ORIGIN not in request.headers or request.transport is None:
        return None
    local = request.transport.get_extra_info("sockname")
    return str(local[0]) if local else None


ROUTES = [
    control_route("GET", "/sip", sip_socket, control_shape(
        envelope="file", media="application/sip", status=101, errors=(400,)),
        open_=True),
]  # fmt: skip
