"""The tables that wire the app together: its projections, API routes and control routes.

Each capability contributes its parts here, so `create_app`, the CLI (`routes`, `replay`,
`verify`) and the tests all see the same set.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from aiohttp import web

from . import billing, history, messaging, openapi, reports, webhooks
from .accounts import USER_FEEDS, USER_REFERENCES, Registrations, customer, login, tokens
from .accounts import control as accounts_control
from .accounts.projections import projections as account_projections
from .accounts.sessions import SessionIndex
from .api import control
from .api.routing import Route, listing
from .billing import handlers as billing_handlers
from .calls import handlers as calls_handlers
from .calls import simulate
from .calls.decisions import Engine
from .calls.engine import Calls, CallSimulator, PerMinute, planner
from .calls.floor import LiveFloor, QueueRecords
from .calls.history import FEEDS
from .calls.live import LiveCalls
from .calls.voicemail import VoicemailMail
from .collections.cache import PageCache
from .config import Settings
from .documents import DerivedTable, DocumentTable
from .documents.projection import Feed
from .documents.references import Table
from .domain.calls import ENDED, PLACED, ROUTED
from .eventlog.upcasting import Upcasters
from .history import faxes
from .keys import ACCOUNTS, BILLING, CALLS, CLOCK, EVENT_LOG, MEMORY, READER, REPORTS, SCHEDULER, SETTINGS
from .mail import SmtpDelivery
from .messaging import handlers as messaging_handlers
from .projections import Projection, Projections
from .projections.blobs import Blobs
from .projections.clock import ClockOffset
from .projections.memory import MemoryProjection
from .projections.sequences import Sequences
from .reactors.reactor import Reactor
from .registry import calltracking, files, importing, provisioning, statements
from .registry.catalogue import RESOURCES
from .registry.routes import registry_routes
from .webhooks import dashboard
from .webhooks import handlers as webhook_handlers


def _merged(*tables: Mapping[str, Mapping[str, Feed]]) -> dict[str, dict[str, Feed]]:
    """Feeds of several capabilities, by document kind (a kind may be fed by several)."""
    merged: dict[str, dict[str, Feed]] = {}
    for table in tables:
        for kind, feeds in table.items():
            merged.setdefault(kind, {}).update(feeds)
    return merged


FED = _merged(FEEDS, billing.FEEDS, history.FEEDS, webhooks.FEEDS)
"""The document kinds fed by other events than their own, and their feeds."""


def projections() -> list[Projection]:
    documents = [
        DocumentTable("user", feeds={**USER_FEEDS, **FED["user"]}),
        *(
            (DerivedTable if r.derived else DocumentTable)(
                r.kind, text_ids=r.text_ids, indexed=r.indexed, searched=r.searched, feeds=FED.get(r.kind)
            )
            for r in RESOURCES
        ),  # fmt: skip
        DocumentTable(webhooks.KIND, indexed=("name",)),
        DocumentTable("delivery", indexed=("webhook_id", "call_id"), feeds=FED["delivery"]),
    ]
    claiming = (PLACED, ROUTED, ENDED, *billing.CLAIMING, *webhooks.CLAIMING)
    allocated = [r.kind for r in RESOURCES if not r.one_per_customer]
    sequences = Sequences(["customer", "user", *allocated, webhooks.KIND], claiming=claiming)
    return [*account_projections(), *documents, Blobs(), sequences]


def references() -> Table:
    """Every kind's reference fields, the registry's and the users': what a removal unlinks."""
    return {"user": USER_REFERENCES, **{r.kind: r.refs for r in RESOURCES if r.refs}}


def memory_projections(settings: Settings) -> list[MemoryProjection]:
    """The read models kept in memory, folded from the log at start."""
    return [SessionIndex(), Registrations(), PageCache(settings.api.list_cache_bytes, fed_kinds()), ClockOffset(),
            LiveCalls(), QueueRecords(), webhooks.PendingDeliveries(), messaging.Pending()]  # fmt: skip


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
    smtp = [SmtpDelivery(settings.mail, accounts.sealer, app[CLOCK], app[READER])] if settings.mail.host else []
    planner = reports.ReportPlanner(app[REPORTS], app[READER])
    reader = app[READER]
    return [calls_engine(app).simulator, VoicemailMail(reader, accounts.mailer), webhooks.Dispatcher(reader), planner,
            *smtp]  # fmt: skip


def calls_engine(app: web.Application) -> Calls:
    """The call engine of the app, made once."""
    if CALLS not in app:
        settings, clock, live = app[SETTINGS], app[CLOCK], app[MEMORY][LiveCalls]
        floor = LiveFloor(live, app[MEMORY][QueueRecords], settings.simulator.seed)
        engine = Engine(planner(settings.simulator), floor, ledger(app))
        simulator = CallSimulator(live, engine, app[EVENT_LOG], app[SCHEDULER], clock)
        per_minute = PerMinute(clock, settings.simulator.webcalls_per_minute)
        registrations = app[MEMORY][Registrations]
        app[CALLS] = Calls(settings.simulator, live, simulator, app[EVENT_LOG], clock, per_minute, registrations)
    return app[CALLS]


def ledger(app: web.Application) -> billing.Billing:
    """The app's billing, made once (its monthly close is a timer on the app's scheduler)."""
    if BILLING not in app:
        app[BILLING] = billing.Billing(app[SETTINGS].billing, app[EVENT_LOG], app[SCHEDULER], app[CLOCK])
    return app[BILLING]


def timer_owners(app: web.Application) -> list[Callable[[], Awaitable[None]]]:
    """What keeps timers of its own on the app's scheduler, beside the call engine's and the webhooks';
    what they need to do once the scheduler runs."""
    ledger(app)
    messaging.Steps(app[MEMORY][messaging.Pending], app[EVENT_LOG], app[SCHEDULER], app[CLOCK])
    app[REPORTS] = reports.ReportRuns(app[EVENT_LOG], app[READER], app[SCHEDULER], app[CLOCK], app[ACCOUNTS].mailer)
    return [app[REPORTS].start]


def webhooks_service(app: web.Application) -> webhooks.Webhooks:
    """The app's webhooks: their configuration and the sender working through pending deliveries."""
    settings, accounts = app[SETTINGS], app[ACCOUNTS]
    sender = webhooks.Sender(settings.webhooks, settings.simulator.seed, app[MEMORY][webhooks.PendingDeliveries],
                             app[EVENT_LOG], app[READER], app[SCHEDULER], app[CLOCK], accounts.sealer,
                             accounts.mailer)  # fmt: skip
    return webhooks.Webhooks(settings.webhooks, app[EVENT_LOG], app[READER], app[CLOCK], accounts.sealer, sender)


def upcasters() -> Upcasters:
    return Upcasters()


def projection_set() -> Projections:
    return Projections(projections(), upcasters())


def api_routes() -> list[Route]:
    return [*login.ROUTES, *tokens.ROUTES, *customer.ROUTES, *files.ROUTES, *registry_routes(), *statements.ROUTES,
            *calltracking.ROUTES, *calls_handlers.ROUTES, *messaging_handlers.ROUTES,
            *billing_handlers.ROUTES]  # fmt: skip


def control_routes() -> list[Route]:
    return [*control.ROUTES, *accounts_control.ROUTES, *provisioning.ROUTES, *importing.ROUTES, *simulate.ROUTES,
            *billing_handlers.CONTROL_ROUTES, *faxes.ROUTES, *messaging_handlers.CONTROL_ROUTES,
            *webhook_handlers.ROUTES, *dashboard.ROUTES, *openapi.ROUTES]  # fmt: skip


def route_listing(service: str) -> list[str]:
    return listing(api_routes(), control_routes(), service)
