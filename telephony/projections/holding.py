"""Rows a rebuild holds back: a record created and then changed a few times is written once."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, TypeVar

Key = TypeVar("Key")
Held = TypeVar("Held")

LIMIT = 5000


class HeldRows(Generic[Key, Held]):
    """Records created lately during a rebuild, changed in place, then inserted in batches of `LIMIT`.

    A projection holds a record at its creation and, for each later event, changes the held copy when
    there is one or runs its SQL otherwise. It must `flush` before any statement that reads or
    changes several rows of its table, and in `index`, so the table is whole by the end.
    """

    def __init__(self, insert: str, row: Callable[[Key, Held], Sequence[Any]] | None = None) -> None:
        self._insert = insert
        self._row = row
        self._held: dict[Key, Held] = {}

    def hold(self, conn: sqlite3.Connection, key: Key, held: Held) -> None:
        self._held[key] = held
        if len(self._held) >= LIMIT:
            self.flush(conn)

    def get(self, key: Key) -> Held | None:
        return self._held.get(key)

    def drop(self, key: Key) -> bool:
        """Forget a held record (it was deleted before being written); False when none is held."""
        return self._held.pop(key, None) is not None

    def flush(self, conn: sqlite3.Connection) -> None:
        if not self._held:
            return
        row = self._row
        rows: Iterable[Any] = self._held.values() if row is None else [row(k, h) for k, h in self._held.items()]
        conn.executemany(self._insert, rows)
        self._held.clear()
