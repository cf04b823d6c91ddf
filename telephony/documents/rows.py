"""The SQL of one kind's document table: its rows, their counts per customer, search and indexes.

`DocumentTable` is a `Rows`: each method below applies one of the four changes of a kind's documents
(`changes`). The columns the kind indexes or searches (`names.COLUMNS`) are stored, written with
the body as `json_extract` reads them from it (`columns`); the others are virtual, in
the table as it is created, or added after a rebuild's load (`_virtual`). A rebuild holds documents
created lately back (`HeldRows`) and changes them in place, so each is written once; `settle` fills
the counts and the search index in one pass each, and `index` builds the indexes once, from the
columns (PostgreSQL's forms: `dialects.pg_documents`)."""

from __future__ import annotations

import sqlite3
from typing import Annotated, Any

import msgspec

from ..projections.holding import HeldRows
from .changes import Clear, Patch, Put, Remove
from .names import COLUMNS, counts_of, prop_sql, table_of
from .search import SearchIndex

_encode = msgspec.json.encode
_decode = msgspec.json.decode
Plain = str | Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)] | float | None


def _plain(body: Any) -> Any:
    """A body as plain JSON values (a record's Struct as its dict)."""
    return msgspec.to_builtins(body) if isinstance(body, msgspec.Struct) else body


def column(value: Any) -> Any:
    """A value as `json_extract` reads it: a boolean as 1 or 0, an integer past 64 bits as a real, etc."""
    if isinstance(value, bool) or (isinstance(value, int) and not -(2**63) <= value < 2**63):
        return int(value) if isinstance(value, bool) else float(value)
    return value if value is None or isinstance(value, str | int | float) else _encode(value).decode()


class Rows:
    rebuilding: bool = False
    gathering: bool = False  # see Projection.gathering

    def __init__(self, kind: str, text_ids: bool, indexed: tuple[tuple[str, ...], ...], search: SearchIndex | None
                 ) -> None:  # fmt: skip
        self.table, self.counts, self.text_ids, self.indexed, self.search = (
            table_of(kind), counts_of(kind), text_ids, indexed, search)  # fmt: skip
        own = {prop for props in indexed for prop in props} | set(search.props if search else ())
        self.stored = tuple(name for name in COLUMNS if name in own)  # the others are virtual
        self._plain = msgspec.json.Decoder(msgspec.defstruct("Stored", [(name, Plain, None) for name in self.stored]))
        self._cols, marks = "".join(f", {name}" for name in self.stored), ", ".join("?" * (3 + len(self.stored)))
        self._insert = f'INSERT OR REPLACE INTO "{self.table}" (id, customer_id, body{self._cols}) VALUES ({marks})'
        self._count = (f'INSERT INTO "{self.counts}" VALUES (?, ?) '
                       f'ON CONFLICT (customer_id) DO UPDATE SET n = "{self.counts}".n + excluded.n')  # fmt: skip
        self._updates: dict[tuple[str, ...], str] = {}  # the SQL of an update, by the fields it changes
        self._added: dict[int, int] = {}  # while gathering: documents created, by customer
        self.held: HeldRows[Any, list] = HeldRows(self._insert, self._held_row)
        """During a rebuild: documents created lately, as [customer id, body as JSON text or a dict]."""

    def columns(self, body: Any) -> tuple[Any, ...]:
        """The stored columns of a body, decoded, JSON text or a record (NULL if no object); in one step
        when plain."""
        if isinstance(body, msgspec.Struct):  # a record: its fields are typed already
            return tuple(column(getattr(body, name, None)) for name in self.stored)
        try:
            if isinstance(body, str | dict):
                found = self._plain.decode(body) if isinstance(body, str) else msgspec.convert(body, self._plain.type)
                return msgspec.structs.astuple(found)
        except msgspec.ValidationError:
            found = _decode(body) if isinstance(body, str) else body
            if isinstance(found, dict):
                return tuple(column(found.get(name)) for name in self.stored)
        return (None,) * len(self.stored)

    def _held_row(self, id_: Any, held: list) -> tuple[Any, ...]:
        customer_id, body = held
        return id_, customer_id, body if isinstance(body, str) else _encode(body).decode(), *self.columns(body)

    def create(self, conn: sqlite3.Connection) -> None:
        conn.execute(self._definition(virtual=not self.rebuilding, if_new=True))
        counts = f'"{self.counts}"'
        conn.execute(f"CREATE TABLE IF NOT EXISTS {counts} (customer_id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
        if self.search is not None:
            self.search.create(conn)
        if not self.rebuilding:
            self._virtual(conn)

    def _definition(self, *, virtual: bool, if_new: bool = False) -> str:
        """The table's CREATE statement: the stored columns, and the virtual ones when `virtual`."""
        key = "id TEXT PRIMARY KEY" if self.text_ids else "id INTEGER PRIMARY KEY"
        added = "".join(f", {name} AS (json_extract(body, '$.{name}')) VIRTUAL" for name in COLUMNS
                        if virtual and name not in self.stored)  # fmt: skip
        create = "CREATE TABLE IF NOT EXISTS" if if_new else "CREATE TABLE"
        return f'{create} "{self.table}" ({key}, customer_id INTEGER NOT NULL, body TEXT{self._cols}{added})'

    def _virtual(self, conn: sqlite3.Connection) -> None:
        """Add the virtual columns (after a rebuild's load: SQLite computes them for every row inserted).
        A rebuild's table that is still empty is made again whole, before its indexes: one change of the
        schema, not one per column (each makes SQLite read the whole schema again: half a second for a
        new data dir's tables)."""
        have = {row[1] for row in conn.execute(f'PRAGMA table_xinfo("{self.table}")')}
        missing = [name for name in COLUMNS if name not in have]
        if missing and self.rebuilding and conn.execute(f'SELECT 1 FROM "{self.table}" LIMIT 1').fetchone() is None:
            conn.execute(f'DROP TABLE "{self.table}"')
            conn.execute(self._definition(virtual=True))
            return
        for name in missing:
            conn.execute(f"ALTER TABLE \"{self.table}\" ADD COLUMN {name} AS (json_extract(body, '$.{name}')) VIRTUAL")

    def settle(self, conn: sqlite3.Connection) -> None:
        self.held.flush(conn)
        self._virtual(conn)
        conn.execute(f'DELETE FROM "{self.counts}"')
        conn.execute(f'INSERT INTO "{self.counts}" SELECT customer_id, count(*) FROM "{self.table}" GROUP BY 1')
        if self.search is not None:
            self.search.fill(conn, self.table)

    def index(self, conn: sqlite3.Connection) -> None:
        if self.search is not None:
            self.search.optimize(conn)
        conn.execute(f'CREATE INDEX IF NOT EXISTS "{self.table}_customer" ON "{self.table}" (customer_id, id)')
        for props in self.indexed:
            columns = ", ".join(prop_sql(prop) for prop in props)
            conn.execute(f'CREATE INDEX IF NOT EXISTS "{self.table}_{"_".join(props)}" ON "{self.table}" '
                         f"(customer_id, {columns}, id)")  # fmt: skip

    def created(self, conn: sqlite3.Connection, d: Put) -> None:
        body = d.body
        if self.rebuilding:  # held as a dict, or as JSON text
            self.held.hold(conn, d.id, [d.customer_id, body if isinstance(body, dict) else _encode(body).decode()])
            return
        conn.execute(self._insert, (d.id, d.customer_id, _encode(body).decode(), *self.columns(body)))
        if self.gathering:
            self._added[d.customer_id] = self._added.get(d.customer_id, 0) + 1
        else:
            conn.execute(self._count, (d.customer_id, 1))
        if self.search is not None:
            plain = _plain(body)
            self.search.add(conn, d.id, (plain.get(prop) for prop in self.search.props))

    def updated(self, conn: sqlite3.Connection, d: Patch) -> None:
        changes, search = d.changes, self.search
        if not changes:
            return
        if (held := self.held.get(d.id)) is not None:
            held[1] = (held[1] if isinstance(held[1], dict) else _decode(held[1])) | changes
            return
        if search is not None and not self.rebuilding and any(name in search.props for name in changes):
            row = conn.execute(f'SELECT id{search.extracted} FROM "{self.table}" WHERE id = ?', (d.id,)).fetchone()
            if row is not None:
                search.remove_rows(conn, [row])
                old = zip(search.props, row[1:], strict=True)
                search.add(conn, d.id, (changes.get(prop, value) for prop, value in old))
        names = tuple(changes)
        if (sql := self._updates.get(names)) is None:
            pairs = ", ".join(f"'$.{name}', json(?)" for name in names)
            moved = "".join(f", {name} = ?" for name in names if name in self.stored)
            sql = self._updates[names] = f'UPDATE "{self.table}" SET body = json_set(body, {pairs}){moved} WHERE id = ?'
        moved_values = [column(value) for name, value in changes.items() if name in self.stored]
        conn.execute(sql, (*[_encode(value).decode() for value in changes.values()], *moved_values, d.id))

    def deleted(self, conn: sqlite3.Connection, d: Remove) -> None:
        if self.held.pop(d.id, None) is not None:
            return
        extracted = self.search.extracted if self.search is not None else ""
        gone = conn.execute(f'DELETE FROM "{self.table}" WHERE id = ? RETURNING customer_id{extracted}', (d.id,))
        row = gone.fetchone()
        if row is None or self.rebuilding:
            return
        if self.search is not None:
            self.search.remove_rows(conn, [(d.id, *row[1:])])
        self.gathered(conn)
        conn.execute(self._count, (row[0], -1))
        conn.execute(f'DELETE FROM "{self.counts}" WHERE customer_id = ? AND n = 0', (row[0],))

    def cleared(self, conn: sqlite3.Connection, d: Clear) -> None:
        """Every document of a customer, or those whose properties have the values `where` says."""
        self.held.flush(conn)
        self._virtual(conn)
        self.gathered(conn)
        customer_id, where = d.customer_id, d.where
        matching = "".join(f" AND {prop_sql(prop)} = ?" for prop in where)
        chosen, params = f'FROM "{self.table}" WHERE customer_id = ?{matching}', (customer_id, *where.values())
        if self.search is not None and not self.rebuilding:
            others = conn.execute(f'SELECT 1 FROM "{self.counts}" WHERE customer_id != ? LIMIT 1', (customer_id,))
            if not where and others.fetchone() is None:
                self.search.remove_all(conn)
            else:
                found = conn.execute(f"SELECT id{self.search.extracted} {chosen}", params)
                self.search.remove_rows(conn, found.fetchall())
        conn.execute(f"DELETE {chosen}", params)
        conn.execute(f'DELETE FROM "{self.counts}" WHERE customer_id = ?', (customer_id,))
        if where:
            conn.execute(f'INSERT INTO "{self.counts}" SELECT customer_id, count(*) FROM "{self.table}" '
                         "WHERE customer_id = ? GROUP BY customer_id", (customer_id,))  # fmt: skip

    def gathered(self, conn: sqlite3.Connection) -> None:
        """The counts of the documents created while gathering, written once per customer."""
        if self._added:
            conn.executemany(self._count, list(self._added.items()))
            self._added.clear()

    def forget(self, conn: sqlite3.Connection) -> None:
        self._added.clear()
