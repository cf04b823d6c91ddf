"""The bootstrap builds the object graph once and attaches, in its documented order, what follows the log."""

from __future__ import annotations

import msgspec

from telephony import faults, messaging, reports, sip, stream, webhooks, wiring
from telephony.accounts.service import Accounts
from telephony.accounts.sessions import SessionIndex
from telephony.app import create_app
from telephony.billing import Billing
from telephony.config import Mail
from telephony.keys import (
    ACCOUNTS,
    BILLING,
    CALLS,
    CLOCK,
    EVENT_LOG,
    FAULTS,
    MEMORY,
    MESSAGING,
    REACTORS,
    READER,
    SCHEDULER,
    SEALER,
    SETTINGS,
    WEBHOOKS,
)
from telephony.mail import Mailer
from telephony.reactors.scheduler import Scheduler
from telephony.wiring.bootstrap import calls_engine
from tests.reactors.kinds import Echo

APP_REACTORS = ["voicemail-mail", "webhook-dispatcher", "report-planner"]


async def test_the_app_follows_commits_derives_timers_and_runs_reactors_in_the_documented_order(
    aiohttp_client, settings, clock
):
    extra = Echo()
    app = create_app(settings, clock=clock, reactors=[extra])
    await aiohttp_client(app)
    assert app[CLOCK] is clock
    shared = ["shared clock"] if settings.eventlog.url else []  # a PostgreSQL log's processes share the clock
    assert app[EVENT_LOG].followers == [
        "in-memory projections",
        "snapshots",
        "call timers",
        "sip invites",
        "sip dialling",
        *shared,
    ]
    assert app[MEMORY][messaging.Pending].on_change == app[MESSAGING].follow
    if not settings.eventlog.url:  # on PostgreSQL the sources and the sender's kick are gated by their leases
        assert app[SCHEDULER].sources == (app[ACCOUNTS].expiry.timers, app[BILLING].closing, app[MESSAGING].timers,
                                          app[WEBHOOKS].sender.timers, app[CALLS].simulator.timers)  # fmt: skip
        assert app[MEMORY][webhooks.PendingDeliveries].on_change == app[WEBHOOKS].sender.kick
    assert len(app[SCHEDULER].sources) == 5
    assert [runner.name for runner in app[REACTORS].runners] == [*APP_REACTORS, extra.name]
    assert app[WEBHOOKS].sender._faults == app[FAULTS].for_delivery
    assert list(app.on_shutdown) == [wiring.end_streams]


async def test_an_smtp_server_adds_its_delivery_after_the_apps_other_reactors(aiohttp_client, settings, clock):
    app = create_app(msgspec.structs.replace(settings, mail=Mail(host="127.0.0.1", port=9)), clock=clock)
    await aiohttp_client(app)
    assert [runner.name for runner in app[REACTORS].runners] == [*APP_REACTORS, "smtp-delivery"]


async def test_what_the_app_attached_is_detached_when_it_closes(aiohttp_client, settings, clock):
    app = create_app(settings, clock=clock)
    client = await aiohttp_client(app)
    await client.close()
    assert app[EVENT_LOG].followers == []
    assert app[SCHEDULER].pending == 0


async def test_constructors_register_nothing_anywhere(aiohttp_client, settings, clock):
    """Built again beside the app's own, with a scheduler and pending projections of their own: every
    service only keeps what it is given, and the wiring is what attaches it."""
    app = create_app(settings, clock=clock)
    await aiohttp_client(app)
    event_log, reader, memory, sealer = app[EVENT_LOG], app[READER], app[MEMORY], app[SEALER]
    followers, scheduler, conf = event_log.followers, Scheduler(clock), app[SETTINGS]
    pending, deliveries = messaging.Pending(), webhooks.PendingDeliveries()
    mailer = Mailer(conf.mail, event_log, sealer, clock)
    Accounts(conf, event_log, reader, clock, sealer, memory[SessionIndex], mailer, scheduler)
    billing = Billing(conf.billing, event_log, scheduler, clock)
    calls_engine(conf, clock, event_log, memory, billing, scheduler, sip.LiveClients(4))
    messaging.Steps(pending, event_log, scheduler, clock)
    reports.ReportRuns(event_log, reader, scheduler, clock, mailer)
    sender = webhooks.Sender(conf.webhooks, conf.simulator.seed, deliveries, event_log, reader, scheduler, clock,
                             sealer, mailer)  # fmt: skip
    webhooks.Webhooks(conf.webhooks, event_log, reader, clock, sealer, sender)
    faults.Faults(faults.FaultRules(), event_log, clock, conf.simulator.seed)
    stream.Streams(event_log, conf.stream.heartbeat_seconds)
    assert scheduler.sources == () and scheduler.pending == 0
    assert pending.on_change is None and deliveries.on_change is None
    assert event_log.followers == followers
