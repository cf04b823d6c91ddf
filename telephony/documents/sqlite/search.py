"""Substring search of a document table's text properties on SQLite: a contentless FTS5 `trigram` table
per searched property (a trigram common in one costs nothing to a search of another)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from ...eventlog.connection import Connection, SqliteConnection
from ..names import search_of, table_of

NOT_ASCII = "*[^\x01-\x7f]*"
"""A GLOB that text holding any character outside ASCII matches."""
FILL_HASH_BYTES = 16 * 1024 * 1024
"""A fill's FTS5 `hashsize` (1 MB by default): fewer, larger segments, a third less merging at 1M rows."""
DEFAULT_HASH_BYTES = 1024 * 1024
FOREIGN = "\xff"
"""What every non-ASCII character is indexed as: no ASCII pattern can hold it, so none matches it."""


def searchable(value: Any) -> str | None:
    """The text a value is indexed as: the SQL path's `CAST(value AS TEXT)` with non-ASCII characters made
    `FOREIGN`; None for a null (never matched) or a value that is not text (searched properties are)."""
    if isinstance(value, str):
        return value if value.isascii() else "".join(c if c.isascii() else FOREIGN for c in value)
    return str(int(value)) if isinstance(value, int) else None  # a bool as 1 or 0


class Match(msgspec.Struct, frozen=True):
    """`prop like pattern` answered by a search table: the FTS5 `table` and its bound MATCH `phrase`."""

    table: str
    phrase: str

    @property
    def condition(self) -> str:
        """The same as an SQL condition on a document table's `id` (the phrase bound)."""
        return f'id IN (SELECT rowid FROM "{self.table}" WHERE "{self.table}" MATCH ?)'


def match(table: str, prop: str, pattern: str) -> Match | None:
    """`prop like pattern` on the documents of `table`, when its search index answers it: a substring of
    three or more ASCII characters without wildcards is a phrase of trigrams, which means what the SQL
    path means (ASCII case folded as LIKE folds it; no ASCII pattern holds a `FOREIGN` character)."""
    text = pattern[1:-1] if pattern.startswith("%") and pattern.endswith("%") else ""
    if len(text) < 3 or not text.isascii() or "%" in text or "_" in text:
        return None
    return Match(search_of(table, prop), '"' + text.replace('"', '""') + '"')


class SearchIndex:
    """The FTS5 tables of one kind's searched properties, each row's rowid its document's id, kept in the
    documents' transaction and filled once after a rebuild."""

    def __init__(self, kind: str, props: Sequence[str]) -> None:
        self.props = tuple(props)
        self.tables = tuple(search_of(table_of(kind), prop) for prop in self.props)
        self._add = tuple(f'INSERT INTO "{table}" (rowid, text) VALUES (?, ?)' for table in self.tables)
        self._remove = tuple(f'INSERT INTO "{table}" ("{table}", rowid, text) VALUES (\'delete\', ?, ?)'
                             for table in self.tables)  # fmt: skip
        self.extracted = "".join(f", {prop}" for prop in self.props)
        """The searched properties' columns, after what a statement reads first."""

    def create(self, conn: Connection) -> None:
        for table in self.tables:
            conn.execute(
                f'CREATE VIRTUAL TABLE IF NOT EXISTS "{table}" USING fts5(text, '
                "tokenize = 'trigram', content = '', columnsize = 0, detail = full)"
            )

    def add(self, conn: Connection, id_: int | str, values: Iterable[Any]) -> None:
        """Index a document's searched values (in `props` order)."""
        for insert, value in zip(self._add, values, strict=True):
            if (text := searchable(value)) is not None:
                conn.execute(insert, (id_, text))

    def remove_rows(self, conn: Connection, rows: Sequence[Sequence[Any]]) -> None:
        """Unindex documents given as (id, value, ...) rows (a contentless table needs what it indexed)."""
        for n, delete in enumerate(self._remove, start=1):
            conn.executemany(delete, [(row[0], text) for row in rows if (text := searchable(row[n])) is not None])

    def command(self, conn: Connection, command: str, value: Any = None) -> None:
        """An FTS5 command to each table: `delete-all`; `optimize` (each index in one segment, read as one
        b-tree: a fifth off a search after a rebuild); `hashsize` (`value`, in bytes)."""
        for table in self.tables:
            conn.execute(f'INSERT INTO "{table}" ("{table}", rank) VALUES (?, ?)', (command, value))

    def fill(self, conn: SqliteConnection, documents: str) -> None:
        """Index every row of the document table `documents` (after a rebuild) by one statement per property."""
        conn.create_function("searchable", 1, searchable, deterministic=True)
        self.command(conn, "hashsize", FILL_HASH_BYTES)
        try:
            for prop, table in zip(self.props, self.tables, strict=True):
                text = f"iif(typeof({prop}) = 'text' AND NOT {prop} GLOB ?, {prop}, searchable({prop}))"
                conn.execute(f'INSERT INTO "{table}" (rowid, text) SELECT id, {text} FROM "{documents}" '
                             f"WHERE typeof({prop}) IN ('text', 'integer')", (NOT_ASCII,))  # fmt: skip
        finally:
            self.command(conn, "hashsize", DEFAULT_HASH_BYTES)
