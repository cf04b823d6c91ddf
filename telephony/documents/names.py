"""The names of a kind's document tables, made in one place, and the shape of a table lists read."""

from __future__ import annotations

from typing import NamedTuple

COLUMNS = ("calldate", "live_id", "user_id", "type", "src", "dst", "e164", "campaign_id", "period", "created_at",
           "name", "webhook_id", "call_id")  # fmt: skip
"""The properties a kind may index or search, which each store keeps its way so that filters, sorts and
indexes never parse a body (SQLite: a column each; PostgreSQL: a `jsonb` document)."""

KEYS = frozenset({"id", "customer_id"})


class Table(NamedTuple):
    """A table (or view) of rows with an `id`, a `customer_id` and a JSON `body`, as lists and reads see
    it: its `columns` of their own type, the `props` of the body kept as columns too (each holds the
    body's value), and the table of its counts per customer, if it has one."""

    name: str
    columns: frozenset[str] = KEYS
    props: frozenset[str] = frozenset(COLUMNS)
    counts: str | None = None


def documents_of(kind: str) -> Table:
    """The document table of a resource kind, as reads see it."""
    return Table(table_of(kind), counts=counts_of(kind))


def table_of(kind: str) -> str:
    return f"doc_{kind}"


def counts_of(kind: str) -> str:
    return f"doc_{kind}_counts"


def search_of(table: str, prop: str) -> str:
    """The FTS5 table of a searched property of a document table (`sqlite.search`)."""
    return f"{table}_{prop}_search"


def sources_of(kind: str) -> str:
    """The table of the ids a derived kind gave the records it is drawn from (`projection.DerivedTable`)."""
    return f"doc_{kind}_sources"


def source(kind: str, id_: object) -> str:
    """How a derived document names the record it is drawn from: `<kind>:<id>`."""
    return f"{kind}:{id_}"
