"""Rows a rebuild holds back: a record created and then changed a few times is written once."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from ..eventlog.connection import Connection

Key = TypeVar("Key")
Held = TypeVar("Held")

LIMIT = 5000


class HeldRows(dict[Key, Held]):
    """Records created lately during a rebuild, by key, changed in place, then inserted in batches of `LIMIT`.

    A projection holds a record at its creation and, for each later event, changes the held copy when
    `get` finds one or runs its SQL otherwise (`pop` forgets a record deleted before being written).
    It must `flush` before any statement that reads or changes several rows of its table, and in
    `settle`, so the table is whole by the end. A dict, so the hot lookups cost no Python call.
    """

    def __init__(self, insert: str, row: Callable[[Key, Held], Sequence[Any]] | None = None) -> None:
        super().__init__()
        self._insert = insert
        self._row = row

    def hold(self, conn: Connection, key: Key, held: Held) -> None:
        self[key] = held
        if len(self) >= LIMIT:
            self.flush(conn)

    def flush(self, conn: Connection) -> None:
        if not self:
            return
        row = self._row
        rows: Iterable[Any] = self.values() if row is None else [row(k, h) for k, h in self.items()]
        conn.executemany(self._insert, rows)
        self.clear()
