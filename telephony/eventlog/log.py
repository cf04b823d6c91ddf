"""The event log facade the app uses: append (group commit), read in chunks, follow.

Writes go through the group-commit writer and its thread. Reads of the log itself (catch-up of
followers, `read`, `subscribe`) run on a second thread with its own read-only connection, one chunk
per query, so no follower holds the writer up or loads the whole tail at once.

After each durable commit, the commit followers (in-memory projections) see the new events before
the batch's callers are answered; a follower that raises is logged and counted, never stops the
writer. Then the head moves, waking everything that waits for new events (`wait_beyond`).

The last `RECENT_EVENTS` committed events are kept as the writer recorded them: a reader of a tail
they cover (a reactor woken by a commit) takes them from memory, with no query and no decoding.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import islice
from pathlib import Path
from typing import Any, ClassVar, Protocol

from ..clock import Clock
from . import damage, store
from .connection import Connection, carried
from .records import Metadata, NewEvent, RecordedEvent
from .writer import Decide, GroupCommitWriter, ProjectionSink

LOG_FILE = "events.db"
READ_CHUNK = 1000
RECENT_EVENTS = 2048
log = logging.getLogger(__name__)
CommitFollower = Callable[[list[RecordedEvent], int], Awaitable[None]]


class Projections(ProjectionSink, Protocol):
    """What the log needs from the projections in its database: bring them up to date at open, apply
    events inside the writer's transaction, record checkpoints, and the catalogue the events are read with."""

    def prepare(self, conn: Connection, *, progress: bool = True) -> list[str]: ...


async def ready(conn: Any, projections: Projections, progress: bool) -> None:
    """Make the log on `conn` ready to open: its last event checked (`damage.check_head`: nothing is
    chained onto a damaged head) and its projections brought up to date; `conn` closed when it cannot."""
    try:
        await asyncio.to_thread(damage.check_head, conn, projections.catalogue)
        await asyncio.to_thread(projections.prepare, conn, progress=progress)
    except BaseException:
        conn.close()
        raise


class EventLog:
    """One SQLite log with its projections; open with `await EventLog.open(...)`, then `close()`."""

    def __init__(self, path: Path, conn: Connection, projections: Projections, clock: Clock,
                 max_batch: int) -> None:  # fmt: skip
        self.path = path
        self.projections = projections
        self._conn = conn
        self._head = store.head(conn)[0]
        self._moved = asyncio.Event()
        self._followers: list[tuple[str, CommitFollower]] = []
        self._recent: deque[RecordedEvent] = deque(maxlen=RECENT_EVENTS)
        """The last events committed, in order up to the head, as the writer recorded them (decoded from
        their stored JSON, like any read): shared with every reader, which must not change them."""
        self.follower_failures: dict[str, str] = {}
        self._writer = self._writer_class(conn, projections, clock, self._after_commit, max_batch=max_batch)
        self._reads = ThreadPoolExecutor(max_workers=1, thread_name_prefix="eventlog-reader")
        self._read_conn = self._connect_reader()

    _writer_class = GroupCommitWriter
    shared: ClassVar[bool] = False
    """Whether other processes append to this log too: then its head is read from the store
    (`catch_up`); else this process makes every commit, and its followers are at the head already."""

    def _connect_reader(self) -> Connection:
        """The reading thread's own connection (sharing the writer's dictionaries: the log's)."""
        return store.connect(self.path, readonly=True, dictionaries=carried(self._conn).dictionaries)

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
        await ready(conn, projections, progress)
        opened = cls(path, conn, projections, clock, max_batch)
        opened._writer.start()
        return opened

    @property
    def position(self) -> int:
        """The position of the last durable event that the commit followers have seen."""
        return self._head

    @property
    def writing(self) -> bool:
        """True while appends are taken."""
        return self._writer.running

    # --- writing -----------------------------------------------------------------------------------

    async def append(self, events: Sequence[NewEvent], meta: Metadata | None = None) -> list[RecordedEvent]:
        """Append `events` atomically; answered once they are durable and projected."""
        return await self._writer.submit(lambda _conn: events, meta or Metadata())

    async def transact(self, decide: Decide, meta: Metadata | None = None, *, keep: bool = True) -> list[RecordedEvent]:
        """Run `decide(conn)` inside the writer's transaction and append the events it returns
        (`keep=False` for bulk loads: nothing is returned, and followers read what they need)."""
        return await self._writer.submit(decide, meta or Metadata(), keep=keep)

    async def query(self, work: Callable[[Connection], Any]) -> Any:
        """Run `work(conn)` on the writer's thread and connection (startup loads, maintenance)."""
        return await self._writer.run_sync(work)

    # --- following ---------------------------------------------------------------------------------

    def follow_commits(self, name: str, follower: CommitFollower) -> Callable[[], None]:
        """Have `follower(events, head)` see every commit before its callers are answered, after the
        followers attached before it (they may let the loop run while they follow). Returns what stops
        it, for a follower that closes before the log (commits may follow until the log does)."""
        entry = (name, follower)
        self._followers.append(entry)
        return lambda: self._followers.remove(entry)

    @property
    def followers(self) -> list[str]:
        """The commit followers' names, in the order they see each commit."""
        return [name for name, _ in self._followers]

    async def _after_commit(self, events: list[RecordedEvent], head: int) -> None:
        self._remember(events, head)
        for name, follower in list(self._followers):
            try:
                await follower(events, head)
            except Exception as exc:
                log.exception("commit follower %s failed at position %s", name, head)
                self.follower_failures[name] = f"{type(exc).__name__} at position {head}"
        self._head = head
        moved, self._moved = self._moved, asyncio.Event()
        moved.set()

    def _remember(self, events: list[RecordedEvent], head: int) -> None:
        """Keep a commit's events with those before it; a commit that kept none (a bulk load) or that
        does not follow on from them starts the memory over."""
        if len(events) != head - self._head or (events and events[0].position != self._head + 1):
            self._recent.clear()
        else:
            self._recent.extend(events)

    async def catch_up(self) -> None:
        """Return once the followers have seen every commit made before the call: at once here, where
        this process makes every commit (a log shared by processes reads the head from its store)."""

    async def wait_beyond(self, position: int) -> None:
        """Return once the head is past `position`."""
        while self._head <= position:
            await self._moved.wait()

    # --- reading -----------------------------------------------------------------------------------

    async def chunks(
        self, after: int = 0, *, until: int | None = None, types: Sequence[str] | None = None, size: int = READ_CHUNK
    ) -> AsyncIterator[list[RecordedEvent]]:
        """Events after `after` up to `until` (default: the head now), `size` at a time, read off the
        writer's thread; memory stays flat however long the tail."""
        until = self._head if until is None else until
        wanted = sorted(types) if types else None
        catalogue = self.projections.catalogue
        if (recent := self._recent) and recent[0].position <= after + 1 and until <= recent[-1].position:
            for chunk in _chunked(self._remembered(after, until, wanted), size):
                yield chunk
            return
        loop = asyncio.get_running_loop()
        while after < until:
            rows = await loop.run_in_executor(self._reads, self._rows_after, after, until, wanted, size)
            if not rows:
                return
            yield [store.decode_row(row, catalogue, conn=self._read_conn) for row in rows]
            after = rows[-1][0]

    def _remembered(self, after: int, until: int, types: list[str] | None) -> list[RecordedEvent]:
        """The kept events after `after` up to `until` (of `types`), as a read of the log gives them."""
        recent = self._recent
        newer = recent[-1].position - until  # walked from the newest end: a tail lies there
        span = list(islice(reversed(recent), newer, newer + max(0, until - after)))
        wanted = frozenset(types) if types else None
        return [event for event in reversed(span) if wanted is None or event.type in wanted]

    def _rows_after(self, after: int, until: int, types: list[str] | None, size: int) -> list[tuple]:
        return store.rows_after(self._read_conn, after, until, types=types, limit=size)

    async def read(self, *, after: int = 0, until: int | None = None, types: Sequence[str] | None = None
                   ) -> list[RecordedEvent]:  # fmt: skip
        """Events in position order (of `types`, up to `until`), gathered from chunks."""
        return [event async for chunk in self.chunks(after, until=until, types=types) for event in chunk]

    async def read_stream(self, stream: str) -> list[RecordedEvent]:
        """One stream's events in version order."""
        catalogue = self.projections.catalogue
        return await asyncio.get_running_loop().run_in_executor(
            self._reads, lambda: list(store.read_events(self._read_conn, catalogue, stream=stream))
        )

    async def subscribe(self, after: int | None = None, *, types: Sequence[str] | None = None
                        ) -> AsyncIterator[RecordedEvent]:  # fmt: skip
        """Every event after `after` (default: from now on), then new ones as they commit, bulk loads
        included; read from the log in chunks, so a slow subscriber costs no memory."""
        last = self._head if after is None else after
        while True:
            head = self._head
            async for chunk in self.chunks(last, until=head, types=types):
                for event in chunk:
                    yield event
            last = head
            await self.wait_beyond(last)

    async def close(self) -> None:
        await self._writer.close()
        self._reads.shutdown(wait=True)
        self._read_conn.close()
        self._conn.close()


def _chunked(events: list[RecordedEvent], size: int) -> list[list[RecordedEvent]]:
    return [events[i : i + size] for i in range(0, len(events), size)]
