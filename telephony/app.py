"""The application factory: `create_app(settings)` for `serve`, embedding and tests."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence

from aiohttp import web

from . import control_key, datadir, openapi, wiring
from .accounts.auth import authenticate
from .accounts.service import Accounts, open_sealer
from .accounts.sessions import SessionIndex
from .api import cors, middlewares
from .api.control import require_control_key
from .api.routing import mount, mount_control
from .clock import Clock
from .collections.cache import PageCache
from .config import Settings
from .documents.connections import Reader
from .eventlog import EventLog
from .keys import (
    ACCOUNTS,
    AUTHENTICATE,
    CLOCK,
    CONTROL_KEY_DIGEST,
    EVENT_LOG,
    MEMORY,
    OPENAPI,
    PAGE_CACHE,
    REACTORS,
    READER,
    REFERENCES,
    SCHEDULER,
    SEALER,
    SETTINGS,
    WEBHOOKS,
)
from .mail import Mailer
from .projections import snapshots
from .projections.clock import ClockOffset
from .projections.memory import MemoryProjections
from .reactors.reactor import Reactor, runners
from .reactors.scheduler import Scheduler

log = logging.getLogger(__name__)
MAX_REQUEST_LINE = 256 * 1024
"""Long enough for any filter the collection engine accepts (64 KiB, even fully URL-encoded)."""
MAX_HEADER = 16 * 1024


def create_app(settings: Settings, *, clock: Clock | None = None, progress: bool = False,
               reactors: Sequence[Reactor] = ()) -> web.Application:  # fmt: skip
    """Build the app; resources open on startup in order and close in reverse on cleanup. `reactors`
    run beside the app's own (a test's, an embedding program's)."""
    app = web.Application(
        middlewares=[middlewares.frame(options=cors.plain_options)],
        client_max_size=settings.server.max_body_bytes,
        handler_args={"max_line_size": MAX_REQUEST_LINE, "max_field_size": MAX_HEADER},
    )
    app[SETTINGS] = settings
    app[CLOCK] = clock or Clock()
    app[AUTHENTICATE] = authenticate
    app[REFERENCES] = wiring.references()
    app[SCHEDULER] = Scheduler(app[CLOCK])
    app.cleanup_ctx.extend([_event_log(progress), _reader, _accounts, _scheduler, _webhooks, _reactors(reactors)])
    api_routes = wiring.api_routes()
    mount(app, api_routes, settings.api.service)
    control_routes = wiring.control_routes()
    app[OPENAPI] = openapi.Document(api_routes, settings.api.service, control_routes)
    mount_control(app, control_routes, require_control_key)
    cors.enable(app, settings.cors.allowed_origins)
    return app


def _event_log(progress: bool):
    async def ctx(app: web.Application) -> AsyncIterator[None]:
        settings = app[SETTINGS]
        with datadir.exclusive(settings.data_dir):
            projections = wiring.projection_set()
            event_log = await EventLog.open(
                settings.data_dir,
                projections,
                app[CLOCK],
                synchronous=settings.eventlog.synchronous,
                max_batch=settings.eventlog.max_batch,
                progress=progress,
            )
            try:  # the keys the log was written with, before anything is made (a new control key shown)
                app[SEALER] = await open_sealer(settings.data_dir, event_log)
                app[CONTROL_KEY_DIGEST] = control_key.ensure(settings.data_dir, settings.control.key)
            except BaseException:
                await event_log.close()
                raise
            memory = MemoryProjections(wiring.memory_projections(settings))
            kept = await event_log.query(lambda conn: snapshots.load(conn, memory.kept))
            restored = snapshots.restore(memory, kept)
            await memory.attach(event_log, restored)
            event_log.follow_commits("in-memory projections", memory.follow)
            keeper = snapshots.Keeper(memory, event_log.query, restored)
            event_log.follow_commits("snapshots", keeper.follow)
            moved = memory[ClockOffset]
            if moved.epoch:
                app[CLOCK].restore(moved.offset, moved.epoch)
            app[EVENT_LOG], app[MEMORY] = event_log, memory
            yield
            await keeper.close()
            await event_log.close()

    return ctx


async def _reader(app: web.Application) -> AsyncIterator[None]:
    """A read-only connection for GET handlers; WAL lets it read while the writer commits."""
    reader = await Reader.open(app[EVENT_LOG].path, app[SETTINGS].api.inline_read_steps)
    app[READER] = reader
    app[PAGE_CACHE] = app[MEMORY][PageCache]
    yield
    await reader.close()


async def _accounts(app: web.Application) -> AsyncIterator[None]:
    settings, event_log, clock = app[SETTINGS], app[EVENT_LOG], app[CLOCK]
    sealer = app[SEALER]
    index = app[MEMORY][SessionIndex]
    mailer = Mailer(settings.mail, event_log, sealer, clock)
    app[ACCOUNTS] = Accounts(settings, event_log, app[READER], clock, sealer, index, mailer, app[SCHEDULER])
    await app[ACCOUNTS].bootstrap()
    yield


async def _scheduler(app: web.Application) -> AsyncIterator[None]:
    """Timers run once everything they use is open; their owners added them, or derive them now."""
    starts = wiring.timer_owners(app)
    app[SCHEDULER].start()
    for start in starts:
        await start()
    yield
    await app[SCHEDULER].stop()


async def _webhooks(app: web.Application) -> AsyncIterator[None]:
    """The webhooks' sender (its pending deliveries' timers derived), and the webhooks the configuration
    makes; at the end, the POSTs under way are finished and recorded."""
    app[WEBHOOKS] = wiring.webhooks_service(app)
    await app[WEBHOOKS].configure(await app[ACCOUNTS].first_customer())
    yield
    await app[WEBHOOKS].stop()


def _reactors(extra: Sequence[Reactor]):
    async def ctx(app: web.Application) -> AsyncIterator[None]:
        """Every reactor's task, owned by the app: started after everything they use, stopped first."""
        reactors = runners([*wiring.reactors(app), *extra], app[EVENT_LOG], app[CLOCK])
        app[REACTORS] = reactors
        reactors.start()
        yield
        await reactors.stop()

    return ctx
