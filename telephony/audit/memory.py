"""The in-memory projections folded afresh from a log, and compared with their stored snapshots."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

from ..eventlog import RecordedEvent, store
from ..eventlog.connection import Connection
from ..projections import snapshots
from ..projections.memory import MemoryProjections, restores
from .chain import Problem


class _LogFile:
    """A closed log read as in-memory projections read a live one: in chunks, up to its head."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self.position = store.head(conn)[0]

    async def chunks(self, after: int = 0, *, until: int | None = None, types: Sequence[str] | None = None,
                     size: int = 1000) -> AsyncIterator[list[RecordedEvent]]:  # fmt: skip
        for rows in store.raw_chunks(self._conn, after=after, until=until, types=list(types or ()), chunk=size):
            yield [store.decode_row(row, conn=self._conn) for row in rows]


def fold_memory(conn: Connection, memory: MemoryProjections, kept: bool = True) -> Problem | None:
    """Fold the in-memory projections from the log: one that cannot replay it is a problem, and so is
    a stored snapshot that differs from the fold at its position (`kept`: the log may hold some). Read
    inside a transaction of `conn`, the log and the snapshots are those of one moment."""
    return asyncio.run(_fold_comparing(conn, memory, snapshots.load(conn, memory.kept) if kept else []))


async def _fold_comparing(conn: Connection, memory: MemoryProjections,
                          kept: list[snapshots.Snapshot]) -> Problem | None:  # fmt: skip
    reader = _LogFile(conn)
    head = reader.position
    stops = sorted({snapshot.position for snapshot in kept} | {head})
    reader.position = stops[0]
    await memory.attach(reader)
    by_name = {projection.name: projection for projection in memory.all}
    for stop in stops:
        await memory.fold(memory.folded, reader, stop)
        for name, failure in memory.failures.items():
            return Problem(None, f"in-memory projection {name!r} failed to fold the log: {failure}", at=head)
        for snapshot in kept:
            if snapshot.position == stop and not restores(by_name[snapshot.name], snapshot.state):
                return Problem(stop, f"the snapshot of in-memory projection {snapshot.name!r} differs from a fold")
    return None
