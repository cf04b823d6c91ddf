"""An aiohttp application served from a thread of its own, for synchronous callers: the embedded
server, a test suite's webhook receiver."""

from __future__ import annotations

import asyncio
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from aiohttp import web


@contextmanager
def running(app: web.Application, host: str = "127.0.0.1", context: ssl.SSLContext | None = None,
            name: str = "telephony-embedded") -> Iterator[tuple[str, int]]:  # fmt: skip
    """Serve `app` on `host` at a free port (over TLS with `context`) while the block runs; yields the
    host and port it is bound to. On leaving, the app's cleanup runs to its end, then the thread stops."""
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app)
    loop.run_until_complete(runner.setup())
    loop.run_until_complete(web.TCPSite(runner, host, 0, ssl_context=context).start())
    bound_host, port = runner.addresses[0][:2]
    thread = threading.Thread(target=loop.run_forever, name=name, daemon=True)
    thread.start()
    try:
        yield bound_host, port
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(timeout=60)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()
