"""One generic read model per resource: a document table (id, customer, JSON body) and its counts.

A table takes its kind's four events (`domain.events.resources`); `customer.deleted` drops all of a
customer's documents. Counts per customer let an unfiltered list answer `total` without scanning.

Other event classes feed a table through `feeds`: a function per class turns an event into document
changes (`put`, `patch`, `remove`, `clear`: the four events' shapes), as call events make CDRs. Such
a feed sees the event's envelope (stream, recorded_at, meta) live and on replay alike. A feed
may also offer `from_json(data)`, the same changes from the event's stored JSON: a rebuild then hands
it the JSON undecoded (`Projection.replays_json`), as it does a table's own `created` events.

`indexed` names the properties (or tuples of them, for an index over several) a table keeps an index
of, in that order after the customer and before the id: each is an `Ordering` of the kind as well,
and the table records in the journal how every change moves a document in them (`Ranks`).
`searched` names the text properties kept in the kind's substring index (`documents.search`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property, partial
from typing import Any, ClassVar

import msgspec

from ..domain.events import Event, events_of, tag_of
from ..domain.events.accounts import CustomerDeleted
from ..domain.events.resources import ResourceCleared, ResourceCreated, ResourceDeleted, ResourceUpdated
from ..eventlog import RecordedEvent
from ..projections import Projection
from ..projections.holding import HeldRows
from ..projections.journal import Change, Journal
from .names import counts_of, json_path, table_of
from .search import SearchIndex

_encode = msgspec.json.encode
_decode = msgspec.json.decode
DocumentChange = ResourceCreated | ResourceUpdated | ResourceDeleted | ResourceCleared
"""A change to a document table: one of the four events of a kind, in the shape of the base classes."""
Feed = Callable[[RecordedEvent], Iterable[DocumentChange]]
Indexed = str | tuple[str, ...]
SEARCHED_COST = 0.3
"""A searched property's share of the work of rebuilding and comparing its table, relative to writing
the documents (measured on a million CDRs, `src` and `dst`: 4.5 s against the conversations' 7.7 s)."""


class _Created(msgspec.Struct):
    """A `<kind>.created` event's data with its body as written (see `DocumentTable.replays_json`)."""

    id: int | str
    customer_id: int
    body: msgspec.Raw


_created = msgspec.json.Decoder(_Created).decode


def put(id_: Any, customer_id: int, body: dict[str, Any]) -> DocumentChange:
    """A new document (its id must not be in the table yet)."""
    return ResourceCreated(id=id_, customer_id=customer_id, body=body)


def patch(id_: Any, changes: dict[str, Any]) -> DocumentChange:
    """Fields of a document change."""
    return ResourceUpdated(id=id_, changes=changes)


def remove(id_: Any) -> DocumentChange:
    return ResourceDeleted(id=id_)


def clear(customer_id: int, **where: Any) -> DocumentChange:
    """Every document of a customer goes (only those whose properties `where` have these values)."""
    return ResourceCleared(customer_id=customer_id, where=where)


def index_props(entry: Indexed) -> tuple[str, ...]:
    """The properties of one `indexed` entry, in index order."""
    return (entry,) if isinstance(entry, str) else tuple(entry)


def _held_row(id_: Any, held: list) -> tuple[Any, int, str]:
    body = held[1]
    return id_, held[0], body if isinstance(body, str) else _encode(body).decode()


class DocumentTable(Projection):
    """The read model of one resource kind."""

    version: ClassVar[int] = 1

    def __init__(self, kind: str, *, text_ids: bool = False, indexed: Sequence[Indexed] = (),
                 searched: Sequence[str] = (), feeds: Mapping[type[Event], Feed] | None = None) -> None:  # fmt: skip
        self.kind = kind
        self.feeds = dict(feeds or {})
        self._fed = {tag_of(cls): feed for cls, feed in self.feeds.items()}
        self.reads_envelope = bool(self.feeds)
        self.name = f"documents:{kind}"
        self.table = table_of(kind)
        self.counts = counts_of(kind)
        self.search = SearchIndex(kind, searched) if searched else None
        self.tables = (self.table, self.counts, *(self.search.tables if self.search else ()))
        self.rebuild_cost = 1.0 + SEARCHED_COST * len(searched)
        self._insert = f'INSERT OR REPLACE INTO "{self.table}" (id, customer_id, body) VALUES (?, ?, ?)'
        self._held: HeldRows[Any, list] = HeldRows(self._insert, _held_row)
        """During a rebuild: documents created lately, as [customer id, body]; a body as its event
        wrote it (JSON text) until an update makes it a dict."""
        self._count = (
            f'INSERT INTO "{self.counts}" VALUES (?, ?) ON CONFLICT (customer_id) DO UPDATE SET n = n + excluded.n'
        )
        self.text_ids = text_ids
        self.indexed = tuple(index_props(entry) for entry in indexed)
        self.ordered = tuple(sorted({prop for props in self.indexed for prop in props}))
        """The properties of the kind's orderings, whose changes the journal records."""
        self.journal: Journal | None = None
        own = events_of(kind).all
        self._own = frozenset(tag_of(cls) for cls in own)
        self.handles = frozenset({*own, CustomerDeleted, *self.feeds})
        self.replays_json = {
            f"{kind}.created": self._created_json,
            **{type_: partial(self._fed_json, feed.from_json) for type_, feed in self._fed.items()
               if hasattr(feed, "from_json")},
        }  # fmt: skip

    def declaration(self) -> tuple:
        feeds = tuple(sorted((type_, f"{feed.__module__}.{feed.__qualname__}") for type_, feed in self._fed.items()))
        searched = self.search.props if self.search else ()
        return (*super().declaration(), self.kind, self.text_ids, self.indexed, searched, feeds)

    def create(self, conn: sqlite3.Connection) -> None:
        key = "id TEXT PRIMARY KEY" if self.text_ids else "id INTEGER PRIMARY KEY"
        conn.execute(f'CREATE TABLE IF NOT EXISTS "{self.table}" ({key}, customer_id INTEGER NOT NULL, body TEXT)')
        conn.execute(
            f'CREATE TABLE IF NOT EXISTS "{self.counts}" (customer_id INTEGER PRIMARY KEY, n INTEGER NOT NULL)'
        )
        if self.search is not None:
            self.search.create(conn)

    def settle(self, conn: sqlite3.Connection) -> None:
        self._held.flush(conn)
        conn.execute(f'DELETE FROM "{self.counts}"')
        conn.execute(
            f'INSERT INTO "{self.counts}" SELECT customer_id, count(*) FROM "{self.table}" GROUP BY customer_id'
        )
        if self.search is not None:
            self.search.fill(conn, self.table)

    def index(self, conn: sqlite3.Connection) -> None:
        if self.search is not None:
            self.search.optimize(conn)
        conn.execute(f'CREATE INDEX IF NOT EXISTS "{self.table}_customer" ON "{self.table}" (customer_id, id)')
        for props in self.indexed:
            conn.execute(
                f'CREATE INDEX IF NOT EXISTS "{self.table}_{"_".join(props)}" ON "{self.table}" '
                f"(customer_id, {', '.join(json_path(prop) for prop in props)}, id)"
            )

    def attach(self, journal: Journal) -> None:
        """Record changes of ordered documents in `journal` (kinds with integer ids only)."""
        if not self.text_ids:
            self.journal = journal

    def _record(self, customer_id: int, id_: Any, before: dict | None, after: dict | None) -> None:
        if self.journal is not None and not self.rebuilding:
            self.journal.record(Change(self.kind, customer_id, id_, before, after))

    def apply(self, conn: sqlite3.Connection, event: RecordedEvent) -> None:
        if event.type in self._own:  # one of the kind's four events
            self._actions[event.event.action](conn, event.event)  # type: ignore[attr-defined]
        elif isinstance(event.event, CustomerDeleted):
            self._change(conn, [clear(event.event.id)])
        else:
            self._change(conn, self._fed[event.type](event))

    def _change(self, conn: sqlite3.Connection, changes: Iterable[DocumentChange]) -> None:
        """Apply document changes: the table's own events, or a feed's changes in their shape."""
        actions = self._actions
        for change in changes:
            actions[change.action](conn, change)

    def _created_json(self, conn: sqlite3.Connection, data: bytes) -> None:
        """A rebuild's `<kind>.created`, its body kept as the JSON text the event holds: the very text
        `created` stores (both are its one encoding), without decoding and encoding it again."""
        try:
            d = _created(data)
        except msgspec.ValidationError:  # not the usual shape: the decoded way says what it means
            self._actions["created"](conn, msgspec.json.decode(data, type=ResourceCreated))
            return
        self._held.hold(conn, d.id, [d.customer_id, bytes(d.body).decode()])

    def _fed_json(self, changes_of: Callable[[bytes], Iterable[DocumentChange]], conn: sqlite3.Connection,
                  data: bytes) -> None:  # fmt: skip
        """A rebuild's event of a feed that reads its JSON itself (a feed's `from_json`)."""
        self._change(conn, changes_of(data))

    @cached_property
    def _actions(self) -> dict[str, Callable[[sqlite3.Connection, Any], None]]:
        """What each of the four changes does (by its `action`), with its SQL written once."""
        table, counts = f'"{self.table}"', f'"{self.counts}"'
        insert, count = self._insert, self._count
        ordered, search = self.ordered, self.search
        searched = search.props if search is not None else ()
        values = "".join(f", {json_path(prop)}" for prop in (*ordered, *searched))
        delete = f"DELETE FROM {table} WHERE id = ? RETURNING customer_id{values}"
        current = f"SELECT customer_id{values} FROM {table} WHERE id = ?"
        in_place = "".join(f", {json_path(prop)}" for prop in ordered)
        updates: dict[tuple[tuple[str, ...], bool], str] = {}
        split = 1 + len(ordered)
        """Where a row of `delete` or `current` turns from ordered to searched values."""

        def created(conn: sqlite3.Connection, d: ResourceCreated) -> None:
            if self.rebuilding:
                self._held.hold(conn, d.id, [d.customer_id, d.body])
                return
            body = d.body
            conn.execute(insert, (d.id, d.customer_id, _encode(body).decode()))
            conn.execute(count, (d.customer_id, 1))
            self._record(d.customer_id, d.id, None, {prop: body.get(prop) for prop in ordered})
            if search is not None:
                search.add(conn, d.id, (body.get(prop) for prop in searched))

        def updated(conn: sqlite3.Connection, d: ResourceUpdated) -> None:
            changes = d.changes
            if not changes:
                return
            if (held := self._held.get(d.id)) is not None:
                body = held[1] if isinstance(held[1], dict) else _decode(held[1])
                body.update(changes)
                held[1] = body
                return
            names = tuple(changes)
            journaled = self.journal is not None and not self.rebuilding
            moved = journaled and any(name in ordered for name in names)
            reindexed = search is not None and any(name in searched for name in names) and not self.rebuilding
            if moved or reindexed:
                row = conn.execute(current, (d.id,)).fetchone()
                if row is not None and moved:
                    before = dict(zip(ordered, row[1:split], strict=True))
                    after = {**before, **{prop: changes[prop] for prop in ordered if prop in changes}}
                    self._record(row[0], d.id, before, after)
                if row is not None and reindexed and search is not None:
                    search.remove(conn, d.id, row[split:])
                    old = zip(searched, row[split:], strict=True)
                    search.add(conn, d.id, (changes.get(prop, value) for prop, value in old))
            stays = journaled and not moved  # recorded too, where it is: kept pages hold its body (`kept`)
            if (sql := updates.get((names, stays))) is None:
                pairs = ", ".join(f"'$.{name}', json(?)" for name in names)
                returning = f" RETURNING customer_id{in_place}" if stays else ""
                sql = f"UPDATE {table} SET body = json_set(body, {pairs}) WHERE id = ?{returning}"
                updates[names, stays] = sql
            done = conn.execute(sql, (*[_encode(value).decode() for value in changes.values()], d.id))
            if stays and (row := done.fetchone()) is not None:
                where = dict(zip(ordered, row[1:], strict=True))
                self._record(row[0], d.id, where, where)

        def deleted(conn: sqlite3.Connection, d: ResourceDeleted) -> None:
            if self._held.pop(d.id, None) is not None:
                return
            gone = conn.execute(delete, (d.id,)).fetchone()
            if gone is not None and not self.rebuilding:
                self._record(gone[0], d.id, dict(zip(ordered, gone[1:split], strict=True)), None)
                if search is not None:
                    search.remove(conn, d.id, gone[split:])
                conn.execute(count, (gone[0], -1))
                conn.execute(f"DELETE FROM {counts} WHERE customer_id = ? AND n = 0", (gone[0],))

        def cleared(conn: sqlite3.Connection, d: ResourceCleared) -> None:
            self._held.flush(conn)
            customer_id = d.customer_id
            if self.journal is not None and not self.rebuilding:
                self.journal.record(Change(self.kind, customer_id, whole=True))
            where = d.where
            if search is not None and not self.rebuilding:
                unindex(conn, customer_id, where or {})
            if where:
                matching = " AND ".join(f"{json_path(prop)} = ?" for prop in where)
                conn.execute(
                    f"DELETE FROM {table} WHERE customer_id = ? AND {matching}", (customer_id, *where.values())
                )
                conn.execute(f"INSERT OR REPLACE INTO {counts} SELECT ?, count(*) FROM {table} WHERE customer_id = ?",
                             (customer_id, customer_id))  # fmt: skip
                conn.execute(f"DELETE FROM {counts} WHERE customer_id = ? AND n = 0", (customer_id,))
                return
            conn.execute(f"DELETE FROM {table} WHERE customer_id = ?", (customer_id,))
            conn.execute(f"DELETE FROM {counts} WHERE customer_id = ?", (customer_id,))

        def unindex(conn: sqlite3.Connection, customer_id: int, where: dict[str, Any]) -> None:
            """Take a clear's documents out of the search index: all at once when no other's remain."""
            assert search is not None
            others = conn.execute(f"SELECT 1 FROM {counts} WHERE customer_id != ? LIMIT 1", (customer_id,))
            if not where and others.fetchone() is None:
                search.remove_all(conn)
                return
            matching = "".join(f" AND {json_path(prop)} = ?" for prop in where)
            rows = conn.execute(f"SELECT id{search.extracted} FROM {table} WHERE customer_id = ?{matching}",
                                (customer_id, *where.values())).fetchall()  # fmt: skip
            search.remove_rows(conn, rows)

        return {"created": created, "updated": updated, "deleted": deleted, "cleared": cleared}
