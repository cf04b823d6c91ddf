"""What the log feeds: the projection tables, the in-memory projections and the reference table.

Each capability contributes its parts here, so the app, the CLI (`replay`, `verify`) and the tests
all see the same set.
"""

from __future__ import annotations

from collections.abc import Mapping

from .. import billing, conversations, dashboard, faults, messaging, webhooks
from ..accounts import USER_FEEDS, USER_REFERENCES, Registrations
from ..accounts.projections import Tokens
from ..accounts.projections import projections as account_projections
from ..accounts.projections.pg_tables import PgTokens
from ..accounts.sessions import SessionIndex
from ..calls.floor import QueueRecords
from ..calls.live import LiveCalls
from ..calls.projections import WebcallStarts
from ..calls.records import FEEDS
from ..collections.cache import PageCache
from ..config import Settings
from ..documents import DerivedTable, DocumentTable
from ..documents.projection import Feed
from ..documents.references import Table
from ..domain.events import Event, tag_of
from ..domain.events.calls import CallEnded, CallPlaced, CallRouted
from ..projections import Projection, Projections
from ..projections.blobs import Blobs
from ..projections.clock import ClockOffset
from ..projections.memory import MemoryProjection
from ..projections.sequences import Sequences
from ..registry.catalogue import RESOURCES


def _merged(*tables: Mapping[str, Mapping[type[Event], Feed]]) -> dict[str, dict[type[Event], Feed]]:
    """Feeds of several capabilities, by document kind (a kind may be fed by several)."""
    merged: dict[str, dict[type[Event], Feed]] = {}
    for table in tables:
        for kind, feeds in table.items():
            merged.setdefault(kind, {}).update(feeds)
    return merged


def fed() -> dict[str, dict[type[Event], Feed]]:
    """The document kinds fed by other events than their own, and their feeds."""
    return _merged(FEEDS, billing.FEEDS, conversations.FEEDS, webhooks.FEEDS)


TOKENS: dict[str, type[Tokens]] = {"sqlite": Tokens, "postgresql": PgTokens}


def projections(dialect: str = "sqlite") -> list[Projection]:
    """The projections of a log, each in the SQL of the store that keeps it (`dialect`)."""
    feeding = fed()
    documents = [
        DocumentTable("user", dialect=dialect, feeds={**USER_FEEDS, **feeding["user"]}),
        *(
            (DerivedTable if r.derived else DocumentTable)(
                r.kind,
                dialect=dialect,
                text_ids=r.text_ids,
                indexed=r.indexed,
                searched=r.searched,
                feeds=feeding.get(r.kind),
            )
            for r in RESOURCES
        ),  # fmt: skip
        DocumentTable(webhooks.KIND, dialect=dialect, indexed=("name",)),
        DocumentTable("delivery", dialect=dialect, indexed=("webhook_id", "call_id"), feeds=feeding["delivery"]),
    ]
    claiming = (CallPlaced, CallRouted, CallEnded, *billing.CLAIMING, *webhooks.CLAIMING)
    allocated = [r.kind for r in RESOURCES if not r.one_per_customer]
    sequences = Sequences(["customer", "user", *allocated, webhooks.KIND], claiming=claiming)
    return [*account_projections(TOKENS[dialect]), *documents, Blobs(), sequences, WebcallStarts()]


def references() -> Table:
    """Every kind's reference fields, the registry's and the users': what a removal unlinks."""
    return {"user": USER_REFERENCES, **{r.kind: r.refs for r in RESOURCES if r.refs}}


def memory_projections(settings: Settings) -> list[MemoryProjection]:
    """The read models kept in memory, folded from the log at start."""
    return [SessionIndex(), Registrations(), PageCache(settings.api.list_cache_bytes, fed_kinds()), ClockOffset(),
            LiveCalls(), QueueRecords(), webhooks.PendingDeliveries(), messaging.Pending(),
            faults.FaultRules(), dashboard.TodayCounts()]  # fmt: skip


def fed_kinds() -> dict[str, set[str]]:
    """Which document kinds each event type feeds, beyond its own kind's events."""
    kinds: dict[str, set[str]] = {}
    for table in projections():
        if isinstance(table, DocumentTable):
            for type_ in table.feeds:
                kinds.setdefault(tag_of(type_), set()).add(table.kind)
    return kinds


def projection_set(url: str = "") -> Projections:
    """The projections of a log in the data dir, or of the PostgreSQL log at `url` (in PostgreSQL's SQL)."""
    return Projections(projections("postgresql" if url else "sqlite"))
