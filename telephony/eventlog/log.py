"""The event log facade the app uses: append (group commit), read and subscribe."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from ..clock import Clock
from ..projections.runner import Projections
from . import store
from .records import Metadata, NewEvent, RecordedEvent
from .writer import Decide, GroupCommitWriter

LOG_FILE = "events.db"


class EventLog:
    """One SQLite log with its projections; open with `await EventLog.open(...)`, then `close()`."""

    def __init__(self, path: Path, conn: sqlite3.Connection, projections: Projections, writer: GroupCommitWriter):
        self.path = path
        self.projections = projections
        self._conn = conn
        self._writer = writer
        self._subscribers: set[asyncio.Queue[RecordedEvent]] = set()
        writer.on_commit(self._publish)

    @classmethod
    async def open(
        cls,
        data_dir: Path,
        projections: Projections,
        clock: Clock,
        *,
        synchronous: str = "FULL",
        max_batch: int = 512,
        progress: bool = True,
    ) -> EventLog:
        data_dir.mkdir(parents=True, exist_ok=True)
        path = data_dir / LOG_FILE
        conn = store.connect(path, synchronous=synchronous)
        await asyncio.to_thread(projections.prepare, conn, progress=progress)
        writer = GroupCommitWriter(conn, projections, clock, max_batch=max_batch)
        writer.start()
        return cls(path, conn, projections, writer)

    @property
    def position(self) -> int:
        """The position of the last durable event."""
        return self._writer.position

    async def append(self, events: Sequence[NewEvent], meta: Metadata | None = None) -> list[RecordedEvent]:
        """Append `events` atomically; answered once they are durable and projected."""
        return await self._writer.submit(lambda _conn: events, meta or Metadata())

    async def transact(self, decide: Decide, meta: Metadata | None = None, *, keep: bool = True) -> list[RecordedEvent]:
        """Run `decide(conn)` inside the writer's transaction and append the events it returns
        (`keep=False` for bulk loads: nothing is returned or published, see the writer)."""
        return await self._writer.submit(decide, meta or Metadata(), keep=keep)

    async def query(self, work):
        """Run `work(conn)` on the writer's thread and connection (startup loads, maintenance)."""
        return await self._writer.run_sync(work)

    async def read(self, **filters) -> list[RecordedEvent]:
        """Events in position order (filters as `store.raw_rows`), read on the writer's thread."""
        upcasters = self.projections.upcasters
        return await self._writer.run_sync(lambda conn: list(store.read_events(conn, upcasters, **filters)))

    async def read_stream(self, stream: str) -> list[RecordedEvent]:
        return await self.read(stream=stream)

    async def subscribe(self, after: int | None = None) -> AsyncIterator[RecordedEvent]:
        """Every event after `after` (default: from now on), then new ones as they commit."""
        queue: asyncio.Queue[RecordedEvent] = asyncio.Queue()
        self._subscribers.add(queue)
        try:
            last = self.position if after is None else after
            for event in await self.read(after=last):
                last = event.position
                yield event
            while True:
                event = await queue.get()
                if event.position > last:
                    last = event.position
                    yield event
        finally:
            self._subscribers.discard(queue)

    def on_commit(self, listener) -> None:
        self._writer.on_commit(listener)

    def _publish(self, events: list[RecordedEvent]) -> None:
        for queue in self._subscribers:
            for event in events:
                queue.put_nowait(event)

    async def close(self) -> None:
        await self._writer.close()
        self._conn.close()
