"""In-memory projections: read models kept in the server's memory, folded from the log.

Live calls, queue waiting lists, the session index and the list page cache are this one kind. Each
is rebuilt from the log (never from tables) when the app starts, then follows every durable commit
before the commit's callers are answered, so a request sees its own writes. The runner tracks the
position it has applied up to: an event is applied once, in order, and a gap (a bulk load keeps no
events) is read from the log before going on. A projection that raises is logged and reported
(health), and the others go on.

`verify` folds fresh copies from the log and compares their `state()` with the live ones.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

from ..eventlog.records import RecordedEvent

log = logging.getLogger(__name__)


class MemoryProjection:
    """A read model in memory. Subclasses set `name` and `handles` (None: every event type), and
    implement `reset`, `apply` (no I/O) and `state` (a value equal for equal models; None when the
    model is not compared, such as a cache). `history = False` means the model needs no past (a
    cache): it starts empty at the head of the log, and empty again after a gap (a bulk load)."""

    name: ClassVar[str]
    handles: ClassVar[frozenset[str] | None] = None
    history: ClassVar[bool] = True

    def reset(self) -> None:
        raise NotImplementedError

    def apply(self, event: RecordedEvent) -> None:
        raise NotImplementedError

    def state(self) -> Any:
        return None

    def fresh(self) -> MemoryProjection:
        """An empty model of the same declaration, for `verify`."""
        return type(self)()


P = TypeVar("P", bound=MemoryProjection)


class LogReader(Protocol):
    """What the runner reads the log through."""

    @property
    def position(self) -> int: ...

    def chunks(self, after: int = 0, *, until: int | None = None, types: Sequence[str] | None = None,
               size: int = ...) -> AsyncIterator[list[RecordedEvent]]: ...  # fmt: skip


@dataclass(frozen=True)
class Difference:
    projection: str
    position: int

    def __str__(self) -> str:
        return f"in-memory projection {self.projection!r} differs from a fresh replay at position {self.position}"


class MemoryProjections:
    """The in-memory projections of one app, the position they are applied up to, and their failures."""

    def __init__(self, projections: Iterable[MemoryProjection]) -> None:
        self.all = list(projections)
        self.position = 0
        self.failures: dict[str, str] = {}
        self._reader: LogReader | None = None

    @property
    def compared(self) -> list[MemoryProjection]:
        """The projections `verify` compares: those folded from history that have a state to compare."""
        return [p for p in self.all if p.history and p.state() is not None]

    def __getitem__(self, kind: type[P]) -> P:
        """The projection of class `kind` (each class appears once)."""
        return next(p for p in self.all if type(p) is kind)

    async def attach(self, reader: LogReader) -> None:
        """Fold the projections with history from the log up to its head, and read gaps from it later."""
        self._reader = reader
        for projection in self.all:
            projection.reset()
        await self._fold([p for p in self.all if p.history], reader, reader.position)

    async def follow(self, events: list[RecordedEvent], head: int) -> None:
        """The commit follower: apply what was committed, reading any gap from the log first."""
        if head <= self.position:
            return
        if events and events[0].position == self.position + 1 and len(events) == head - self.position:
            self._apply(self.all, events)
        else:
            assert self._reader is not None, "attach() first"
            for projection in self.all:
                if not projection.history:
                    projection.reset()
            await self._fold([p for p in self.all if p.history], self._reader, head)

    async def verify(self, reader: LogReader) -> Difference | None:
        """Fold fresh copies from the log up to the live position and compare their states."""
        compared = self.compared
        fresh = MemoryProjections(p.fresh() for p in compared)
        while fresh.position < self.position:
            await fresh._fold(fresh.all, reader, self.position)
        for live, copy in zip(compared, fresh.all, strict=True):
            if live.state() != copy.state():
                return Difference(live.name, self.position)
        return None

    async def _fold(self, targets: list[MemoryProjection], reader: LogReader, until: int) -> None:
        """Apply the events after this runner's position up to `until`, read from the log in chunks."""
        async for chunk in reader.chunks(self.position, until=until, types=_types_of(targets)):
            self._apply(targets, chunk)
        self.position = max(self.position, until)

    def _apply(self, targets: list[MemoryProjection], events: Iterable[RecordedEvent]) -> None:
        for event in events:
            if event.position <= self.position:
                continue
            for projection in targets:
                if projection.handles is not None and event.type not in projection.handles:
                    continue
                try:
                    projection.apply(event)
                except Exception as exc:
                    log.exception("in-memory projection %s failed at position %s", projection.name, event.position)
                    self.failures[projection.name] = f"{type(exc).__name__} at position {event.position}"
            self.position = event.position


def _types_of(projections: Iterable[MemoryProjection]) -> list[str] | None:
    """The event types a fold must read: None (all) when one of the projections takes every type."""
    types: set[str] = set()
    for projection in projections:
        if projection.handles is None:
            return None
        types |= projection.handles
    return sorted(types)
