"""The application factory: `create_app(settings)` for `serve`, embedding and tests."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import aiosqlite
from aiohttp import web

from . import control_key, wiring
from .api import cors, middlewares
from .api.control import require_control_key
from .api.routing import mount, mount_control
from .clock import Clock
from .config import Settings
from .eventlog import EventLog
from .keys import CLOCK, CONTROL_KEY_DIGEST, EVENT_LOG, READER, SETTINGS

log = logging.getLogger(__name__)


def create_app(settings: Settings, *, clock: Clock | None = None, progress: bool = False) -> web.Application:
    """Build the app; the event log opens on startup and closes (after in-flight appends) on cleanup."""
    app = web.Application(
        middlewares=[middlewares.request_ids, middlewares.errors],
        client_max_size=settings.server.max_body_bytes,
    )
    app[SETTINGS] = settings
    app[CLOCK] = clock or Clock()
    app[CONTROL_KEY_DIGEST] = control_key.ensure(settings.data_dir, settings.control.key)
    app.cleanup_ctx.append(_event_log(progress))
    app.cleanup_ctx.append(_reader)
    mount(app, wiring.api_routes(), settings.api.service)
    mount_control(app, wiring.control_routes(), require_control_key)
    cors.enable(app, settings.cors.allowed_origins)
    return app


def _event_log(progress: bool):
    async def ctx(app: web.Application) -> AsyncIterator[None]:
        settings = app[SETTINGS]
        app[EVENT_LOG] = await EventLog.open(
            settings.data_dir,
            wiring.projection_set(),
            app[CLOCK],
            synchronous=settings.eventlog.synchronous,
            max_batch=settings.eventlog.max_batch,
            progress=progress,
        )
        yield
        await app[EVENT_LOG].close()

    return ctx


async def _reader(app: web.Application) -> AsyncIterator[None]:
    """A read-only connection for GET handlers; WAL lets it read while the writer commits."""
    path = app[EVENT_LOG].path
    reader = await aiosqlite.connect(f"file:{path}?mode=ro", uri=True)
    await reader.execute("PRAGMA query_only=1")
    app[READER] = reader
    yield
    await reader.close()
