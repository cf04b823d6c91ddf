"""The names of a kind's document tables and of a document's properties in SQL: made in one place."""

from __future__ import annotations


def json_path(prop: str) -> str:
    """The SQL expression of a (whitelisted) top-level property of a document."""
    return f"json_extract(body, '$.{prop}')"


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
