"""Group commit: one writer task appends every request's events in shared transactions.

Each request is a `decide` function run inside the writer's transaction (so it sees a consistent
state and can check rules across streams) that returns the events to append. A batch of requests
shares one COMMIT; each request sits in its own SAVEPOINT, so one that fails (a stale expected
version, a broken rule) leaves nothing behind while the others commit. Projections are applied in
the same transaction, and a caller is answered only once the COMMIT is durable and the followers of
commits (in-memory projections) have seen it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar, cast

import msgspec

from ..clock import Clock
from ..domain.events import Catalogue
from . import store
from .compression import Packer
from .connection import Connection, LogConnection, carried
from .hashing import canonical_bytes, chain_hash
from .records import ANY_VERSION, ConcurrencyError, LogClosed, Metadata, NewEvent, RecordedEvent
from .wal import WalBound

Decide = Callable[[Connection], Iterable[NewEvent]]
_encode = msgspec.json.encode
T = TypeVar("T")


class Decision(Generic[T]):
    """A decide function that keeps what it decided beside its events (the documents a change leaves),
    so its caller answers from inside the transaction, never from a read after it, which a later
    request of the same batch may already have changed. `result` is set when the writer runs it:
    read it once `transact` has returned."""

    def __init__(self, decide: Callable[[Connection], tuple[Iterable[NewEvent], T]]) -> None:
        self._decide = decide
        self._decided: tuple[T] | None = None

    def __call__(self, conn: Connection) -> Iterable[NewEvent]:
        events, result = self._decide(conn)
        self._decided = (result,)
        return events

    @property
    def result(self) -> T:
        if self._decided is None:
            raise RuntimeError("the decision has not run")
        return self._decided[0]


class ProjectionSink(Protocol):
    """What the writer needs from the projections kept in the log's database: the catalogue of the
    events it writes, apply an event inside the transaction, record a checkpoint."""

    catalogue: Catalogue

    def apply(self, conn: Connection, event: RecordedEvent) -> None: ...

    def gather(self) -> None:
        """A request's events follow: changes to one row may be added up until `gathered`."""

    def gathered(self, conn: Connection) -> None:
        """The request's events are applied: write what was added up."""

    def forget(self, conn: Connection) -> None:
        """The request failed: drop what was added up."""

    def checkpoint(self, conn: Connection, position: int) -> None: ...


AfterCommit = Callable[[list[RecordedEvent], int], Awaitable[None]]
"""Called in the event loop after each durable commit, before the batch's callers are answered, with
the kept events and the new head position (bulk appends keep no events: followers read the gap)."""


@dataclass
class _Request:
    decide: Decide
    meta: Metadata
    keep: bool
    future: asyncio.Future[list[RecordedEvent]] = field(repr=False)


class GroupCommitWriter:
    """Owns the write connection and the one thread that uses it."""

    def __init__(self, conn: Connection, sink: ProjectionSink, clock: Clock, after_commit: AfterCommit,
                 *, max_batch: int = 512) -> None:  # fmt: skip
        self._conn = conn
        self._sink = sink
        self._clock = clock
        self._after_commit = after_commit
        self._max_batch = max_batch
        self._queue: asyncio.Queue[_Request | None] = asyncio.Queue()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="eventlog-writer")
        self._position, self._hash = store.head(conn)
        self._packer = self._make_packer(conn)
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self.batches = 0

    @property
    def position(self) -> int:
        return self._position

    @property
    def running(self) -> bool:
        """True while appends are taken (the writer's task is alive and not closing)."""
        return self._task is not None and not self._task.done() and not self._closing

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="eventlog-writer")

    async def submit(self, decide: Decide, meta: Metadata, *, keep: bool = True) -> list[RecordedEvent]:
        """Append what `decide` returns; with `keep=False` (bulk loads) the recorded events are neither
        returned nor passed to the commit followers, so memory stays flat whatever the size."""
        if self._task is None or self._task.done() or self._closing:
            raise LogClosed("the event log writer is not running")
        future: asyncio.Future[list[RecordedEvent]] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Request(decide, meta, keep, future))
        return await asyncio.shield(future)

    async def run_sync(self, work: Callable[[Connection], Any]) -> Any:
        """Run `work(conn)` on the writer thread (for maintenance such as rebuilds)."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, work, self._conn)

    async def close(self) -> None:
        """Finish every queued append, then stop; appends submitted from now on are refused."""
        self._closing = True
        if self._task is not None:
            self._queue.put_nowait(None)
            await self._task
            self._task = None
        self._executor.shutdown(wait=True)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        stopping = False
        while not stopping:
            first = await self._queue.get()
            if first is None:
                break
            batch = [first]
            while len(batch) < self._max_batch and not self._queue.empty():
                nxt = self._queue.get_nowait()
                if nxt is None:
                    stopping = True
                    break
                batch.append(nxt)
            head = self._position
            results = await loop.run_in_executor(self._executor, self._write_batch, batch)
            self.batches += 1
            if self._position != head:
                committed = [e for result in results if not isinstance(result, BaseException) for e in result]
                await self._after_commit(committed, self._position)
            for request, result in zip(batch, results, strict=True):
                if request.future.done():
                    continue
                if isinstance(result, BaseException):
                    request.future.set_exception(result)
                else:
                    request.future.set_result(result)

    def _make_packer(self, conn: Connection) -> Packer:
        sqlite = cast(LogConnection, conn)  # this writer's (a PostgreSQL log's writer has its own)
        self.wal = WalBound(sqlite)
        return Packer(sqlite, carried(sqlite).dictionaries)

    def _begin(self, conn: Connection) -> None:
        """Open the batch's transaction (a store that other processes write also reads the head here)."""
        conn.execute("BEGIN IMMEDIATE")

    def _sent(self, conn: Connection) -> None:
        """A request's statements are all sent (a store that sends them ahead of their answers learns
        here whether one failed, so the request's savepoint takes it back)."""

    def _undo(self, conn: Connection, failure: Exception) -> Exception:
        """Take a failed request back to its savepoint; what its caller is answered with."""
        conn.execute("ROLLBACK TO request")
        conn.execute("RELEASE request")
        return failure

    def _version(self, conn: Connection, new: NewEvent) -> int:
        """The version a stream is at, before a new event of it."""
        return store.stream_version(conn, new.stream)

    def _abandon(self, conn: Connection) -> None:
        """Roll the batch back (it failed as a whole)."""
        if conn.in_transaction:
            conn.execute("ROLLBACK")

    def _commit(self, conn: Connection) -> None:
        conn.execute("COMMIT")

    def _appended(self, conn: Connection, position: int) -> None:
        """An event was appended at `position` (the SQLite log trains its next dictionary in time)."""
        self._packer.appended(cast(LogConnection, conn), position)

    def _committed(self, conn: Connection) -> None:
        """After a durable commit, on the writer's thread."""
        self.wal.committed(cast(LogConnection, conn))

    def _write_batch(self, batch: list[_Request]) -> list[list[RecordedEvent] | BaseException]:
        conn = self._conn
        start_position, start_hash = self._position, self._hash
        sink, packer = self._sink, self._packer
        packed_at_start = packer.mark()
        results: list[list[RecordedEvent] | BaseException] = []
        try:
            self._begin(conn)
            carried(conn).batch_begun()
            for request in batch:
                conn.execute("SAVEPOINT request")
                saved, packed = (self._position, self._hash), packer.mark()
                sink.gather()
                try:
                    appended = self._append(request.decide(conn), request.meta, request.keep)
                    sink.gathered(conn)
                    self._sent(conn)
                    conn.execute("RELEASE request")
                    results.append(appended)
                except Exception as exc:
                    sink.forget(conn)
                    results.append(self._undo(conn, exc))
                    packer.rollback(packed)
                    self._position, self._hash = saved
            if self._position != start_position:
                sink.checkpoint(conn, self._position)
            self._commit(conn)
        except Exception as exc:
            sink.forget(conn)
            self._abandon(conn)
            self._position, self._hash = start_position, start_hash
            packer.rollback(packed_at_start)
            return [exc] * len(batch)
        self._committed(conn)
        return results

    def _append(self, events: Iterable[NewEvent], meta: Metadata, keep: bool = True) -> list[RecordedEvent]:
        conn = self._conn
        meta_bytes = _encode(meta)
        recorded_at = self._clock.now().strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        catalogue = self._sink.catalogue
        out: list[RecordedEvent] = []
        for new in events:
            current = self._version(conn, new)
            if new.expected_version != ANY_VERSION and new.expected_version != current:
                raise ConcurrencyError(new.stream, new.expected_version, current)
            type_, schema, data_bytes = catalogue.written(new.event)
            event = catalogue.read(type_, schema, data_bytes)  # as every later read of the log gives it
            position, version = self._position + 1, current + 1
            canonical = canonical_bytes(
                position, new.stream, version, type_, schema, recorded_at, data_bytes, meta_bytes
            )
            digest = chain_hash(self._hash, canonical)
            conn.execute(
                f"INSERT INTO events ({store.COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    position,
                    new.stream,
                    version,
                    type_,
                    schema,
                    self._packer.pack(data_bytes),
                    meta_bytes,
                    recorded_at,
                    digest,
                ),
            )
            self._position, self._hash = position, digest
            self._appended(conn, position)
            recorded = RecordedEvent(
                position=position,
                stream=new.stream,
                version=version,
                type=type_,
                schema=schema,
                event=event,
                meta=meta,
                recorded_at=recorded_at,
                hash=digest.hex(),
            )
            self._sink.apply(conn, recorded)
            if keep:
                out.append(recorded)
        return out
