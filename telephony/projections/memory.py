"""In-memory projections: read models kept in the server's memory, folded from the log.

Live calls, queue waiting lists, the session index and the list page cache are this one kind. Each
is rebuilt from the log when the app starts (from its last snapshot on, when it keeps one and the
snapshot is still its own: `projections.snapshots`), then follows every durable commit before the
commit's callers are answered, so a request sees its own writes. The runner tracks the
position it has applied up to: an event is applied once, in order, and a gap (a bulk load keeps no
events) is read from the log before going on. A projection that raises is logged and reported
(health), and the others go on.

`verify` folds fresh copies from the log and compares their `state()` with the live ones.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

import msgspec

from ..domain.events import Event, tags_of
from ..eventlog.records import RecordedEvent

log = logging.getLogger(__name__)


class MemoryProjection:
    """A read model in memory. Subclasses set `name` and `handles` (the event classes; None: every
    type), and implement `reset`, `apply` (no I/O; matching on the event's type) and `state` (a value
    equal for equal models; None when the model is not compared, such as a cache). `history = False`
    means the model needs no past (a cache): it starts empty at the head of the log, and empty again
    after a gap (a bulk load).

    A model that sets `kept_as` (the type of what `snapshot` returns, for msgspec) is saved at times
    and restored at the next start, which then folds only what followed. `version` names the meaning
    of `apply` and of the snapshot: bump it when either changes, and older snapshots are left unused
    (the `fingerprint` also holds the name, the event types and `kept_as`)."""

    name: ClassVar[str]
    handles: ClassVar[frozenset[type[Event]] | None] = None
    history: ClassVar[bool] = True
    version: ClassVar[int] = 1
    kept_as: ClassVar[Any] = None

    @property
    def fingerprint(self) -> str:
        declared = (type(self).__qualname__, self.name, sorted(self.tags or ()), repr(self.kept_as))
        return f"{self.version}:{hashlib.sha256(repr(declared).encode()).hexdigest()[:16]}"

    @property
    def tags(self) -> frozenset[str] | None:
        """The stored types of the events it handles (None: every type)."""
        return tags_of(self.handles)

    def snapshot(self) -> Any:
        """The model as a value of type `kept_as` (only called when it is set)."""
        raise NotImplementedError

    def restore(self, kept: Any) -> None:
        """Become the model `snapshot` returned `kept` from (only called after `reset`)."""
        raise NotImplementedError

    def pack(self) -> bytes:
        """The snapshot, encoded."""
        return msgspec.msgpack.encode(self.snapshot())

    def unpack(self, packed: bytes) -> None:
        """Become the model `packed` was taken of; a snapshot that cannot be read leaves the model
        empty and raises ValueError."""
        self.reset()
        try:
            self.restore(msgspec.msgpack.decode(packed, type=self.kept_as))
        except (msgspec.DecodeError, ValueError, TypeError, KeyError) as exc:
            self.reset()
            raise ValueError(f"unreadable snapshot of {self.name}: {exc}") from exc

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
    what: str = "differs from a fresh replay"

    def __str__(self) -> str:
        return f"in-memory projection {self.projection!r} {self.what} at position {self.position}"


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

    @property
    def folded(self) -> list[MemoryProjection]:
        """The projections folded from the log's history (all but caches)."""
        return [p for p in self.all if p.history]

    @property
    def kept(self) -> list[MemoryProjection]:
        """The projections that keep snapshots: with history, `kept_as` and no failure."""
        return [p for p in self.folded if p.kept_as is not None and p.name not in self.failures]

    async def attach(self, reader: LogReader, restored: Mapping[str, int] | None = None) -> None:
        """Fold the projections with history from the log up to its head, and read gaps from it later.
        `restored` names the projections already restored from a snapshot, with its position: they
        take only the events after it."""
        self._reader = reader
        since = dict(restored or {})
        for projection in self.all:
            if projection.name not in since:
                projection.reset()
        self.position = min((since.get(p.name, 0) for p in self.folded), default=0)
        await self.fold(self.folded, reader, reader.position, since)

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
            await self.fold(self.folded, self._reader, head)

    async def verify(self, reader: LogReader) -> Difference | None:
        """Fold fresh copies from the log up to the live position and compare their states."""
        compared = self.compared
        fresh = MemoryProjections(p.fresh() for p in compared)
        while fresh.position < self.position:
            await fresh.fold(fresh.all, reader, self.position)
        for live, copy in zip(compared, fresh.all, strict=True):
            if live.state() != copy.state():
                return Difference(live.name, self.position)
        for live in self.kept:
            if not restores(live, live.pack()):
                return Difference(live.name, self.position, "is not restored by its own snapshot")
        return None

    async def fold(self, targets: list[MemoryProjection], reader: LogReader, until: int,
                   since: Mapping[str, int] | None = None) -> None:  # fmt: skip
        """Apply the events after this runner's position up to `until`, read from the log in chunks;
        a projection named in `since` takes only those after its position there."""
        async for chunk in reader.chunks(self.position, until=until, types=_types_of(targets)):
            self._apply(targets, chunk, since)
        self.position = max(self.position, until)

    def _apply(self, targets: list[MemoryProjection], events: Iterable[RecordedEvent],
               since: Mapping[str, int] | None = None) -> None:  # fmt: skip
        taking = [(projection, projection.tags) for projection in targets]
        for event in events:
            if event.position <= self.position:
                continue
            for projection, tags in taking:
                if tags is not None and event.type not in tags:
                    continue
                if since and event.position <= since.get(projection.name, 0):
                    continue
                try:
                    projection.apply(event)
                except Exception as exc:
                    log.exception("in-memory projection %s failed at position %s", projection.name, event.position)
                    self.failures[projection.name] = f"{type(exc).__name__} at position {event.position}"
            self.position = event.position


def restores(projection: MemoryProjection, packed: bytes) -> bool:
    """Whether the snapshot `packed` restores the state `projection` has."""
    copy = projection.fresh()
    try:
        copy.unpack(packed)
    except ValueError:
        return False
    return copy.state() == projection.state()


def _types_of(projections: Iterable[MemoryProjection]) -> list[str] | None:
    """The event types a fold must read: None (all) when one of the projections takes every type."""
    types: set[str] = set()
    for projection in projections:
        if (tags := projection.tags) is None:
            return None
        types |= tags
    return sorted(types)
