"""Snapshots of the in-memory projections, so that a start folds only the events that followed them.

Live calls, queue records, sessions and the like are folded from the log at every start; without
snapshots that fold grows with the whole call history. A projection that declares `kept_as` is saved
with the position it was taken at, the hash the log holds for that event and its `fingerprint`: at
shutdown and each time `SAVE_EVERY` more events have been applied. A start restores a snapshot only
when its fingerprint is the projection's and the log holds the same hash at its position (a log cut,
copied or replaced since has another or none), then folds the events after it; otherwise the
projection folds from the beginning. Snapshots are no part of the log: copies and replays leave them
behind, and `verify` folds from the beginning and compares every snapshot with that fold.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..eventlog.connection import BYTES, Connection, begin, has_table
from .memory import MemoryProjection, MemoryProjections

log = logging.getLogger(__name__)

SAVE_EVERY = 50_000
"""Events applied between two snapshots while the server runs (shutdown saves one too)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS memory_snapshots (
    name        TEXT    PRIMARY KEY,
    fingerprint TEXT    NOT NULL,
    position    INTEGER NOT NULL,
    hash        {bytes} NOT NULL,
    state       {bytes} NOT NULL
)
"""


@dataclass(frozen=True)
class Snapshot:
    name: str
    fingerprint: str
    position: int
    state: bytes


def take(memory: MemoryProjections) -> list[Snapshot]:
    """Snapshots of the kept projections at the runner's position (encoded now, written later)."""
    return [Snapshot(p.name, p.fingerprint, memory.position, p.pack()) for p in memory.kept]


def save(conn: Connection, snapshots: Iterable[Snapshot]) -> int:
    """Write snapshots in one transaction, each with the hash of the event at its position; the count
    written (none before the first event)."""
    rows = []
    for snapshot in snapshots:
        found = conn.execute("SELECT hash FROM events WHERE position = ?", (snapshot.position,)).fetchone()
        if found is not None:
            rows.append((snapshot.name, snapshot.fingerprint, snapshot.position, found[0], snapshot.state))
    if rows:
        conn.execute(SCHEMA.format(bytes=BYTES[conn.dialect]))
        begin(conn)
        try:
            conn.executemany(
                "INSERT INTO memory_snapshots VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET fingerprint = "
                "excluded.fingerprint, position = excluded.position, hash = excluded.hash, state = excluded.state",
                rows,
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return len(rows)


def load(conn: Connection, projections: Iterable[MemoryProjection]) -> list[Snapshot]:
    """The stored snapshots still valid for these projections (`MemoryProjections.kept`) and this log."""
    if not has_table(conn, "memory_snapshots"):
        return []
    wanted = {p.name: p.fingerprint for p in projections}
    rows = conn.execute(
        "SELECT s.name, s.fingerprint, s.position, s.state FROM memory_snapshots s "
        "JOIN events e ON e.position = s.position AND e.hash = s.hash"
    ).fetchall()
    return [Snapshot(*row) for row in rows if wanted.get(row[0]) == row[1]]


def restore(memory: MemoryProjections, snapshots: Iterable[Snapshot]) -> dict[str, int]:
    """Restore the projections the snapshots are of; the position each restored one stands at. One
    that cannot be decoded is left to fold from the beginning."""
    by_name = {p.name: p for p in memory.all}
    restored: dict[str, int] = {}
    for snapshot in snapshots:
        try:
            by_name[snapshot.name].unpack(snapshot.state)
        except ValueError as exc:
            log.warning("%s; folding it from the log", exc)
            continue
        restored[snapshot.name] = snapshot.position
    return restored


Write = Callable[[Callable[[Connection], Any]], Awaitable[Any]]
"""Runs work on the writer's connection (`EventLog.query`)."""


class Keeper:
    """Saves snapshots of the in-memory projections through `write(work)` (the writer's thread):
    every `every` applied events as a commit follower, and once more at `close`."""

    def __init__(self, memory: MemoryProjections, write: Write, restored: Mapping[str, int],
                 every: int = SAVE_EVERY) -> None:  # fmt: skip
        self._memory, self._write, self._every = memory, write, every
        self._saved_at = min((restored.get(p.name, 0) for p in memory.kept), default=memory.position)
        self._saving: asyncio.Task[None] | None = None

    async def follow(self, events: object, head: int) -> None:
        if self._memory.position - self._saved_at >= self._every and (self._saving is None or self._saving.done()):
            self._saving = asyncio.create_task(self._save(take(self._memory)))

    async def close(self) -> None:
        if self._saving is not None:
            await self._saving
        if self._memory.position > self._saved_at:
            await self._save(take(self._memory))

    async def _save(self, snapshots: list[Snapshot]) -> None:
        position = snapshots[0].position if snapshots else self._memory.position
        try:
            await self._write(lambda conn: save(conn, snapshots))
        except Exception:
            log.exception("saving snapshots of the in-memory projections at position %s failed", position)
        else:
            self._saved_at = max(self._saved_at, position)
