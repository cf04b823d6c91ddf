"""Id allocation: the highest id ever created per kind, so ids are never reused after a delete.

A record's creation (`<kind>.created`) takes its id. `sequence.reserved` {kind, last} raises a kind's
highest id without a record: an import carries the exporting log's, so the ids of records deleted
there are not handed out again. Events of the `claiming` types name the ids they take in `claims`
{kind: [id, ...]}: a call's events claim the ids of the records it leaves.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Any

import msgspec

from ..domain.events import EVENTS, Event, events_of
from ..domain.events.log import SequenceReserved
from ..eventlog import RecordedEvent
from ..eventlog.connection import Connection, carried
from .base import Projection


class _Identified(msgspec.Struct):
    """What a rebuild reads of a `<kind>.created` event's data (see `Projection.replays_json`)."""

    id: Any = None


_identified = msgspec.json.Decoder(_Identified).decode


class Sequences(Projection):
    name = "sequences"
    tables = ("sequences",)
    rebuild_cost = 0.2  # reading an id per event, then one row per kind at `settle`

    def __init__(self, kinds: Iterable[str], claiming: Iterable[type[Event]] = ()) -> None:
        self.claiming = frozenset(claiming)
        self._made = {f"{kind}.created": kind for kind in kinds}
        """The creations that take an id of their kind (`customer.created`, `contact.created`, ...), by tag."""
        made = {EVENTS.types.get(tag) or events_of(kind).created for tag, kind in self._made.items()}
        self.handles = frozenset({SequenceReserved, *made, *self.claiming})
        self.replays_json = {tag: partial(self._made_json, kind) for tag, kind in self._made.items()}
        self._highest: dict[str, int] = {}

    def create(self, conn: Connection) -> None:
        conn.execute("CREATE TABLE IF NOT EXISTS sequences (kind TEXT PRIMARY KEY, last INTEGER NOT NULL)")

    def apply(self, conn: Connection, event: RecordedEvent) -> None:
        match event.event:
            case SequenceReserved(kind=kind, last=last):
                self._claim(conn, kind, last)
            case made if event.type in self._made:  # a natural id (a number's text) takes nothing of a sequence
                if isinstance(id_ := getattr(made, "id", None), int):
                    self._claim(conn, self._made[event.type], id_)
            case claiming:  # one of `claiming`: the ids its `claims` name
                for kind, ids in getattr(claiming, "claims", {}).items():
                    self._claim(conn, kind, max(ids))

    def _made_json(self, kind: str, conn: Connection, data: bytes) -> None:
        """A rebuild's `<kind>.created`, of whose data only the id is read."""
        try:
            id_ = _identified(data).id
        except msgspec.ValidationError:  # no object: as `apply` reads it
            id_ = msgspec.json.decode(data).get("id")
        if isinstance(id_, int):
            self._claim(conn, kind, id_)

    def _claim(self, conn: Connection, kind: str, id_: int) -> None:
        """While a request's events are applied (`gathering`), the highest id each kind's events claim
        is kept on the writer's connection, written at the request's end, and read by `next_id` in the
        same request (a decision may go on deciding after its first events are applied)."""
        if self.rebuilding or self.gathering:
            highest = carried(conn).claimed if self.gathering else self._highest
            if id_ > highest.get(kind, 0):
                highest[kind] = id_
        else:
            self._raise(conn, kind, id_)

    def settle(self, conn: Connection) -> None:
        for kind, highest in self._highest.items():
            self._raise(conn, kind, highest)
        self._highest.clear()

    def gathered(self, conn: Connection) -> None:
        state = carried(conn)
        for kind, highest in state.claimed.items():
            self._raise(conn, kind, highest)
            if kind in state.lasts:
                state.lasts[kind] = max(state.lasts[kind], highest)
        state.claimed.clear()

    def forget(self, conn: Connection) -> None:
        """A request was taken back: its claims, and what the batch read of rows it may have raised."""
        state = carried(conn)
        state.claimed.clear()
        state.lasts.clear()

    @staticmethod
    def _raise(conn: Connection, kind: str, highest: int) -> None:
        conn.execute(
            "INSERT INTO sequences VALUES (?, ?) ON CONFLICT (kind) "
            "DO UPDATE SET last = excluded.last WHERE excluded.last > sequences.last",
            (kind, highest),
        )


def next_id(conn: Connection, kind: str, first: int = 1) -> int:
    """The next free id of `kind` (call inside the writer's transaction, on its connection); the row is
    read once a batch (a read drains PostgreSQL's pipeline)."""
    state = carried(conn)
    if (last := state.lasts.get(kind)) is None:
        row = conn.execute("SELECT last FROM sequences WHERE kind = ?", (kind,)).fetchone()
        last = state.lasts[kind] = row[0] if row else 0
    return max(first, max(last, state.claimed.get(kind, 0)) + 1)


def highest(conn: Connection) -> list[tuple[str, int]]:
    """(kind, highest id ever allocated) of every kind that has allocated one, by kind."""
    return [(kind, last) for kind, last in conn.execute("SELECT kind, last FROM sequences ORDER BY kind")]
