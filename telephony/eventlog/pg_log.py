"""The event log on PostgreSQL: the same facade as the SQLite `EventLog`, shared by several processes.

Appends go through the same group-commit writer, on a psycopg connection: each batch takes the commit
lock (`pg_store.lock`), reads the head, appends, and says its new head with `NOTIFY` as it commits.
Every process listens: a commit of another process (or a gap before its own) is read from the log by
position and handed to the commit followers (in-memory projections) in order, so each process's
followers see every event once, in position order, whichever process wrote it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from pathlib import Path
from typing import Any

import psycopg

from ..clock import Clock
from . import pg_store, store
from .compression import Packer
from .log import EventLog, Projections, ready
from .pg_connection import PgConnection
from .records import RecordedEvent
from .writer import GroupCommitWriter

log = logging.getLogger(__name__)


class _Plain(Packer):
    """Stores every event's JSON as it is: PostgreSQL compresses large values itself."""

    def __init__(self) -> None:
        self._compressor, self._next_training = None, sys.maxsize


class PgGroupCommitWriter(GroupCommitWriter):
    """Group commit whose batches take the commit lock and read the head another process may have moved."""

    def _make_packer(self, conn: Any) -> Packer:
        return _Plain()

    def _begin(self, conn: Any) -> None:
        conn.execute("BEGIN")
        pg_store.lock(conn)
        self._position, self._hash = store.head(conn)

    def _commit(self, conn: Any) -> None:
        pg_store.notify(conn, self._position)
        conn.execute("COMMIT")

    def _committed(self, conn: Any) -> None:
        pass


class PgEventLog(EventLog):
    """One PostgreSQL log with its projections; open with `await PgEventLog.open_url(url, ...)`. Its
    `path` is empty (no file holds it): `url` says where it lies."""

    _writer_class = PgGroupCommitWriter

    def __init__(self, url: str, conn: Any, projections: Projections, clock: Clock, max_batch: int) -> None:
        self.url = url
        super().__init__(Path(), conn, projections, clock, max_batch)
        self._following = asyncio.Lock()
        self._listener: asyncio.Task[None] | None = None

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
                    await self._after_commit([], int(notice.payload))
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
        reach them through the listener)."""
        head = await asyncio.get_running_loop().run_in_executor(self._reads, lambda: store.head(self._read_conn)[0])
        await self.wait_beyond(head - 1)

    async def close(self) -> None:
        await self._writer.close()
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        self._reads.shutdown(wait=True)
        self._read_conn.close()
        self._conn.close()
