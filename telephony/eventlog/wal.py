"""Keeps the log's write-ahead file from growing without end while reads never pause.

SQLite starts its WAL file over only once every frame is copied back into the database and no reader
still holds an older snapshot; a server answering lists all day often has such a reader at the moment
of a checkpoint, and once the file is past `wal_autocheckpoint` pages every commit also pays for a
checkpoint. After a commit that leaves the file past `LIMIT_BYTES`, the writer asks for a TRUNCATE
checkpoint, waiting at most `WAIT_MS` for the readers of older snapshots (a list holds one for a
statement only). When a reader holds on longer (a `verify` or `replay --out` reading the whole log),
the writer tries again only once the file has grown by another `LIMIT_BYTES`, so a long read costs
the commits nothing meanwhile.
"""

from __future__ import annotations

import logging
import os
import sqlite3

LIMIT_BYTES = 16 * 1024 * 1024
WAIT_MS = 20
log = logging.getLogger(__name__)


class WalBound:
    """Run by the writer after each commit, on its own connection; never raises (the commit is done)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        path = conn.execute("PRAGMA database_list").fetchone()[2]
        self._wal = f"{path}-wal" if path else None
        self._busy_ms = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
        self._refused_at = 0
        """The file's size when a reader last kept the checkpoint from finishing (0: none since)."""
        self.truncated = 0

    def committed(self, conn: sqlite3.Connection) -> None:
        if self._wal is None:
            return
        try:
            size = os.stat(self._wal).st_size
        except OSError:
            return
        if size <= LIMIT_BYTES + self._refused_at:
            return
        if self._truncate(conn):
            self._refused_at, self.truncated = 0, self.truncated + 1
        else:
            self._refused_at = size

    def _truncate(self, conn: sqlite3.Connection) -> bool:
        conn.execute(f"PRAGMA busy_timeout={WAIT_MS}")
        try:
            busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            return not busy
        except sqlite3.Error as exc:  # a statement of this connection still open, or worse: next time
            log.warning("the WAL checkpoint failed (%s); trying again after more growth", exc)
            return False
        finally:
            conn.execute(f"PRAGMA busy_timeout={self._busy_ms}")
