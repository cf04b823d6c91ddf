"""A document table's columns: those its kind indexes or searches are stored, written with the body as
`json_extract` reads it; the others are virtual, read from the body; only columns are indexed."""

from __future__ import annotations

import sqlite3

import pytest

from telephony.documents import DocumentTable
from telephony.documents.changes import Patch, Put
from telephony.documents.names import COLUMNS
from telephony.eventlog import store
from telephony.eventlog.connection import SqliteConnection
from telephony.wiring import read_models


def table_with(conn: sqlite3.Connection, **options) -> DocumentTable:
    table = DocumentTable("note", **options)
    table.create(conn)
    return table


def test_the_indexed_and_searched_properties_are_stored_and_the_others_read_from_the_body():
    conn = sqlite3.connect(":memory:", factory=SqliteConnection)
    table = table_with(conn, indexed=("calldate", ("type", "user_id")), searched=("src",))
    assert table.store.stored == ("calldate", "user_id", "type", "src")
    stored = {row[1] for row in conn.execute("PRAGMA table_info(doc_note)")}
    assert stored == {"id", "customer_id", "body", *table.store.stored}
    body = {"calldate": "2026-03-01 08:00:00", "type": "incoming", "user_id": True, "src": "+4420", "name": "Ann",
            "live_id": 2**70}  # fmt: skip
    table._change(conn, [Put(1, 7, body), Patch(1, {"type": "outgoing", "name": ["A", "B"]})])
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


def test_a_new_data_dirs_tables_are_made_whole_and_a_loaded_rebuilds_get_their_columns_after_its_load(tmp_path):
    """Adding the virtual columns one by one costs a read of the whole schema each (half a second for a
    new data dir): an empty table is made with them at once, with the same columns in the same order."""
    conn = store.connect(tmp_path / "events.db", synchronous="NORMAL")
    changes: list[str] = []
    conn.set_trace_callback(lambda sql: changes.append(sql) if sql.startswith("ALTER TABLE") else None)
    read_models.projection_set(None).prepare(conn, progress=False)
    assert changes == []
    fresh = [row[1] for row in conn.execute("PRAGMA table_xinfo(doc_cdr)")]
    loaded = DocumentTable("note", indexed=("calldate",))
    loaded.rebuilding = True
    loaded.create(conn)
    loaded._change(conn, [Put(1, 7, {"calldate": "2026-03-01 08:00:00"})])
    loaded.settle(conn)
    assert len(changes) == len(COLUMNS) - 1  # a table holding rows gets its virtual columns after the load
    note = [row[1] for row in conn.execute("PRAGMA table_xinfo(doc_note)")]
    assert fresh[:3] == note[:3] == ["id", "customer_id", "body"] and sorted(fresh) == sorted(note)
    assert conn.execute("SELECT calldate, live_id FROM doc_note").fetchone() == ("2026-03-01 08:00:00", None)
