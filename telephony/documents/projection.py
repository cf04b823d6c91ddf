"""One generic read model per resource kind: a document table (id, customer, JSON body) and its counts
per customer, which let an unfiltered list answer `total` without scanning; or one drawn from other records."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any, ClassVar

import msgspec

from ..domain.events import Event, events_of, tag_of
from ..domain.events.accounts import CustomerDeleted
from ..eventlog import RecordedEvent
from ..eventlog.connection import Connection
from ..projections import Projection
from ..projections.holding import HeldRows
from .changes import Clear, DocumentChange, Patch, Put, Remove, json_text, of_event
from .conditions import equals
from .names import COLUMNS, counts_of, documents_of, sources_of
from .postgresql.sql import PgTable
from .sqlite.sql import SqliteTable

TABLES: dict[str, type[SqliteTable] | type[PgTable]] = {"sqlite": SqliteTable, "postgresql": PgTable}
Feed = Callable[[RecordedEvent], Iterable[DocumentChange]]
Indexed = str | tuple[str, ...]
SEARCHED_COST = 0.3
"""A searched property's share of the work of rebuilding and comparing its table (`audit.split`)."""


class _Created(msgspec.Struct):
    """A `<kind>.created` event's data with its body as written."""

    id: int | str
    customer_id: int
    body: msgspec.Raw


_created = msgspec.json.Decoder(_Created).decode


def drawn(version: int) -> Callable[[Feed], Feed]:
    """Mark a feed as drawing its documents in the shape of `version`: a change of it changes the
    fingerprint of the tables it feeds, which the next start rebuilds from the log."""

    def marked(feed: Feed) -> Feed:
        feed.drawn = version  # type: ignore[attr-defined]
        return feed

    return marked


def _named(feed: Feed) -> str:
    """A feed as a table's declaration names it: where it is defined, and its shape's version if marked."""
    name = f"{feed.__module__}.{feed.__qualname__}"
    return name if (version := getattr(feed, "drawn", None)) is None else f"{name} (drawn {version})"


class DocumentTable(Projection):
    """The read model of one resource kind: its four events, the changes `feeds` make of other event
    classes (given the envelope, live and on replay alike; a feed's `from_json(data)` reads the JSON a
    rebuild hands it undecoded), and `customer.deleted`. `indexed`: the properties (or tuples) indexed
    after the customer and before the id; `searched`: those of the substring index. A rebuild holds the
    documents created lately back (`held`) and changes them in place, so each is written once."""

    version: ClassVar[int] = 3

    def __init__(self, kind: str, *, dialect: str = "sqlite", text_ids: bool = False, indexed: Sequence[Indexed] = (),
                 searched: Sequence[str] = (), feeds: Mapping[type[Event], Feed] | None = None) -> None:  # fmt: skip
        props = tuple((entry,) if isinstance(entry, str) else tuple(entry) for entry in indexed)
        if unknown := {prop for entry in props for prop in entry}.union(searched) - set(COLUMNS):
            raise ValueError(f"{kind}: only properties of names.COLUMNS are indexed or searched, not {unknown}")
        self.store = store = TABLES[dialect](kind, text_ids, props, searched)
        self.kind, self.name, self.feeds = kind, f"documents:{kind}", dict(feeds or {})
        self.text_ids, self.indexed, self.searched = text_ids, props, tuple(searched)
        self.shape, self.counts = documents_of(kind), counts_of(kind)
        self.table = self.shape.name
        self.tables = (self.table, self.counts, *store.tables)
        self._count = (f'INSERT INTO "{self.counts}" VALUES (?, ?) '
                       f'ON CONFLICT (customer_id) DO UPDATE SET n = "{self.counts}".n + excluded.n')  # fmt: skip
        self._added: dict[int, int] = {}
        """While gathering: the documents created, by customer."""
        self.held: HeldRows[Any, list] = HeldRows(store.insert, lambda id_, held: store.row(id_, *held))
        """During a rebuild: documents created lately, as [customer id, body as JSON text or a dict]."""
        self._fed = {tag_of(cls): feed for cls, feed in self.feeds.items()}
        self.reads_envelope = bool(self.feeds)
        self.rebuild_cost = 1.0 + SEARCHED_COST * len(searched)
        own = events_of(kind).all
        self._own = frozenset(tag_of(cls) for cls in own)
        self.handles = frozenset({*own, CustomerDeleted, *self.feeds})
        self._decode_created = msgspec.json.Decoder(events_of(kind).created).decode
        self.replays_json = {f"{kind}.created": self._created_json} | {
            type_: partial(self._fed_json, feed.from_json) for type_, feed in self._fed.items()
            if hasattr(feed, "from_json")}  # fmt: skip

    def create(self, conn: Connection) -> None:
        self.store.create(conn, self.rebuilding)
        integer = self.store.integer
        conn.execute(f'CREATE TABLE IF NOT EXISTS "{self.counts}" (customer_id {integer} PRIMARY KEY, '
                     f"n {integer} NOT NULL)")  # fmt: skip

    def settle(self, conn: Connection) -> None:
        self.held.flush(conn)
        conn.execute(f'DELETE FROM "{self.counts}"')
        conn.execute(f'INSERT INTO "{self.counts}" SELECT customer_id, count(*) FROM "{self.table}" GROUP BY 1')
        self.store.settle(conn, self.rebuilding)

    def index(self, conn: Connection) -> None:
        conn.execute(f'CREATE INDEX IF NOT EXISTS "{self.table}_customer" ON "{self.table}" (customer_id, id)')
        self.store.index(conn)

    def gathered(self, conn: Connection) -> None:
        """The counts of the documents created while gathering, written once per customer."""
        if self._added:
            conn.executemany(self._count, list(self._added.items()))
            self._added.clear()

    def forget(self, conn: Connection) -> None:
        self._added.clear()

    def declaration(self) -> tuple:
        feeds = tuple(sorted((type_, _named(feed)) for type_, feed in self._fed.items()))
        declared = (*super().declaration(), self.kind, self.text_ids, COLUMNS, self.indexed, self.searched, feeds)
        return (*declared, *self.store.declared)

    def apply(self, conn: Connection, event: RecordedEvent) -> None:
        if event.type in self._own:  # one of the kind's four events
            self._change_one(conn, of_event(event.event))
        elif isinstance(event.event, CustomerDeleted):
            self._change_one(conn, Clear(event.event.id))
        else:
            self._change(conn, self._fed[event.type](event))

    def _change(self, conn: Connection, changes: Iterable[DocumentChange]) -> None:
        for change in changes:
            self._change_one(conn, change)

    def _change_one(self, conn: Connection, change: DocumentChange) -> None:
        """Apply one change as it is (a derived table's own events name their documents by id)."""
        match change:
            case Put(id=id_, customer_id=customer_id, body=body) if self.rebuilding:  # held as a dict or JSON text
                self.held.hold(conn, id_, [customer_id, body if isinstance(body, dict) else json_text(body)])
            case Put(id=id_, customer_id=customer_id, body=body):
                self.store.write(conn, id_, customer_id, body)
                if self.gathering:
                    self._added[customer_id] = self._added.get(customer_id, 0) + 1
                else:
                    conn.execute(self._count, (customer_id, 1))
            case Patch(id=id_, changes=changes) if changes:
                if (held := self.held.get(id_)) is not None:
                    held[1] = (held[1] if isinstance(held[1], dict) else msgspec.json.decode(held[1])) | changes
                else:
                    self.store.patch(conn, id_, changes, self.rebuilding)
            case Remove(id=id_):
                if self.held.pop(id_, None) is not None:
                    return
                owner = self.store.delete(conn, id_, self.rebuilding)
                if owner is not None and not self.rebuilding:
                    self.gathered(conn)
                    conn.execute(self._count, (owner, -1))
                    conn.execute(f'DELETE FROM "{self.counts}" WHERE customer_id = ? AND n = 0', (owner,))
            case Clear(customer_id=customer_id, where=where):  # every document of a customer, or those `where` says
                self.held.flush(conn)  # the table whole before a statement on many rows
                self.gathered(conn)
                condition, params = self.store.sql.where(equals(customer_id=customer_id, **where), self.shape)
                self.store.clear(conn, f'FROM "{self.table}" WHERE {condition}', params, change, self.rebuilding)
                conn.execute(f'DELETE FROM "{self.counts}" WHERE customer_id = ?', (customer_id,))
                if where:
                    conn.execute(f'INSERT INTO "{self.counts}" SELECT customer_id, count(*) FROM "{self.table}" '
                                 "WHERE customer_id = ? GROUP BY customer_id", (customer_id,))  # fmt: skip

    def _created_json(self, conn: Connection, data: bytes) -> None:
        """A rebuild's `<kind>.created`, its body kept as the JSON text the event holds (its one encoding)."""
        try:
            d = _created(data)
        except msgspec.ValidationError:  # not the usual shape: the decoded way says what it means
            self._change_one(conn, of_event(self._decode_created(data)))
            return
        self.held.hold(conn, d.id, [d.customer_id, bytes(d.body).decode()])

    def _fed_json(self, changes_of: Callable[[bytes], Iterable[DocumentChange]], conn: Connection,
                  data: bytes) -> None:  # fmt: skip
        """A rebuild's event of a feed that reads its JSON itself (a feed's `from_json`)."""
        self._change(conn, changes_of(data))


class DerivedTable(DocumentTable):
    """The read model of a kind drawn from other records (conversations: of CDRs, SMS, faxes, chats). Its
    feeds name a document by its record (`names.source`); a `Put` gives it the table's next id, in log
    order across customers. The ids given are kept in a table never cleared, so none is given twice and
    a replay gives the same; an export lists the records in that order (`reads.in_order_drawn`), so an
    import gives them the same ids again."""

    version: ClassVar[int] = 4

    def __init__(self, kind: str, **options: Any) -> None:
        super().__init__(kind, **options)
        self.sources, self.tables = sources_of(kind), (*self.tables, sources_of(kind))
        self._give = (f'INSERT INTO "{self.sources}" (id, source) SELECT coalesce(max(id), 0) + 1, ? '
                      f'FROM "{self.sources}" RETURNING id')  # fmt: skip
        self._find = f'SELECT id FROM "{self.sources}" WHERE source = ?'
        self._index = f'CREATE UNIQUE INDEX IF NOT EXISTS "{self.sources}_source" ON "{self.sources}" (source)'
        self._given = HeldRows[str, int](f'INSERT INTO "{self.sources}" (source, id) VALUES (?, ?)', lambda *row: row)
        """During a rebuild: the ids given lately, by source, written in batches."""
        self._last: int | None = None
        """During a rebuild: the last id given."""

    def create(self, conn: Connection) -> None:
        super().create(conn)
        conn.execute(f'CREATE TABLE IF NOT EXISTS "{self.sources}" (id {self.store.integer} PRIMARY KEY, '
                     "source TEXT NOT NULL)")  # fmt: skip
        if not self.rebuilding:
            conn.execute(self._index)
        self._last = None

    def settle(self, conn: Connection) -> None:
        self._given.flush(conn)
        conn.execute(self._index)
        super().settle(conn)

    def _change(self, conn: Connection, changes: Iterable[DocumentChange]) -> None:
        """A feed's changes, each naming its document by its source: a new one gets the next id."""
        for change in changes:
            match change:
                case Put(id=source, body=body):
                    given = self._next(conn, str(source))
                    plain = body if isinstance(body, dict) else msgspec.to_builtins(body)
                    change = msgspec.structs.replace(change, id=given, body={"id": given, **plain})
                case Patch(id=source) | Remove(id=source):
                    if (found := self._id_of(conn, str(source))) is None:
                        continue
                    change = msgspec.structs.replace(change, id=found)
            self._change_one(conn, change)

    def _next(self, conn: Connection, source: str) -> int:
        if not self.rebuilding:
            return conn.execute(self._give, (source,)).fetchone()[0]
        if self._last is None:
            self._last = conn.execute(f'SELECT coalesce(max(id), 0) FROM "{self.sources}"').fetchone()[0]
        self._last += 1
        self._given.hold(conn, source, self._last)
        return self._last

    def _id_of(self, conn: Connection, source: str) -> int | None:
        if (given := self._given.get(source)) is not None:
            return given
        if self.rebuilding:
            conn.execute(self._index)
        row = conn.execute(self._find, (source,)).fetchone()
        return row[0] if row else None
