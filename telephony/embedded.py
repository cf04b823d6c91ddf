"""The server in a thread of its own, for programs that drive it over HTTP from synchronous code
(the schemathesis tests, the fuzz script, an integrator's test suite)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from aiohttp import web

from .app import create_app
from .clock import Clock
from .config import Settings


@contextmanager
def serving(settings: Settings, host: str = "127.0.0.1", clock: Clock | None = None) -> Iterator[str]:
    """Run the app on `host` at a free port while the block runs, on `clock` (real time by default);
    yields its base URL."""
    app = create_app(settings, clock=clock)
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app)
    loop.run_until_complete(runner.setup())
    loop.run_until_complete(web.TCPSite(runner, host, 0).start())
    bound_host, port = runner.addresses[0][:2]
    thread = threading.Thread(target=loop.run_forever, name="telephony-embedded", daemon=True)
    thread.start()
    try:
        yield f"http://{bound_host}:{port}"
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(timeout=60)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()
