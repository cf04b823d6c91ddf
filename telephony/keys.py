"""Typed application keys: everything the handlers share lives on the app under one of these.

The types are imported for the type checker only, so this module imports no implementation and
any layer may use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:
    from .accounts.service import Accounts
    from .api.context import Principal
    from .api.route_table import Authenticate
    from .billing import Billing
    from .calls.engine import Calls
    from .clock import Clock
    from .collections.cache import PageCache
    from .config import Settings
    from .documents.listing import ReadStore
    from .documents.references import Table
    from .eventlog import EventLog
    from .faults import Faults
    from .messaging import Steps
    from .openapi import Document
    from .projections.memory import MemoryProjections
    from .reactors.leases import Duties
    from .reactors.running import Reactors
    from .reactors.scheduler import Scheduler
    from .reactors.shared_clock import SharedClock
    from .reports import ReportRuns
    from .rtc import MediaCalls
    from .security import Entropy, Sealer
    from .sip import SipHub
    from .stream import Streams
    from .webhooks import Webhooks

SETTINGS: web.AppKey[Settings] = web.AppKey("settings")
CLOCK: web.AppKey[Clock] = web.AppKey("clock")
EVENT_LOG: web.AppKey[EventLog] = web.AppKey("event_log")
READER: web.AppKey[ReadStore] = web.AppKey("reader")
SCHEDULER: web.AppKey[Scheduler] = web.AppKey("scheduler")
PAGE_CACHE: web.AppKey[PageCache] = web.AppKey("page_cache")
CONTROL_KEY_DIGEST: web.AppKey[bytes] = web.AppKey("control_key_digest")
ENTROPY: web.AppKey[Entropy] = web.AppKey("entropy")
"""Where salts, tokens and secrets draw their randomness: the system's, or seeded for a reproducible run."""
SEALER: web.AppKey[Sealer] = web.AppKey("sealer")
"""Seals the secrets the API shows again, with the data dir's key (checked against the log at start)."""
ACCOUNTS: web.AppKey[Accounts] = web.AppKey("accounts")
AUTHENTICATE: web.AppKey[Authenticate] = web.AppKey("authenticate")
"""Checks a request's credentials and sets its PRINCIPAL; raises 401 otherwise."""
OPENAPI: web.AppKey[Document] = web.AppKey("openapi")
MEMORY: web.AppKey[MemoryProjections] = web.AppKey("memory")
REACTORS: web.AppKey[Reactors] = web.AppKey("reactors")
DUTIES: web.AppKey[Duties] = web.AppKey("duties")
"""The leases of work that runs once across processes, and the timers each gates."""
SHARED_CLOCK: web.AppKey[SharedClock] = web.AppKey("shared_clock")
"""On a log shared by processes: the clock following every process's moves (absent on SQLite)."""
CALLS: web.AppKey[Calls] = web.AppKey("calls")
"""The call engine: live calls, the simulator, and what the calls handlers use."""
BILLING: web.AppKey[Billing] = web.AppKey("billing")
"""Tariffs, charges, credits and the monthly close of invoices."""
WEBHOOKS: web.AppKey[Webhooks] = web.AppKey("webhooks")
"""Webhook configuration, the sender of deliveries, the call flow view."""
REPORTS: web.AppKey[ReportRuns] = web.AppKey("reports")
"""The timers of report schedules."""
MESSAGING: web.AppKey[Steps] = web.AppKey("messaging")
"""The timers of pending SMS and chats."""
REFERENCES: web.AppKey[Table] = web.AppKey("references")
"""Every kind's reference fields: a removal unlinks what they name (`documents/references.py`)."""
FAULTS: web.AppKey[Faults] = web.AppKey("faults")
"""The fault rules: added and removed as events, matched against API requests and webhook deliveries."""
STREAMS: web.AppKey[Streams] = web.AppKey("streams")
"""The open event streams (`GET /_telephony/events/stream`), ended at shutdown."""

SIP: web.AppKey[SipHub] = web.AppKey("sip")
"""SIP over WebSocket: the open connections and what they use."""
MEDIA: web.AppKey[MediaCalls] = web.AppKey("media")
"""The WebRTC media calls of this process (the INVITEs to browser softphones)."""

REQUEST_ID: web.RequestKey[str] = web.RequestKey("request_id")
API_VERSION: web.RequestKey[str] = web.RequestKey("api_version")
PRINCIPAL: web.RequestKey[Principal] = web.RequestKey("principal")

__all__ = [
    "ACCOUNTS",
    "API_VERSION",
    "AUTHENTICATE",
    "BILLING",
    "CALLS",
    "CLOCK",
    "CONTROL_KEY_DIGEST",
    "ENTROPY",
    "EVENT_LOG",
    "FAULTS",
    "MEDIA",
    "MEMORY",
    "MESSAGING",
    "OPENAPI",
    "REACTORS",
    "REFERENCES",
    "PAGE_CACHE",
    "PRINCIPAL",
    "READER",
    "REPORTS",
    "REQUEST_ID",
    "SCHEDULER",
    "SEALER",
    "SETTINGS",
    "SIP",
    "STREAMS",
    "WEBHOOKS",
]
