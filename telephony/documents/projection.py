"""One generic read model per resource: a document table (id, customer, JSON body) and its counts.

Events, all on the stream `<kind>-<id>`:
    `<kind>.created`  {id, customer_id, body}     the whole resource document
    `<kind>.updated`  {id, changes}               only the fields that changed
    `<kind>.deleted`  {id}
    `<kind>.cleared`  {customer_id}                the whole collection of one customer
and `customer.deleted` {id} drops every document of that customer. Counts per customer are kept
so an unfiltered list answers `total` without scanning.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any, ClassVar

import msgspec

from ..eventlog import RecordedEvent
from ..projections import Projection

_encode = msgspec.json.encode
CUSTOMER_DELETED = "customer.deleted"


def json_path(prop: str) -> str:
    """The SQL expression of a (whitelisted) top-level property of a document."""
    return f"json_extract(body, '$.{prop}')"


class DocumentTable(Projection):
    """The read model of one resource kind."""

    version: ClassVar[int] = 1

    def __init__(self, kind: str, *, text_ids: bool = False, indexed: Sequence[str] = ()) -> None:
        self.kind = kind
        self.name = f"documents:{kind}"
        self.table = f"doc_{kind}"
        self.counts = f"doc_{kind}_counts"
        self.tables = (self.table, self.counts)
        self.text_ids = text_ids
        self.indexed = tuple(indexed)
        self.handles = frozenset(f"{kind}.{action}" for action in ("created", "updated", "deleted", "cleared")) | {
            CUSTOMER_DELETED
        }

    def create(self, conn: sqlite3.Connection) -> None:
        key = "id TEXT PRIMARY KEY" if self.text_ids else "id INTEGER PRIMARY KEY"
        conn.execute(f'CREATE TABLE IF NOT EXISTS "{self.table}" ({key}, customer_id INTEGER NOT NULL, body TEXT)')
        conn.execute(f'CREATE INDEX IF NOT EXISTS "{self.table}_customer" ON "{self.table}" (customer_id, id)')
        for prop in self.indexed:
            conn.execute(
                f'CREATE INDEX IF NOT EXISTS "{self.table}_{prop}" ON "{self.table}" '
                f"(customer_id, {json_path(prop)}, id)"
            )
        conn.execute(
            f'CREATE TABLE IF NOT EXISTS "{self.counts}" (customer_id INTEGER PRIMARY KEY, n INTEGER NOT NULL)'
        )

    def apply(self, conn: sqlite3.Connection, event: RecordedEvent) -> None:
        data = event.data
        action = event.type.rpartition(".")[2]
        if event.type == CUSTOMER_DELETED or action == "cleared":
            customer_id = data["id"] if event.type == CUSTOMER_DELETED else data["customer_id"]
            conn.execute(f'DELETE FROM "{self.table}" WHERE customer_id = ?', (customer_id,))
            conn.execute(f'DELETE FROM "{self.counts}" WHERE customer_id = ?', (customer_id,))
        elif action == "created":
            insert_document(conn, self.table, data["id"], data["customer_id"], data["body"])
            self._count(conn, data["customer_id"], 1)
        elif action == "updated":
            update_document(conn, self.table, data["id"], data["changes"])
        elif action == "deleted":
            row = conn.execute(f'DELETE FROM "{self.table}" WHERE id = ? RETURNING customer_id', (data["id"],))
            gone = row.fetchone()
            if gone is not None:
                self._count(conn, gone[0], -1)

    def _count(self, conn: sqlite3.Connection, customer_id: int, delta: int) -> None:
        conn.execute(
            f'INSERT INTO "{self.counts}" VALUES (?, ?) ON CONFLICT (customer_id) DO UPDATE SET n = n + excluded.n',
            (customer_id, delta),
        )


def insert_document(conn: sqlite3.Connection, table: str, id_: Any, customer_id: int, body: dict) -> None:
    conn.execute(
        f'INSERT OR REPLACE INTO "{table}" (id, customer_id, body) VALUES (?, ?, ?)',
        (id_, customer_id, _encode(body).decode()),
    )


def update_document(conn: sqlite3.Connection, table: str, id_: Any, changes: dict) -> None:
    """Set only the changed top-level fields, keeping their JSON types."""
    if not changes:
        return
    pairs = ", ".join(f"'$.{name}', json(?)" for name in changes)
    values = [_encode(value).decode() for value in changes.values()]
    conn.execute(f'UPDATE "{table}" SET body = json_set(body, {pairs}) WHERE id = ?', (*values, id_))
