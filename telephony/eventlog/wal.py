"""Keeps the log's write-ahead file from growing without end while reads never pause.

SQLite starts its WAL file over only once every frame is copied back into the database and no reader
still holds an older snapshot; a server answering lists all day nearly always has such a reader, so
the file grew by megabytes a second under calls and lists, and once past `wal_autocheckpoint` pages
every commit also paid for a checkpoint. After a commit that leaves the file past `LIMIT_BYTES`, the
writer asks for a TRUNCATE checkpoint, waiting at most `WAIT_MS` for the readers of older snapshots
(the loop's reader lets its snapshot go at the end of each loop iteration); when one holds on
longer, the next commit tries again.
"""

from __future__ import annotations

import os
import sqlite3

LIMIT_BYTES = 16 * 1024 * 1024
WAIT_MS = 20


class WalBound:
    """Run by the writer after each commit, on its own connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        path = conn.execute("PRAGMA database_list").fetchone()[2]
        self._wal = f"{path}-wal" if path else None
        self._busy_ms = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
        self.truncated = 0

    def committed(self, conn: sqlite3.Connection) -> None:
        if self._wal is None:
            return
        try:
            size = os.stat(self._wal).st_size
        except FileNotFoundError:
            return
        if size <= LIMIT_BYTES:
            return
        conn.execute(f"PRAGMA busy_timeout={WAIT_MS}")
        try:
            busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.OperationalError:  # a statement of this connection is still open: next time
            busy = 1
        finally:
            conn.execute(f"PRAGMA busy_timeout={self._busy_ms}")
        self.truncated += not busy
