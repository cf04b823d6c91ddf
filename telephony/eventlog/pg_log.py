"""The event log on PostgreSQL: the same facade as the SQLite `EventLog`, shared by several processes.

Appends go through the same group-commit writer (`pg_writer`), on a psycopg connection: each batch takes the commit
lock (`pg_store.lock`), reads the head, appends, and says its new head with `NOTIFY` as it commits.
Every process listens: a commit of another process (or a gap before its own) is read from the log by
position and handed to the commit followers (in-memory projections) in order, so each process's
followers see every event once, in position order, whichever process wrote it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import psycopg

from ..clock import Clock
from . import pg_store, store
from .log import EventLog, Projections, ready
from .pg_connection import PgConnection
from .pg_writer import PgGroupCommitWriter
from .records import RecordedEvent

log = logging.getLogger(__name__)


class _Read:
    """A read of the head that begins once the one before it has ended."""

    def __init__(self, before: _Read | None, read: Callable[[], Awaitable[int]]) -> None:
        self.begun = False
        self.task = asyncio.ensure_future(self._run(before, read))

    async def _run(self, before: _Read | None, read: Callable[[], Awaitable[int]]) -> int:
        if before is not None:
            with contextlib.suppress(Exception):
                await before.task
        self.begun = True
        return await read()


class PgEventLog(EventLog):
    """One PostgreSQL log with its projections; open with `await PgEventLog.open_url(url, ...)`. Its
    `path` is empty (no file holds it): `url` says where it lies."""

    _writer_class = PgGroupCommitWriter
    _writer: PgGroupCommitWriter
    shared = True

    def __init__(self, url: str, conn: Any, projections: Projections, clock: Clock, max_batch: int) -> None:
        self.url = url
        super().__init__(Path(), conn, projections, clock, max_batch)
        self._following = asyncio.Lock()
        self._listener: asyncio.Task[None] | None = None
        self._head_read: _Read | None = None

    @classmethod
    async def open_url(
        cls, url: str, projections: Projections, clock: Clock, *, max_batch: int = 512, progress: bool = True
    ) -> PgEventLog:
        conn: Any = await asyncio.to_thread(pg_store.connect, url)
        await ready(conn, projections, progress)
        opened = cls(url, conn, projections, clock, max_batch)
        listening = await psycopg.AsyncConnection.connect(url, autocommit=True)
        await listening.execute(f"LISTEN {pg_store.CHANNEL}")
        opened._listener = asyncio.get_running_loop().create_task(opened._listen(listening), name="eventlog-listen")
        opened._head = await asyncio.to_thread(lambda: store.head(opened._read_conn)[0])  # commits before LISTEN
        opened._writer.start()
        return opened

    def _connect_reader(self) -> Any:
        return PgConnection(self.url)

    async def _listen(self, listening: psycopg.AsyncConnection) -> None:
        """Follow the heads other processes' commits say, until the log closes."""
        try:
            async for notice in listening.notifies():
                with contextlib.suppress(ValueError):
                    if (head := int(notice.payload)) > self._writer.committed:  # the writer follows its own
                        await self._after_commit([], head)
        finally:
            await listening.close()

    async def _after_commit(self, events: list[RecordedEvent], head: int) -> None:
        """Bring the followers to `head`: with the writer's own events when they follow on from what
        they saw, else with the events read from the log in chunks (another process wrote between)."""
        async with self._following:
            if head <= self._head:
                return
            if events and events[0].position == self._head + 1 and events[-1].position == head:
                await super()._after_commit(events, head)
                return
            async for chunk in self.chunks(self._head, until=head):
                await super()._after_commit(chunk, chunk[-1].position)

    async def catch_up(self) -> None:
        """Wait for the followers to reach the head the database has now (other processes' commits
        reach them through the listener). The head is read by a read that begins after this call; the
        callers that come while one read is under way share the next (one read per round trip under
        load, not one per request)."""
        if self._head_read is None or self._head_read.begun:
            self._head_read = _Read(self._head_read, self._read_head)
        await self.wait_beyond(await asyncio.shield(self._head_read.task) - 1)

    async def _read_head(self) -> int:
        return await asyncio.get_running_loop().run_in_executor(self._reads, lambda: store.head(self._read_conn)[0])

    async def close(self) -> None:
        await self._writer.close()
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        self._reads.shutdown(wait=True)
        self._read_conn.close()
        self._conn.close()
