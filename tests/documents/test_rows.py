"""A document table's columns: those its kind indexes or searches are stored, written with the body as
`json_extract` reads it; the others are virtual, read from the body; only columns are indexed."""

from __future__ import annotations

import sqlite3

import pytest

from telephony.documents import DocumentTable
from telephony.documents.names import COLUMNS
from telephony.documents.projection import patch, put


def table_with(conn: sqlite3.Connection, **options) -> DocumentTable:
    table = DocumentTable("note", **options)
    table.create(conn)
    return table


def test_the_indexed_and_searched_properties_are_stored_and_the_others_read_from_the_body():
    conn = sqlite3.connect(":memory:")
    table = table_with(conn, indexed=("calldate", ("type", "user_id")), searched=("src",))
    assert table.stored == ("calldate", "user_id", "type", "src")
    stored = {row[1] for row in conn.execute("PRAGMA table_info(doc_note)")}
    assert stored == {"id", "customer_id", "body", *table.stored}
    body = {"calldate": "2026-03-01 08:00:00", "type": "incoming", "user_id": True, "src": "+4420", "name": "Ann",
            "live_id": 2**70}  # fmt: skip
    table._change(conn, [put(1, 7, body), patch(1, {"type": "outgoing", "name": ["A", "B"]})])
    columns = ", ".join(COLUMNS)
    extracted = ", ".join(f"json_extract(body, '$.{name}')" for name in COLUMNS)
    (row,) = conn.execute(f"SELECT {columns} FROM doc_note").fetchall()
    assert row == conn.execute(f"SELECT {extracted} FROM doc_note").fetchone()
    assert row[COLUMNS.index("user_id")] == 1 and row[COLUMNS.index("type")] == "outgoing"
    assert row[COLUMNS.index("name")] == '["A","B"]'


def test_only_properties_kept_as_columns_are_indexed_or_searched():
    with pytest.raises(ValueError, match="names.COLUMNS"):
        DocumentTable("note", indexed=("first_name",))
    with pytest.raises(ValueError, match="names.COLUMNS"):
        DocumentTable("note", searched=("comment",))
