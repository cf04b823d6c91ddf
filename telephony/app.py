"""The application factory: `create_app(settings)` for `serve`, embedding and tests."""

from __future__ import annotations

from collections.abc import Sequence

from aiohttp import web

from . import faults, openapi, wiring
from .accounts.auth import authenticate
from .api import cors, middlewares, nul
from .api.control import require_control_key
from .api.route_table import mount, mount_control
from .clock import Clock
from .config import Settings
from .keys import AUTHENTICATE, CLOCK, ENTROPY, OPENAPI, REFERENCES, SETTINGS
from .reactors.reactor import Reactor
from .security import Entropy

MAX_REQUEST_LINE = 256 * 1024
"""Long enough for any filter the collection engine accepts (64 KiB, even fully URL-encoded)."""
MAX_HEADER = 16 * 1024


def create_app(settings: Settings, *, clock: Clock | None = None, progress: bool = False,
               reactors: Sequence[Reactor] = (), entropy: Entropy | None = None) -> web.Application:  # fmt: skip
    """Build the app for `settings` on `clock` (real time by default). Its resources open on startup
    in the order `wiring.resources` lists them and close in reverse on cleanup; `reactors` run beside
    the app's own (a test's, an embedding program's). Secrets draw from `entropy` (the system's by
    default; a seeded one with a reproducible clock makes a reproducible run)."""
    app = web.Application(
        middlewares=[
            middlewares.frame(
                options=cors.plain_options,
                within=[
                    faults.api_faults(settings.api.service),  # while a fault rule is for API requests
                    nul.refusing_nul(bodies=bool(settings.eventlog.url)),  # PostgreSQL's text cannot hold a NUL
                ],
            )
        ],
        client_max_size=settings.server.max_body_bytes,
        handler_args={"max_line_size": MAX_REQUEST_LINE, "max_field_size": MAX_HEADER},
    )
    app[SETTINGS] = settings
    app[CLOCK] = clock or Clock()
    app[ENTROPY] = entropy or Entropy()
    app[AUTHENTICATE] = authenticate
    app[REFERENCES] = wiring.references()
    app.cleanup_ctx.extend(wiring.resources(progress, reactors))
    app.on_shutdown.append(wiring.end_streams)
    api_routes, control_routes = wiring.api_routes(), wiring.control_routes()
    mount(app, api_routes, settings.api.service)
    app[OPENAPI] = openapi.Document(api_routes, settings.api.service, control_routes)
    mount_control(app, control_routes, require_control_key)
    cors.enable(app, settings.cors.allowed_origins)
    return app
