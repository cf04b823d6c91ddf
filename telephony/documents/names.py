"""The names of a kind's document tables and of a document's properties in SQL: made in one place.

Every document table has the same shape: `id`, `customer_id`, the JSON `body`, and a column per
property of `COLUMNS`, which some kind indexes or searches, holding what `json_extract(body,
'$.<property>')` gives (NULL when it lacks one): stored in the tables of the kinds that index or
search it, so filters, sorts and indexes on it never parse a body there, and virtual elsewhere (read
from the body when asked). Other properties are read from the body.
"""

from __future__ import annotations

COLUMNS = ("calldate", "live_id", "user_id", "type", "src", "dst", "e164", "campaign_id", "period", "created_at",
           "name", "webhook_id", "call_id")  # fmt: skip
"""The properties a kind may index or search: a column of every document table."""


def prop_sql(prop: str, columns: bool = True) -> str:
    """The SQL of a (whitelisted) top-level property of a document: its column, unquoted (a table without
    it is an error, never a string), unless `columns` is false (rows of another table or view with a JSON `body`)."""
    return prop if columns and prop in COLUMNS else f"json_extract(body, '$.{prop}')"


def table_of(kind: str) -> str:
    """The document table of a resource kind."""
    return f"doc_{kind}"


def counts_of(kind: str) -> str:
    """The table of a kind's document counts per customer."""
    return f"doc_{kind}_counts"


def search_of(kind: str, prop: str) -> str:
    """The FTS5 table of a kind's searched property (`documents.search`)."""
    return f"doc_{kind}_{prop}_search"


def sources_of(kind: str) -> str:
    """The table of the ids a derived kind gave the records it is drawn from (`documents.derived`)."""
    return f"doc_{kind}_sources"


def source(kind: str, id_: object) -> str:
    """How a derived document names the record it is drawn from: `<kind>:<id>`."""
    return f"{kind}:{id_}"
