"""The SIP listener of its own: `wss://<sip_domain>:443/`, where the platform's clients connect.

With `[sip] host` set, the app serves the SIP-over-WebSocket endpoint at the root path `/` on
`[sip] host` and `port`, with TLS from `[sip] certificate` and `private_key` (PEM files; without
them the listener is plain `ws://`, for a TLS proxy in front). It shares the app's hub, so its
connections are the same as those of `/_telephony/sip`. It starts after the app's services and
stops before them; its sockets close with the hub's at shutdown.
"""

from __future__ import annotations

import contextlib
import ssl
from collections.abc import AsyncIterator

from aiohttp import web

from ..api import middlewares
from ..config import Sip
from ..keys import SIP
from .endpoint import sip_socket
from .hub import SipHub


def tls(settings: Sip) -> ssl.SSLContext | None:
    """The listener's TLS context from the configured certificate and key, or None for plain `ws://`."""
    if not settings.certificate:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(settings.certificate, settings.private_key)
    return context


@contextlib.asynccontextmanager
async def listening(hub: SipHub, settings: Sip) -> AsyncIterator[None]:
    """The listener on `[sip] host:port` while the app runs (nothing when no host is configured)."""
    if not settings.host:
        yield
        return
    app = web.Application(middlewares=[middlewares.frame()])  # the main app's answers to what is not SIP
    app[SIP] = hub
    app.router.add_get("/", sip_socket)
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    try:
        await web.TCPSite(runner, settings.host, settings.port, ssl_context=tls(settings)).start()
        yield
    finally:
        await runner.cleanup()
