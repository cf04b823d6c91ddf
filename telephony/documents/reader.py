"""The read side for GET handlers: short queries at once, long ones on aiosqlite's thread.

Most reads are index lookups that take tens of microseconds, less than handing them to a thread
and back. So a query first runs on the event loop's own read-only connection under a budget of
SQLite steps; one that goes past it is interrupted there and run again on aiosqlite's thread, so a
long scan never holds up other requests. Both connections read the same committed state (WAL).

Both know `unicode_lower(text)`, the lower case of any alphabet (SQLite's own `lower` and `LIKE`
fold ASCII letters only), for case-insensitive filters.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

STEPS_PER_CHECK = 1000
UNICODE_LOWER = "unicode_lower"
UNBOUNDED = -(2**62)
INLINE_CACHE_KIB = 32 * 1024
"""The page cache of the loop's connection: the pages lists come back to stay in memory."""
WRITING_SECONDS = 1.0
"""How long after a write was handed to the log, or committed, the log counts as being written: the
loop's snapshot is let go at the end of each iteration meanwhile, and otherwise kept until the next
write."""
T = TypeVar("T")


def unicode_lower(expression: str) -> str:
    """The SQL of an expression's text in lower case, in any alphabet (on the reader's connections)."""
    return f"{UNICODE_LOWER}({expression})"


def _lower(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


class Reader:
    def __init__(self, inline: sqlite3.Connection, threaded: aiosqlite.Connection, budget_steps: int) -> None:
        self._inline = inline
        self._threaded = threaded
        self._inline_first = budget_steps > 0
        self._budget = max(1, budget_steps // STEPS_PER_CHECK)
        self._checks = 0
        self._position: int | None = None
        """The log position of the kept read transaction, if one is open."""
        self._written_at = -math.inf
        """The loop's time of the last write handed to the log, or commit, that this reader heard of."""
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

    def at_snapshot(self, work: Callable[[Snapshot], T]) -> T | None:
        """`work` on the loop's connection inside a read transaction, at the log position it sees; None
        when it ran past the budget of steps (the caller reads another way). The transaction is kept
        until a write is handed to the log (`writing`) or commits (`follow`), so a run of reads pays
        for it once; while the log is being written, never past the loop iteration that took it, or the
        writer's WAL checkpoint after a commit would find it held (`eventlog.wal`). With nothing
        written it is the latest snapshot."""
        conn = self._inline
        self._checks = 0
        if self._position is None:
            if not conn.in_transaction:
                conn.execute("BEGIN")
                _release_soon(self, self._written_at)
            self._position = conn.execute("SELECT coalesce(max(position), 0) FROM events").fetchone()[0]
        try:
            return work(Snapshot(self, conn, self._position))
        except sqlite3.OperationalError:
            if self._checks <= self._budget:
                raise
            return None

    def release(self) -> None:
        """End the kept read transaction: the next read sees the latest commit."""
        self._position = None
        if self._inline.in_transaction:
            self._inline.execute("COMMIT")

    def writing(self) -> None:
        """A write was handed to the log: let the snapshot go, so none taken before it is held while the
        writer commits and checkpoints; those taken meanwhile go at the end of their iteration."""
        self._written_at = asyncio.get_running_loop().time()
        self.release()

    async def follow(self, events: object, head: int) -> None:
        """A commit follower, the first: each commit releases the kept snapshot before its callers are
        answered and before any other follower lets the loop read (a page read then is the commit's)."""
        self.writing()

    def unbounded(self) -> None:
        """Lift the budget of steps for the rest of the current `at_snapshot` (a one-off long read)."""
        self._checks = UNBOUNDED

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

    def execute(self, sql: str, parameters: Iterable[Any] = ()):
        """A cursor on the thread, for reads that stream their rows (`async with reader.execute(...)`)."""
        return self._threaded.execute(sql, tuple(parameters))

    async def close(self) -> None:
        self._inline.close()
        await self._threaded.close()


def _release_soon(reader: Reader, written_at: float) -> None:
    """Release `reader`'s snapshot at the end of the loop iteration while the log is being written (a
    write less than `WRITING_SECONDS` ago); otherwise, and outside a loop, at the next write."""
    with contextlib.suppress(RuntimeError):
        loop = asyncio.get_running_loop()
        if loop.time() - written_at < WRITING_SECONDS:
            loop.call_soon(reader.release)


class Snapshot:
    """The loop's connection in a read transaction, and the log position it sees."""

    __slots__ = ("conn", "position", "_reader")

    def __init__(self, reader: Reader, conn: sqlite3.Connection, position: int) -> None:
        self._reader, self.conn, self.position = reader, conn, position

    def unbounded(self) -> None:
        self._reader.unbounded()
