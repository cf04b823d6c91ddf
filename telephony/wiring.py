"""The tables that wire the app together: its projections, API routes and control routes.

Each capability contributes its parts here, so `create_app`, the CLI (`routes`, `replay`,
`verify`) and the tests all see the same set.
"""

from __future__ import annotations

from aiohttp import web

from . import openapi
from .accounts import USER_FEEDS, USER_REFERENCES, Registrations, customer, login, tokens
from .accounts import control as accounts_control
from .accounts.projections import projections as account_projections
from .accounts.sessions import SessionIndex
from .api import control
from .api.routing import Route, listing
from .calls import handlers as calls_handlers
from .calls import simulate, sms
from .calls.engine import Calls, CallSimulator, PerMinute, planner
from .calls.floor import LiveFloor, QueueRecords
from .calls.history import FEEDS
from .calls.live import LiveCalls
from .calls.voicemail import VoicemailMail
from .collections.cache import PageCache
from .config import Settings
from .documents import DocumentTable
from .documents.blobs import Blobs
from .documents.references import Table
from .domain.calls import ENDED, PLACED, ROUTED
from .eventlog.upcasting import Upcasters
from .keys import ACCOUNTS, CALLS, CLOCK, EVENT_LOG, MEMORY, READER, SCHEDULER, SETTINGS
from .mail import SmtpDelivery
from .projections import Projection, Projections
from .projections.clock import ClockOffset
from .projections.memory import MemoryProjection
from .projections.sequences import Sequences
from .reactors.reactor import Reactor
from .registry import calltracking, files, importing, provisioning, statements
from .registry.catalogue import RESOURCES
from .registry.routes import registry_routes


def projections() -> list[Projection]:
    documents = [DocumentTable("user", feeds={**USER_FEEDS, **FEEDS["user"]})] + [
        DocumentTable(r.kind, text_ids=r.text_ids, indexed=r.indexed, feeds=FEEDS.get(r.kind)) for r in RESOURCES
    ]
    sequences = Sequences(["customer", "user", *(r.kind for r in RESOURCES)], claiming=(PLACED, ROUTED, ENDED))
    return [*account_projections(), *documents, Blobs(), sequences]


def references() -> Table:
    """Every kind's reference fields, the registry's and the users': what a removal unlinks."""
    return {"user": USER_REFERENCES, **{r.kind: r.refs for r in RESOURCES if r.refs}}


def memory_projections(settings: Settings) -> list[MemoryProjection]:
    """The read models kept in memory, folded from the log at start."""
    return [SessionIndex(), Registrations(), PageCache(settings.api.list_cache_bytes, fed_kinds()), ClockOffset(),
            LiveCalls(), QueueRecords()]  # fmt: skip


def fed_kinds() -> dict[str, set[str]]:
    """Which document kinds each event type feeds, beyond its own kind's events."""
    fed: dict[str, set[str]] = {}
    for table in projections():
        if isinstance(table, DocumentTable):
            for type_ in table.feeds:
                fed.setdefault(type_, set()).add(table.kind)
    return fed


def reactors(app: web.Application) -> list[Reactor]:
    """The reactors that follow the log while the app runs."""
    settings, accounts = app[SETTINGS], app[ACCOUNTS]
    smtp = [SmtpDelivery(settings.mail, accounts.sealer, app[CLOCK])] if settings.mail.host else []
    return [calls_engine(app).simulator, VoicemailMail(app[READER], accounts.mailer), *smtp]


def calls_engine(app: web.Application) -> Calls:
    """The call engine of the app, made once."""
    if CALLS not in app:
        settings, clock, live = app[SETTINGS], app[CLOCK], app[MEMORY][LiveCalls]
        floor = LiveFloor(live, app[MEMORY][QueueRecords], settings.simulator.seed)
        simulator = CallSimulator(live, floor, app[EVENT_LOG], app[SCHEDULER], clock, planner(settings.simulator))
        per_minute = PerMinute(clock, settings.simulator.webcalls_per_minute)
        registrations = app[MEMORY][Registrations]
        app[CALLS] = Calls(settings.simulator, live, simulator, app[EVENT_LOG], clock, per_minute, registrations)
    return app[CALLS]


def upcasters() -> Upcasters:
    return Upcasters()


def projection_set() -> Projections:
    return Projections(projections(), upcasters())


def api_routes() -> list[Route]:
    return [*login.ROUTES, *tokens.ROUTES, *customer.ROUTES, *files.ROUTES, *registry_routes(), *statements.ROUTES,
            *calltracking.ROUTES, *calls_handlers.ROUTES, *sms.ROUTES]  # fmt: skip


def control_routes() -> list[Route]:
    return [*control.ROUTES, *accounts_control.ROUTES, *provisioning.ROUTES, *importing.ROUTES, *simulate.ROUTES,
            *openapi.ROUTES]  # fmt: skip


def route_listing(service: str) -> list[str]:
    return listing(api_routes(), control_routes(), service)
