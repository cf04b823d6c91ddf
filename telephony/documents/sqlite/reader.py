"""The read side for GET handlers on SQLite (a `listing.ReadStore`): short queries at once, long ones on
aiosqlite's thread."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

import aiosqlite

from .sql import UNICODE_LOWER

STEPS_PER_CHECK = 1000
INLINE_CACHE_KIB = 32 * 1024
"""The page cache of the loop's connection: the pages lists come back to stay in memory."""


def _lower(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


class Reader:
    """Most reads are index lookups of tens of microseconds, less than a trip to a thread: a query first
    runs on the loop's own read-only connection under a budget of SQLite steps, and one that goes past it
    is run again on aiosqlite's thread, so a long scan never holds up other requests. No read transaction
    is held between statements; both connections know `unicode_lower` (SQLite folds ASCII only: `sql`)."""

    dialect = "sqlite"

    def __init__(self, inline: sqlite3.Connection, threaded: aiosqlite.Connection, budget_steps: int) -> None:
        self._inline, self._threaded, self._inline_first = inline, threaded, budget_steps > 0
        self._budget, self._checks = max(1, budget_steps // STEPS_PER_CHECK), 0
        inline.set_progress_handler(self._tick, STEPS_PER_CHECK)

    @classmethod
    async def open(cls, path: Path, budget_steps: int) -> Reader:
        uri = f"file:{path}?mode=ro"
        # Used by one event loop at a time, never concurrently; the loop may run in another thread
        # than the one that opened it (an app started in one thread and served in another).
        inline = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        inline.execute("PRAGMA query_only=1")
        inline.execute(f"PRAGMA cache_size=-{INLINE_CACHE_KIB}")
        inline.create_function(UNICODE_LOWER, 1, _lower, deterministic=True)
        threaded = await aiosqlite.connect(uri, uri=True)
        await threaded.execute("PRAGMA query_only=1")
        await threaded.create_function(UNICODE_LOWER, 1, _lower, deterministic=True)
        return cls(inline, threaded, budget_steps)

    def _tick(self) -> int:
        self._checks += 1
        return 1 if self._checks > self._budget else 0

    async def execute_fetchall(self, sql: str, parameters: Iterable[Any] = ()) -> list[Any]:
        """Every row of the query, however long it takes, without blocking the loop for long."""
        self._checks = 0
        if self._inline_first:
            try:
                return self._inline.execute(sql, tuple(parameters)).fetchall()
            except sqlite3.OperationalError:
                if self._checks <= self._budget:
                    raise
        return list(await self._threaded.execute_fetchall(sql, tuple(parameters)))

    async def each(self, sql: str, parameters: Iterable[Any] = ()) -> AsyncIterator[Any]:
        """The rows of a query, streamed from the thread."""
        async with self._threaded.execute(sql, tuple(parameters)) as cursor:
            async for row in cursor:
                yield row

    async def close(self) -> None:
        self._inline.close()
        await self._threaded.close()
