"""The bootstrap: what the app opens at start, in order, and the object graph built once from it.

`resources` lists the app's cleanup contexts: each opens one resource at start and closes it at
cleanup, in reverse order. The services are built in one step (`_services`), where every
constructor only keeps what it is given. What follows the log is attached here and nowhere else,
in this order:

1. commit followers, as their resources open: the in-memory projections, then their snapshots;
2. once the services are built, change hooks: pending SMS and chats to their timers, pending
   deliveries to the webhook sender; and the call timers, a commit follower after the in-memory
   projections: each commit's calls get the timer of their next step from their live state; then
   SIP's INVITEs, which follow the calls that ring a softphone;
3. timer sources (`timer_sources`), derived again at every start, then the leases taken and the
   scheduler started;
4. reactors (`reactors`), each a task owned by the app;
5. SIP's listener of its own (`[sip] host`), last to open and first to close.

Work that must happen once across processes is a duty under a lease (`reactors.leases`): the timers'
owners get their duty (`DUTY`) instead of the scheduler, each reactor runs under the lease of its
name. On SQLite the leases are local and nothing is gated; on PostgreSQL they are advisory locks, and
a commit follower keeps the clock where any process moved it.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from aiohttp import web

from .. import control_key, datadir, faults, messaging, reports, rtc, sip, stream, webhooks
from ..accounts import Registrations
from ..accounts.service import Accounts, open_sealer
from ..accounts.sessions import SessionIndex
from ..billing import Billing
from ..calls.decisions import Engine
from ..calls.engine import Calls, CallSimulator, planner
from ..calls.floor import LiveFloor, QueueRecords
from ..calls.live import LiveCalls
from ..calls.phones import PhoneCalls
from ..calls.voicemail import VoicemailMail
from ..clock import Clock
from ..collections.cache import PageCache
from ..config import Settings
from ..documents.listing import ReadStore
from ..documents.postgresql.reader import PgReader
from ..documents.sqlite.reader import Reader
from ..eventlog import EventLog
from ..eventlog.pg_lease import Lease as PgLease
from ..eventlog.pg_log import PgEventLog
from ..eventlog.pg_notices import Notices
from ..keys import (
    ACCOUNTS,
    BILLING,
    CALLS,
    CLOCK,
    CONTROL_KEY_DIGEST,
    DUTIES,
    ENTROPY,
    EVENT_LOG,
    FAULTS,
    MEDIA,
    MEMORY,
    MESSAGING,
    PAGE_CACHE,
    REACTORS,
    READER,
    REPORTS,
    SCHEDULER,
    SEALER,
    SETTINGS,
    SHARED_CLOCK,
    SIP,
    STREAMS,
    WEBHOOKS,
)
from ..mail import Mailer, SmtpDelivery
from ..projections import snapshots
from ..projections.clock import ClockOffset
from ..projections.memory import MemoryProjections
from ..reactors.leases import Duties
from ..reactors.reactor import Reactor
from ..reactors.running import runners
from ..reactors.scheduler import Scheduler, Source, Timers
from ..reactors.shared_clock import SharedClock
from . import read_models

Context = Callable[[web.Application], AsyncIterator[None]]
DUTY = {"expiry": "token-expiry", "closing": "invoice-closing", "messaging": "messaging-steps",
        "sender": "webhook-sender", "simulator": "call-simulator", "reports": reports.LEASE}  # fmt: skip
"""The lease of each timers' owner; a reactor's is its name (the report planner's: the report runs')."""


def resources(progress: bool = False, extra: Sequence[Reactor] = ()) -> list[Context]:
    """The app's cleanup contexts, opened in this order and closed in reverse. `progress` shows the
    rebuild of stale projections; `extra` reactors run beside the app's own (a test's, an embedder's)."""
    return [_event_log(progress), _reader, _memory, _services, _timers, _webhooks, _reactors(extra), _sip_listener]


def _event_log(progress: bool) -> Context:
    async def event_log(app: web.Application) -> AsyncIterator[None]:
        """The data dir's log, locked against other writers (stale projections rebuilt first), and the
        keys it was written with (a new control key shown)."""
        settings, url = app[SETTINGS], app[SETTINGS].eventlog.url
        with datadir.exclusive(settings.data_dir, shared=bool(url)):
            projections = read_models.projection_set(url)
            opened = await (PgEventLog.open_url(url, projections, app[CLOCK], progress=progress,
                                                max_batch=settings.eventlog.max_batch) if url else
                            EventLog.open(settings.data_dir, projections, app[CLOCK], progress=progress,
                                          synchronous=settings.eventlog.synchronous,
                                          max_batch=settings.eventlog.max_batch))  # fmt: skip
            try:
                app[SEALER] = await open_sealer(settings.data_dir, opened, app[ENTROPY], app[CLOCK])
                app[CONTROL_KEY_DIGEST] = control_key.ensure(settings.data_dir, settings.control.key)
            except BaseException:
                await opened.close()
                raise
            app[EVENT_LOG] = opened
            yield
            await opened.close()

    return event_log


async def _reader(app: web.Application) -> AsyncIterator[None]:
    """Read-only connections for GET handlers: SQLite's (WAL lets them read while the writer commits),
    or a few to the PostgreSQL log's database."""
    url, steps = app[SETTINGS].eventlog.url, app[SETTINGS].api.inline_read_steps
    reader: Any = await (PgReader.open(url) if url else Reader.open(app[EVENT_LOG].path, steps))
    app[READER] = reader
    yield
    await reader.close()


async def _memory(app: web.Application) -> AsyncIterator[None]:
    """The in-memory projections, restored from their snapshots and folded up to the log's head, then
    following its commits; the clock where the operator last moved it."""
    event_log = app[EVENT_LOG]
    memory = MemoryProjections(read_models.memory_projections(app[SETTINGS]))
    kept = await event_log.query(lambda conn: snapshots.load(conn, memory.kept))
    restored = snapshots.restore(memory, kept)
    await memory.attach(event_log, restored)
    keeper = snapshots.Keeper(memory, event_log.query, restored)
    unfollow = [event_log.follow_commits("in-memory projections", memory.follow),
                event_log.follow_commits("snapshots", keeper.follow)]  # fmt: skip
    if (moved := memory[ClockOffset]).epoch:
        app[CLOCK].restore(moved.offset, moved.epoch)
    app[MEMORY], app[PAGE_CACHE] = memory, memory[PageCache]
    yield
    for stop in reversed(unfollow):
        stop()
    await keeper.close()


async def _services(app: web.Application) -> AsyncIterator[None]:
    """The object graph, built once in dependency order; then the first customer of an empty log and
    the fault rules of the configuration."""
    settings, clock, event_log, reader, memory = app[SETTINGS], app[CLOCK], app[EVENT_LOG], app[READER], app[MEMORY]
    sealer, entropy = app[SEALER], app[ENTROPY]
    app[SCHEDULER] = scheduler = Scheduler(clock)
    shared = settings.eventlog.url
    app[DUTIES] = duties = Duties(scheduler, functools.partial(PgLease, shared) if shared else None)
    mailer = Mailer(settings.mail, event_log, sealer, clock)
    app[ACCOUNTS] = Accounts(settings, event_log, reader, clock, sealer, memory[SessionIndex], mailer,
                             duties[DUTY["expiry"]], entropy)  # fmt: skip
    app[BILLING] = billing = Billing(settings.billing, event_log, duties[DUTY["closing"]], clock)
    sip_clients = sip.LiveClients(settings.sip.dialogs_per_connection)
    app[CALLS] = calls_engine(settings, clock, event_log, memory, billing, duties[DUTY["simulator"]], sip_clients)
    app[MESSAGING] = messaging.Steps(memory[messaging.Pending], event_log, duties[DUTY["messaging"]], clock)
    app[REPORTS] = reports.ReportRuns(event_log, reader, duties[DUTY["reports"]], clock, mailer)
    app[FAULTS] = fault_rules = faults.Faults(memory[faults.FaultRules], event_log, clock, settings.simulator.seed)
    sender = webhooks.Sender(settings.webhooks, settings.simulator.seed, memory[webhooks.PendingDeliveries], event_log,
                             reader, duties[DUTY["sender"]], clock, sealer, mailer,
                             faults=fault_rules.for_delivery)  # fmt: skip
    app[WEBHOOKS] = webhooks.Webhooks(settings.webhooks, event_log, reader, clock, sealer, sender, entropy)
    app[STREAMS] = stream.Streams(event_log, settings.stream.heartbeat_seconds)
    app[SIP] = sip_hub(settings, app[ACCOUNTS], reader, clock, scheduler, event_log, memory, sip_clients, app[CALLS])
    app[MEDIA] = app[SIP].invites.media = rtc.MediaCalls(settings.sip.max_media_calls)
    await app[ACCOUNTS].bootstrap()
    await fault_rules.configure(settings.faults.rules)
    yield


async def end_streams(app: web.Application) -> None:
    """At shutdown, before the server waits for its handlers: the event streams end, SIP sockets close."""
    if STREAMS in app:
        app[STREAMS].close()
    if SIP in app:
        await app[SIP].close()
    if MEDIA in app:
        await app[MEDIA].close()


def sip_hub(settings: Settings, accounts: Accounts, reader: ReadStore, clock: Clock, scheduler: Scheduler,
            event_log: EventLog, memory: MemoryProjections, clients: sip.LiveClients, calls: Calls
            ) -> sip.SipHub:  # fmt: skip
    """SIP over WebSocket: users and nodes from the read models, login's throttle, the live calls, the
    registrations its connections hold, the INVITEs that ring them (what they answer drives the calls) and
    those their phones send (calls placed as `POST /calls` places them)."""
    directory = sip.Directory(settings.sip, reader, accounts.unseal)
    invites = sip.Invites(clients, memory[LiveCalls].calls.get, calls.by_client, directory.domain)
    phones = PhoneCalls(reader, calls, accounts.index.accounts.get)
    dialling = sip.Dialling(phones.place, phones.hang_up, memory[LiveCalls].calls.get, event_log,
                            settings.sip.dialogs_per_connection)  # fmt: skip
    return sip.SipHub(settings.sip, directory, accounts.throttle, clock, scheduler, event_log,
                      memory[LiveCalls].of_customer, lambda: memory.position, accounts.register_client,
                      accounts.unregister_client, clients, invites, dialling)  # fmt: skip


def calls_engine(settings: Settings, clock: Clock, event_log: EventLog, memory: MemoryProjections, billing: Billing,
                 scheduler: Timers, clients: sip.LiveClients) -> Calls:  # fmt: skip
    """The call engine: the PBX's decisions over the live floor, the simulator that takes their steps,
    and the real SIP clients that ring for their users instead of it."""
    live = memory[LiveCalls]
    floor = LiveFloor(live, memory[QueueRecords], settings.simulator.seed)
    engine = Engine(planner(settings.simulator), floor, billing, clients.of)
    simulator = CallSimulator(live, engine, event_log, scheduler, clock)
    return Calls(settings.simulator, live, simulator, event_log, clock, memory[Registrations])


async def _timers(app: web.Application) -> AsyncIterator[None]:
    """The change hooks and timer sources attached, then the leases taken, the scheduler started and
    the report schedules planned (a run missed while the server was down runs at once); at the end, the
    jobs under way finish and the leases are given up. On a shared log the clock follows every move."""
    memory, scheduler, duties, event_log = app[MEMORY], app[SCHEDULER], app[DUTIES], app[EVENT_LOG]
    memory[messaging.Pending].on_change = app[MESSAGING].follow
    memory[webhooks.PendingDeliveries].on_change = duties[DUTY["sender"]].gate(app[WEBHOOKS].sender.kick)
    unfollow = [event_log.follow_commits("call timers", app[CALLS].simulator.follow_commit),
                event_log.follow_commits("sip invites", app[SIP].invites.follow_commit),
                event_log.follow_commits("sip dialling", app[SIP].dialling.follow_commit)]  # fmt: skip
    if url := app[SETTINGS].eventlog.url:
        notices = await Notices.open(url, "clock")
        app[SHARED_CLOCK] = SharedClock(app[CLOCK], scheduler, notices, lambda: duties.held, DUTY.values())
        unfollow.append(event_log.follow_commits("shared clock", app[SHARED_CLOCK].follow_commit))
    for duty, source in timer_sources(app):
        duties[duty].derive(source)
    duties[DUTY["reports"]].when_taken(app[REPORTS].start)
    await duties.start()
    yield
    for stop in reversed(unfollow):
        stop()
    if url:
        await app[SHARED_CLOCK].close()
        await notices.close()
    await scheduler.stop()
    await duties.release()


def timer_sources(app: web.Application) -> list[tuple[str, Source]]:
    """What derives timers from the projections at every start, in the order they are added, each with
    the lease its timers run under."""
    return [(DUTY["expiry"], app[ACCOUNTS].expiry.timers), (DUTY["closing"], app[BILLING].closing),
            (DUTY["messaging"], app[MESSAGING].timers), (DUTY["sender"], app[WEBHOOKS].sender.timers),
            (DUTY["simulator"], app[CALLS].simulator.timers)]  # fmt: skip


async def _webhooks(app: web.Application) -> AsyncIterator[None]:
    """The webhooks the configuration makes; at the end, the POSTs under way are finished and recorded."""
    await app[WEBHOOKS].configure(await app[ACCOUNTS].first_customer())
    yield
    await app[WEBHOOKS].stop()


async def _sip_listener(app: web.Application) -> AsyncIterator[None]:
    """SIP's listener of its own (`[sip] host`), once everything its connections use runs."""
    async with sip.listening(app[SIP], app[SETTINGS].sip):
        yield


def _reactors(extra: Sequence[Reactor]) -> Context:
    async def reactors_running(app: web.Application) -> AsyncIterator[None]:
        """Every reactor's task, owned by the app: started after everything they use, stopped first."""
        duties = app[DUTIES]
        app[REACTORS] = running = runners([*reactors(app), *extra], app[EVENT_LOG], app[CLOCK],
                                          lease_of=duties.__getitem__)  # fmt: skip
        running.start()
        yield
        await running.stop()

    return reactors_running


def reactors(app: web.Application) -> list[Reactor]:
    """The app's reactors, in the order they start."""
    settings, reader, mailer = app[SETTINGS], app[READER], app[ACCOUNTS].mailer
    smtp = [SmtpDelivery(settings.mail, app[SEALER], app[CLOCK], reader)] if settings.mail.host else []
    return [VoicemailMail(reader, mailer), webhooks.Dispatcher(reader),
            reports.ReportPlanner(app[REPORTS], reader), *smtp]  # fmt: skip
