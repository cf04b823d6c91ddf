"""A document table drawn from other records, whose documents take ids in the order they are made."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

import msgspec

from ..eventlog.connection import Connection
from ..projections.holding import HeldRows
from .changes import DocumentChange, Patch, Put, Remove
from .names import sources_of
from .projection import DocumentTable


class DerivedTable(DocumentTable):
    """The read model of a kind drawn from other records (conversations, from CDRs, SMS, faxes, chats).

    Each document stands for one record, its source (`names.source`: `<kind>:<id>`), by which its feeds
    name it: a `Put` gives it the table's next id (1, 2, 3 ... across customers, in log order); a `Patch`
    or `Remove` finds it. The ids given are kept in a table of their own, never cleared, so no id is
    given twice and a replay gives every document the same id; an export lists the records in the order
    their documents were made (`reads.in_order_drawn`), so an import gives them the same ids again."""

    version: ClassVar[int] = 4

    def __init__(self, kind: str, **options: Any) -> None:
        super().__init__(kind, **options)
        self.sources, self.tables = sources_of(kind), (*self.tables, sources_of(kind))
        self._give = (f'INSERT INTO "{self.sources}" (id, source) SELECT coalesce(max(id), 0) + 1, ? '
                      f'FROM "{self.sources}" RETURNING id')  # fmt: skip
        self._find = f'SELECT id FROM "{self.sources}" WHERE source = ?'
        self._index = f'CREATE UNIQUE INDEX IF NOT EXISTS "{self.sources}_source" ON "{self.sources}" (source)'
        self._given = HeldRows[str, int](f'INSERT INTO "{self.sources}" (source, id) VALUES (?, ?)', lambda *row: row)
        """During a rebuild: the ids given lately, by source, written in batches."""
        self._last: int | None = None
        """During a rebuild: the last id given."""

    def create(self, conn: Connection) -> None:
        super().create(conn)
        conn.execute(f'CREATE TABLE IF NOT EXISTS "{self.sources}" (id {self.store.integer} PRIMARY KEY, '
                     "source TEXT NOT NULL)")  # fmt: skip
        if not self.rebuilding:
            conn.execute(self._index)
        self._last = None

    def settle(self, conn: Connection) -> None:
        self._given.flush(conn)
        conn.execute(self._index)
        super().settle(conn)

    def _change(self, conn: Connection, changes: Iterable[DocumentChange]) -> None:
        """A feed's changes, each naming its document by its source: a new one gets the next id."""
        for change in changes:
            match change:
                case Put(id=source, body=body):
                    given = self._next(conn, str(source))
                    plain = body if isinstance(body, dict) else msgspec.to_builtins(body)
                    change = msgspec.structs.replace(change, id=given, body={"id": given, **plain})
                case Patch(id=source) | Remove(id=source):
                    if (found := self._id_of(conn, str(source))) is None:
                        continue
                    change = msgspec.structs.replace(change, id=found)
            super()._change(conn, [change])

    def _next(self, conn: Connection, source: str) -> int:
        if not self.rebuilding:
            return conn.execute(self._give, (source,)).fetchone()[0]
        if self._last is None:
            self._last = conn.execute(f'SELECT coalesce(max(id), 0) FROM "{self.sources}"').fetchone()[0]
        self._last += 1
        self._given.hold(conn, source, self._last)
        return self._last

    def _id_of(self, conn: Connection, source: str) -> int | None:
        if (given := self._given.get(source)) is not None:
            return given
        if self.rebuilding:
            conn.execute(self._index)
        row = conn.execute(self._find, (source,)).fetchone()
        return row[0] if row else None
