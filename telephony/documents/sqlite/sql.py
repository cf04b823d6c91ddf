"""SQLite's SQL of the document tables: a condition and a list's page (`documents.sql` gives their
shape), and a kind's table, its body as JSON text and its properties as columns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, cast

import msgspec

from ...eventlog.connection import Connection, SqliteConnection
from ..changes import Clear, json_text
from ..conditions import TRUE, All, Condition, Holds, Like, both
from ..names import COLUMNS, Table, counts_of, table_of
from ..sql import Sql, marks
from . import search

if TYPE_CHECKING:
    from ..listing import Listed

_encode = msgspec.json.encode
_decode = msgspec.json.decode
Plain = str | Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)] | float | None
UNICODE_LOWER = "unicode_lower"


class SqliteSql(Sql):
    """A property is its column when the table has one, else `json_extract` of the body: either way a
    value of its JSON type (a boolean as 1 or 0, a null as NULL), compared as SQLite compares values."""

    bodies = "SELECT CAST(group_concat(body, ',') AS BLOB) FROM page CROSS JOIN"
    last_id = "(SELECT id FROM page LIMIT 1 OFFSET (SELECT count(*) - 1 FROM page))"

    def expression(self, prop: str, table: Table) -> str:
        return prop if prop in table.columns or prop in table.props else f"json_extract(body, '$.{prop}')"

    text = expression

    def bound(self, prop: str, value: Any, table: Table) -> Any:
        return int(value) if isinstance(value, bool) else value

    def like(self, condition: Like, table: Table, params: list[Any]) -> str:
        """SQLite's LIKE, which folds ASCII letters; a pattern with other letters also compares both sides
        in lower case (`unicode_lower`, the reader's, run only on the rows LIKE passes with them as `_`)."""
        column, pattern = self.expression(condition.prop, table), condition.pattern
        match = f"like(?, {column})"  # SQLite's like(pattern, value) is `value LIKE pattern`
        params.append("".join(c if c.isascii() else "_" for c in pattern))
        if not pattern.isascii():
            match = f"({match} AND like(?, {UNICODE_LOWER}({column})))"
            params.append(pattern.lower())
        return f"({column} IS NOT NULL AND {'NOT ' if condition.negate else ''}{match})"

    def holds(self, condition: Holds, params: list[Any]) -> str:
        prop, values, member = condition.prop, condition.values, condition.member
        item = f"CASE WHEN type = 'object' THEN json_extract(value, '$.{member}') ELSE value END" if member else "value"
        params.extend(self.bound(prop, value, Table("")) for value in values)
        return f"EXISTS (SELECT 1 FROM json_each(body, '$.{prop}') WHERE {item} IN ({marks(values)}))"

    def searched(self, listed: Listed) -> tuple[search.Match | None, Condition]:
        """The first `like` of the query that a search index answers (`search`), and the other conditions."""
        where = listed.q.where
        parts = where.parts if isinstance(where, All) else (where,)
        for n, part in enumerate(parts):
            if not isinstance(part, Like) or part.negate or part.prop not in listed.searched:
                continue
            if (found := search.match(listed.table.name, part.prop, part.pattern)) is not None:
                return found, both(*parts[:n], *parts[n + 1 :]) if len(parts) > 1 else TRUE
        return None, where

    def by_index(self, listed: Listed, match: search.Match, others: Condition, scope_sql: str, scope_params: list[Any]
                 ) -> tuple[str, tuple[Any, ...], str, tuple[Any, ...]]:  # fmt: skip
        """A list by id driven by a search table: its matches read in id order and each looked up until the
        page is full. When the customer owns every document of the table and nothing else narrows the
        list, the total is the count of matches alone, read from the index without looking any document up."""
        table, fts, direction = listed.table, f'"{match.table}"', "DESC" if listed.q.descending else "ASC"
        name = f'"{table.name}"'
        others_sql, others_params = self.where(others, table)
        joined = (f"FROM {fts} CROSS JOIN {name} ON {name}.id = {fts}.rowid WHERE {fts} MATCH ? AND {scope_sql} "
                  f"AND {others_sql}")  # fmt: skip
        params = (match.phrase, *scope_params, *others_params)
        total_sql, total_params = f"SELECT count(*) {joined}", params
        if listed.counted is not None and others == TRUE:
            counts = f'"{table.counts}"'
            sole = f"(SELECT n FROM {counts} WHERE customer_id = ?) = (SELECT sum(n) FROM {counts})"
            matches = f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ?"
            total_sql = f"SELECT CASE WHEN {sole} THEN ({matches}) ELSE ({total_sql}) END"
            total_params = (listed.counted, match.phrase, *params)
        chosen = f"SELECT {name}.id {joined} ORDER BY {fts}.rowid {direction} LIMIT ? OFFSET ?"
        return total_sql, total_params, chosen, params


SQL = SqliteSql()


def column(value: Any) -> Any:
    """A value as `json_extract` reads it: a boolean as 1 or 0, an integer past 64 bits as a real, etc."""
    if isinstance(value, bool) or (isinstance(value, int) and not -(2**63) <= value < 2**63):
        return int(value) if isinstance(value, bool) else float(value)
    return value if value is None or isinstance(value, str | int | float) else _encode(value).decode()


class SqliteTable:
    """The SQL of one kind's document table on SQLite: the properties it indexes or searches are stored
    columns, written as `json_extract` reads them from the body (`columns`); the others are virtual
    (`_virtual`). Searched properties are kept in FTS5 tables beside it (`search`)."""

    sql, integer, declared = SQL, "INTEGER", ()

    def __init__(self, kind: str, text_ids: bool, indexed: tuple[tuple[str, ...], ...], searched: Sequence[str]
                 ) -> None:  # fmt: skip
        self.table, self.counts, self.text_ids, self.indexed = table_of(kind), counts_of(kind), text_ids, indexed
        self.search = search.SearchIndex(kind, searched) if searched else None
        self.tables = self.search.tables if self.search is not None else ()
        own = {prop for props in indexed for prop in props} | set(searched)
        self.stored = tuple(name for name in COLUMNS if name in own)  # the others are virtual
        self._plain = msgspec.json.Decoder(msgspec.defstruct("Stored", [(name, Plain, None) for name in self.stored]))
        self._cols = "".join(f", {name}" for name in self.stored)
        self._extracted = self.search.extracted if self.search is not None else ""
        self._updates: dict[tuple[str, ...], str] = {}  # the SQL of an update, by the fields it changes
        marks = ", ".join("?" * (3 + len(self.stored)))
        self.insert = f'INSERT OR REPLACE INTO "{self.table}" (id, customer_id, body{self._cols}) VALUES ({marks})'

    def columns(self, body: Any) -> tuple[Any, ...]:
        """The stored columns of a body, decoded, JSON text or a record (NULL if no object)."""
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

    def row(self, id_: Any, customer_id: int, body: Any) -> tuple[Any, ...]:
        """A row of the table, of a body decoded, as JSON text or a record's Struct (encoded as it is)."""
        return id_, customer_id, json_text(body), *self.columns(body)

    def create(self, conn: Connection, rebuilding: bool) -> None:
        conn.execute(self._definition(virtual=not rebuilding, if_new=True))
        if self.search is not None:
            self.search.create(conn)
        if not rebuilding:
            self._virtual(conn, rebuilding)

    def _definition(self, *, virtual: bool, if_new: bool = False) -> str:
        """The table's CREATE statement: the stored columns, and the virtual ones when `virtual`."""
        key = "id TEXT PRIMARY KEY" if self.text_ids else "id INTEGER PRIMARY KEY"
        added = "".join(f", {name} AS (json_extract(body, '$.{name}')) VIRTUAL" for name in COLUMNS
                        if virtual and name not in self.stored)  # fmt: skip
        create = "CREATE TABLE IF NOT EXISTS" if if_new else "CREATE TABLE"
        return f'{create} "{self.table}" ({key}, customer_id INTEGER NOT NULL, body TEXT{self._cols}{added})'

    def _virtual(self, conn: Connection, rebuilding: bool) -> None:
        """Add the virtual columns (after a rebuild's load: SQLite computes them for every row inserted). A
        rebuild's table still empty is made again whole: one change of the schema, not one per column (each
        makes SQLite read the whole schema again: half a second for a new data dir's tables)."""
        have = {row[1] for row in conn.execute(f'PRAGMA table_xinfo("{self.table}")')}
        missing = [name for name in COLUMNS if name not in have]
        if missing and rebuilding and conn.execute(f'SELECT 1 FROM "{self.table}" LIMIT 1').fetchone() is None:
            conn.execute(f'DROP TABLE "{self.table}"')
            conn.execute(self._definition(virtual=True))
            return
        for name in missing:
            conn.execute(f"ALTER TABLE \"{self.table}\" ADD COLUMN {name} AS (json_extract(body, '$.{name}')) VIRTUAL")

    def settle(self, conn: Connection, rebuilding: bool) -> None:
        self._virtual(conn, rebuilding)
        if self.search is not None:
            self.search.fill(cast(SqliteConnection, conn), self.table)  # this store's own connection

    def index(self, conn: Connection) -> None:
        if self.search is not None:
            self.search.command(conn, "optimize")
        for props in self.indexed:
            conn.execute(f'CREATE INDEX IF NOT EXISTS "{self.table}_{"_".join(props)}" ON "{self.table}" '
                         f"(customer_id, {', '.join(props)}, id)")  # fmt: skip

    def write(self, conn: Connection, id_: Any, customer_id: int, body: dict[str, Any] | msgspec.Struct) -> None:
        conn.execute(self.insert, self.row(id_, customer_id, body))
        if self.search is not None:
            plain = msgspec.to_builtins(body) if isinstance(body, msgspec.Struct) else body
            self.search.add(conn, id_, (plain.get(prop) for prop in self.search.props))

    def delete(self, conn: Connection, id_: Any, rebuilding: bool) -> int | None:
        """Remove a document; the customer it belonged to (None: there was none)."""
        gone = conn.execute(f'DELETE FROM "{self.table}" WHERE id = ? RETURNING customer_id{self._extracted}', (id_,))
        row = gone.fetchone()
        if row is not None and self.search is not None and not rebuilding:
            self.search.remove_rows(conn, [(id_, *row[1:])])
        return None if row is None else row[0]

    def clear(self, conn: Connection, chosen: str, params: list[Any], d: Clear, rebuilding: bool) -> None:
        """Remove the documents `chosen` (`FROM ... WHERE ...`) of the clear `d`, and their search entries."""
        self._virtual(conn, rebuilding)  # the columns `chosen` may name
        if self.search is not None and not rebuilding:
            others = conn.execute(f'SELECT 1 FROM "{self.counts}" WHERE customer_id != ? LIMIT 1', (d.customer_id,))
            if not d.where and others.fetchone() is None:
                self.search.command(conn, "delete-all")
            else:
                self.search.remove_rows(conn, conn.execute(f"SELECT id{self._extracted} {chosen}", params).fetchall())
        conn.execute(f"DELETE {chosen}", params)

    def patch(self, conn: Connection, id_: Any, changes: dict[str, Any], rebuilding: bool) -> None:
        index = self.search
        if index is not None and not rebuilding and any(name in index.props for name in changes):
            row = conn.execute(f'SELECT id{index.extracted} FROM "{self.table}" WHERE id = ?', (id_,)).fetchone()
            if row is not None:
                index.remove_rows(conn, [row])
                old = zip(index.props, row[1:], strict=True)
                index.add(conn, id_, (changes.get(prop, value) for prop, value in old))
        names = tuple(changes)
        if (statement := self._updates.get(names)) is None:
            pairs = ", ".join(f"'$.{name}', json(?)" for name in names)
            moved = "".join(f", {name} = ?" for name in names if name in self.stored)
            statement = f'UPDATE "{self.table}" SET body = json_set(body, {pairs}){moved} WHERE id = ?'
            self._updates[names] = statement
        moved_values = [column(value) for name, value in changes.items() if name in self.stored]
        conn.execute(statement, (*[_encode(value).decode() for value in changes.values()], *moved_values, id_))
