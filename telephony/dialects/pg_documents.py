"""Document tables in PostgreSQL: the statements that differ from SQLite's, on a table's own rows.

A kind's table keeps `id`, `customer_id` and the JSON `body` as text (the bytes a list answers with,
as SQLite keeps them); each property of `names.COLUMNS` is a `jsonb` column PostgreSQL generates from
the body (`GENERATED ... STORED`), so nothing writes them and SQLite's virtual columns have no
counterpart to add. A patch merges the body in Python, which keeps its keys in place as SQLite's
`json_set` does (`jsonb` would reorder them). Substring search needs no table of its own: a trigram
GIN index (`pg_trgm`) on the lower-cased text of each searched property answers `LIKE '%...%'`.

`for_postgresql` gives a projection's PostgreSQL form: a document table as a `PgDocumentTable` (the
same name, fingerprint and feeds), any other projection as it is."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from ..documents.changes import Patch
from ..documents.derived import DerivedTable
from ..documents.names import COLUMNS
from ..documents.projection import DocumentTable
from ..documents.rows import Rows
from ..projections import Projection, Projections
from ..projections.holding import HeldRows
from . import pg_functions

_encode, _decode = msgspec.json.encode, msgspec.json.decode


def trigram_ops(conn: Any) -> str:
    """The trigram operator class, named in the schema `pg_trgm` was installed in (a test's search path
    holds only its own schema)."""
    row = conn.execute("SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
                       "WHERE e.extname = 'pg_trgm'").fetchone()  # fmt: skip
    if row is None:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        return trigram_ops(conn)
    return f'"{row[0]}".gin_trgm_ops'


def searched_text(prop: str) -> str:
    """The text a searched property is matched as by `like(pattern, prop)`: its ASCII letters lower-cased."""
    return pg_functions.ASCII_LOWER % f"{prop} #>> '{{}}'"


class PgRows(Rows):
    """`Rows` with PostgreSQL's statements where SQLite's differ."""

    def _on_postgresql(self) -> None:
        self.searched = self.search.props if self.search is not None else ()
        self.search, self.stored, self._cols = None, (), ""
        self._insert = (f'INSERT INTO "{self.table}" (id, customer_id, body) VALUES (?, ?, ?) ON CONFLICT (id) '
                        "DO UPDATE SET customer_id = excluded.customer_id, body = excluded.body")  # fmt: skip
        self.held = HeldRows(self._insert, self._held_row)

    def create(self, conn: Any) -> None:
        key = "TEXT" if self.text_ids else "BIGINT"
        generated = "".join(
            f", {name} JSONB GENERATED ALWAYS AS (json_extract(body, '$.{name}')) STORED" for name in COLUMNS
        )
        conn.execute(f'CREATE TABLE IF NOT EXISTS "{self.table}" (id {key} PRIMARY KEY, customer_id BIGINT NOT NULL, '
                     f"body TEXT{generated})")  # fmt: skip
        conn.execute(f'CREATE TABLE IF NOT EXISTS "{self.counts}" (customer_id BIGINT PRIMARY KEY, n BIGINT NOT NULL)')

    def columns(self, body: Any) -> tuple[Any, ...]:
        return ()

    def _virtual(self, conn: Any) -> None:
        """Every property column is there from the start (generated)."""

    def index(self, conn: Any) -> None:
        super().index(conn)
        for prop in self.searched:
            conn.execute(f'CREATE INDEX IF NOT EXISTS "{self.table}_{prop}_trgm" ON "{self.table}" '
                         f"USING gin (({searched_text(prop)}) {trigram_ops(conn)})")  # fmt: skip

    def updated(self, conn: Any, d: Patch) -> None:
        if not d.changes:
            return
        if (held := self.held.get(d.id)) is not None:
            held[1] = (held[1] if isinstance(held[1], dict) else _decode(held[1])) | d.changes
            return
        row = conn.execute(f'SELECT body FROM "{self.table}" WHERE id = ?', (d.id,)).fetchone()
        if row is not None:
            merged = _encode(_decode(row[0]) | d.changes).decode()
            conn.execute(f'UPDATE "{self.table}" SET body = ? WHERE id = ?', (merged, d.id))


class PgDocumentTable(PgRows, DocumentTable):
    """A kind's document table in PostgreSQL."""


class PgDerivedTable(PgRows, DerivedTable):
    """A derived kind's table in PostgreSQL: the ids it gives are drawn as on SQLite (`max + 1`)."""

    def create(self, conn: Any) -> None:
        super().create(conn)
        conn.execute(f'CREATE TABLE IF NOT EXISTS "{self.sources}" (id BIGINT PRIMARY KEY, source TEXT NOT NULL)')
        if not self.rebuilding:
            conn.execute(self._index)
        self._last = None

    def _on_postgresql(self) -> None:
        super()._on_postgresql()
        self._give = (f'INSERT INTO "{self.sources}" (id, source) SELECT coalesce(max(id), 0) + 1, ? '
                      f'FROM "{self.sources}" RETURNING id')  # fmt: skip


class Functions(Projection):
    """The functions and operators (`pg_functions`), made first, and again when their statements change."""

    name = "pg_functions"

    def declaration(self) -> tuple:
        return (*super().declaration(), tuple(pg_functions.statements()))

    def create(self, conn: Any) -> None:
        pg_functions.install(conn)


FORMS: dict[type, type] = {DocumentTable: PgDocumentTable, DerivedTable: PgDerivedTable}
"""The PostgreSQL class of each projection class that has one (others write the SQL both stores share)."""


def for_postgresql(projection: Projection, forms: Mapping[type, type] = FORMS) -> Projection:
    """The PostgreSQL form of `projection`, sharing its state: its class's in `forms`, or itself."""
    form = forms.get(type(projection))
    if form is None:
        return projection
    converted: Any = object.__new__(form)
    converted.__dict__.update(projection.__dict__)
    if isinstance(projection, DocumentTable):
        writes = converted.created, converted.updated, converted.deleted, converted.cleared
        converted._actions = {w.__name__: w for w in writes}
        converted._on_postgresql()
    return converted


def on_postgresql(projections: Projections, forms: Mapping[type, type] = FORMS) -> Projections:
    """The same set of projections in their PostgreSQL forms (what a PostgreSQL log applies), after
    the functions their SQL uses."""
    converted = [for_postgresql(p, {**FORMS, **forms}) for p in projections.all]
    return Projections([Functions(), *converted], projections.catalogue)
