"""A full rebuild into a new database file, moved over the data dir's when it is whole.

`telephony replay` rebuilds every projection into a new file beside the log's: it copies every table
the projections do not own (the log first of all, a sequential copy), rebuilds the read models there
with no journal and no waits for the disk (nothing in the file counts until it is complete), and then
moves it over the old file at once (`os.replace`). A rebuild that stops half-way, for whatever
reason, leaves the old file and its read models as they were; no page is written twice (the WAL) and
no old table is dropped. A running server's rebuild of stale projections stays in place: it rebuilds
some projections, in the file the server has open.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ..datadir import DataDirBusy
from ..eventlog import store
from ..eventlog.connection import SqliteConnection
from .runner import Projections

FRESH_SETTINGS = ("journal_mode=OFF", "synchronous=OFF", "temp_store=MEMORY", f"mmap_size={store.MAPPED}")
"""A file nothing reads before it is whole: no rollback journal, no syncs, temporary sorts in memory, read
mapped (the rebuild sets its own large cache: `runner.BULK_SETTINGS`)."""
SHADOWS = ("_data", "_idx", "_config", "_docsize", "_content")
"""The suffixes of the tables an FTS5 table keeps its index in."""


def rebuild_file(path: Path, projections: Projections, *, progress: bool = True) -> int:
    """Rebuild every projection of the log at `path` into a new file and move it into place; returns
    the position replayed to."""
    building = path.with_name(path.name + ".rebuild")
    building.unlink(missing_ok=True)
    log = store.connect(path)
    try:
        if log.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]:  # the file alone must hold it all
            raise DataDirBusy(f"{path} is being read by another process: its WAL cannot be folded in (retry)")
        log.execute(f"PRAGMA mmap_size={store.MAPPED}")
        os.close(os.open(building, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
        conn = sqlite3.connect(building, isolation_level=None, check_same_thread=False, factory=SqliteConnection)
        try:
            for setting in FRESH_SETTINGS:
                conn.execute(f"PRAGMA {setting}")
            _copy_kept(conn, path, {table for projection in projections.all for table in projection.tables})
            last = projections.rebuild(conn, progress=progress, log=log)
            conn.execute("PRAGMA journal_mode=WAL")
        finally:
            conn.close()
    except BaseException:
        building.unlink(missing_ok=True)
        raise
    finally:
        log.close()
    _sync(building)  # on the disk before it stands for the log: a power cut leaves one file or the other
    for leftover in ("-wal", "-shm"):  # empty once the last connection closed: the new file starts clean
        path.with_name(path.name + leftover).unlink(missing_ok=True)
    os.replace(building, path)
    _sync(path.parent)
    return last


def _sync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _copy_kept(conn: sqlite3.Connection, path: Path, owned: set[str]) -> None:
    """Copy the tables of the file at `path` that no projection owns, rows, indexes and triggers."""
    conn.execute("ATTACH DATABASE ? AS old", (str(path),))
    schema = conn.execute("SELECT type, name, tbl_name, sql FROM old.sqlite_master WHERE sql IS NOT NULL "
                          "AND name NOT LIKE 'sqlite_%' ORDER BY type != 'table'").fetchall()  # fmt: skip
    virtual = {name for type_, name, _, sql in schema if type_ == "table" and sql.upper().startswith("CREATE VIRTUAL")}
    shadows = {f"{name}{suffix}" for name in virtual & owned for suffix in SHADOWS}
    conn.execute("BEGIN")
    for type_, name, table, sql in schema:
        if table in owned or table in shadows:
            continue
        conn.execute(sql)
        if type_ == "table" and name not in virtual:
            conn.execute(f'INSERT INTO main."{name}" SELECT * FROM old."{name}"')
    conn.execute("COMMIT")
    conn.execute("DETACH DATABASE old")
