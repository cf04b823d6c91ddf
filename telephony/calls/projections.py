"""The web calls' starts per customer, for the per-minute limit (`[simulator] webcalls_per_minute`).

A row per web call placed (its customer and clock time), written in the append's transaction like
every durable read model. The limit is checked inside the placing decision, which runs in the
writer's transaction (under the commit lock on PostgreSQL), so the count it reads there is exact
whichever process placed the others: one count for every process on a log.
"""

from __future__ import annotations

from ..domain.events.calls import CallPlaced
from ..eventlog import RecordedEvent
from ..eventlog.connection import Connection
from ..projections import Projection


class WebcallStarts(Projection):
    name = "webcall_starts"
    tables = ("webcall_starts",)
    handles = frozenset({CallPlaced})
    rebuild_cost = 0.2

    def create(self, conn: Connection) -> None:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS webcall_starts (customer_id BIGINT NOT NULL, at DOUBLE PRECISION NOT NULL)"
        )
        if not self.rebuilding:
            self.index(conn)

    def index(self, conn: Connection) -> None:
        conn.execute("CREATE INDEX IF NOT EXISTS webcall_starts_customer ON webcall_starts (customer_id, at)")

    def apply(self, conn: Connection, event: RecordedEvent) -> None:
        if isinstance(placed := event.event, CallPlaced) and placed.webcall_id is not None:
            conn.execute("INSERT INTO webcall_starts VALUES (?, ?)", (placed.customer_id, placed.at))


def webcalls_since(conn: Connection, customer_id: int, since: float) -> int:
    """How many web calls the customer placed after `since` (clock time; inside the writer's transaction)."""
    row = conn.execute("SELECT count(*) FROM webcall_starts WHERE customer_id = ? AND at > ?", (customer_id, since))
    return int(row.fetchone()[0])
