"""What both stores do alike to one kind's document table: its rows, their counts per customer, and the
documents a rebuild holds back.

Each method below applies one of the four changes of a kind's documents (`changes`) in SQL both
stores take; each store's class (`sqlite.rows.SqliteRows`, `postgresql.rows.PgRows`) makes
the table its way (`create`, `index`), writes a row (`_insert`, `_row`) and a patch (`updated`), and
keeps what it indexes beside the table up to date (`_indexed`, `_unindexed`). A rebuild holds
documents created lately back (`HeldRows`) and changes them in place, so each is written once; `settle`
fills the counts in one pass and `index` builds the indexes once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import msgspec

from ..eventlog.connection import Connection
from ..projections.holding import HeldRows
from .changes import Clear, Patch, Put, Remove
from .conditions import equals
from .names import counts_of, documents_of
from .sql import Sql

_encode = msgspec.json.encode


class Rows:
    rebuilding: bool = False
    gathering: bool = False  # see Projection.gathering
    integer: ClassVar[str] = "INTEGER"
    """The store's type of a column of whole numbers."""
    sql: ClassVar[Sql]
    """The store's SQL of a condition (`conditions`)."""
    declared: ClassVar[tuple[Any, ...]] = ()
    """What shapes the table on the store beyond the kind's declaration (a change rebuilds it)."""

    def __init__(self, kind: str, text_ids: bool, indexed: tuple[tuple[str, ...], ...], searched: Sequence[str]
                 ) -> None:  # fmt: skip
        self.shape = documents_of(kind)
        self.table, self.counts, self.text_ids, self.indexed = self.shape.name, counts_of(kind), text_ids, indexed
        self.tables: tuple[str, ...] = (self.table, self.counts)
        self._count = (f'INSERT INTO "{self.counts}" VALUES (?, ?) '
                       f'ON CONFLICT (customer_id) DO UPDATE SET n = "{self.counts}".n + excluded.n')  # fmt: skip
        self._added: dict[int, int] = {}  # while gathering: documents created, by customer
        self._insert = self._insert_statement()
        self.held: HeldRows[Any, list] = HeldRows(self._insert, self._held_row)
        """During a rebuild: documents created lately, as [customer id, body as JSON text or a dict]."""

    def _insert_statement(self) -> str:
        """The statement that writes a row (`_row`), replacing one of the same id."""
        raise NotImplementedError

    def _row(self, id_: Any, customer_id: int, body: Any) -> tuple[Any, ...]:
        """A row of the table, of a body decoded, as JSON text or a record's Struct (encoded as it is)."""
        return id_, customer_id, body if isinstance(body, str) else _encode(body).decode()

    def _held_row(self, id_: Any, held: list) -> tuple[Any, ...]:
        return self._row(id_, *held)

    def _indexed(self, conn: Connection, id_: Any, body: dict[str, Any] | msgspec.Struct) -> None:
        """A document was written: what the store indexes beside the table follows (nothing by default)."""

    def _unindexed(self, conn: Connection, rows: list[tuple[Any, ...]]) -> None:
        """Documents were removed, given as their ids and the columns `_extracted`."""

    def _cleared(self, conn: Connection, chosen: str, params: list[Any], d: Clear) -> None:
        """The documents `chosen` (`FROM ... WHERE ...`) are about to be cleared."""

    _extracted = ""
    """The columns after the customer that a removal reads back for `_unindexed`."""

    def create(self, conn: Connection) -> None:
        raise NotImplementedError

    def updated(self, conn: Connection, d: Patch) -> None:
        raise NotImplementedError

    def settle(self, conn: Connection) -> None:
        self.held.flush(conn)
        conn.execute(f'DELETE FROM "{self.counts}"')
        conn.execute(f'INSERT INTO "{self.counts}" SELECT customer_id, count(*) FROM "{self.table}" GROUP BY 1')

    def index(self, conn: Connection) -> None:
        conn.execute(f'CREATE INDEX IF NOT EXISTS "{self.table}_customer" ON "{self.table}" (customer_id, id)')
        for props in self.indexed:
            conn.execute(f'CREATE INDEX IF NOT EXISTS "{self.table}_{"_".join(props)}" ON "{self.table}" '
                         f"(customer_id, {', '.join(props)}, id)")  # fmt: skip

    def created(self, conn: Connection, d: Put) -> None:
        body = d.body
        if self.rebuilding:  # held as a dict, or as JSON text
            self.held.hold(conn, d.id, [d.customer_id, body if isinstance(body, dict) else _encode(body).decode()])
            return
        conn.execute(self._insert, self._row(d.id, d.customer_id, body))
        if self.gathering:
            self._added[d.customer_id] = self._added.get(d.customer_id, 0) + 1
        else:
            conn.execute(self._count, (d.customer_id, 1))
        self._indexed(conn, d.id, body)

    def deleted(self, conn: Connection, d: Remove) -> None:
        if self.held.pop(d.id, None) is not None:
            return
        gone = conn.execute(f'DELETE FROM "{self.table}" WHERE id = ? RETURNING customer_id{self._extracted}', (d.id,))
        row = gone.fetchone()
        if row is None or self.rebuilding:
            return
        self._unindexed(conn, [(d.id, *row[1:])])
        self.gathered(conn)
        conn.execute(self._count, (row[0], -1))
        conn.execute(f'DELETE FROM "{self.counts}" WHERE customer_id = ? AND n = 0', (row[0],))

    def cleared(self, conn: Connection, d: Clear) -> None:
        """Every document of a customer, or those whose properties have the values `where` says."""
        self._whole(conn)
        self.gathered(conn)
        customer_id, where = d.customer_id, d.where
        condition, params = self.sql.where(equals(customer_id=customer_id, **where), self.shape)
        chosen = f'FROM "{self.table}" WHERE {condition}'
        self._cleared(conn, chosen, params, d)
        conn.execute(f"DELETE {chosen}", params)
        conn.execute(f'DELETE FROM "{self.counts}" WHERE customer_id = ?', (customer_id,))
        if where:
            conn.execute(f'INSERT INTO "{self.counts}" SELECT customer_id, count(*) FROM "{self.table}" '
                         "WHERE customer_id = ? GROUP BY customer_id", (customer_id,))  # fmt: skip

    def _whole(self, conn: Connection) -> None:
        """Write the rows held back (before a statement on many rows)."""
        self.held.flush(conn)

    def gathered(self, conn: Connection) -> None:
        """The counts of the documents created while gathering, written once per customer."""
        if self._added:
            conn.executemany(self._count, list(self._added.items()))
            self._added.clear()

    def forget(self, conn: Connection) -> None:
        self._added.clear()
