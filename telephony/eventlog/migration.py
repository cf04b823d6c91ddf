"""Copying a log to another store, row for row (`telephony migrate`).

Every stored column is copied as it is, but the data, which is made plain (a SQLite log compresses
older events with its dictionaries; a PostgreSQL log stores them plain): the hash chain is over the
plain JSON, so the copy's chain is the source's, to the same head hash. The copy is one transaction
under the target's commit lock, into a target log that holds no events."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import pg_store, store
from .connection import plain

CHUNK = 5000


class TargetNotEmpty(Exception):
    """The target log already holds events; a migration copies into an empty one only."""


def copy_log(src: Any, dst: Any, progress: Callable[[int], object] | None = None) -> int:
    """Copy every event of `src` into the empty PostgreSQL log `dst`; the number copied."""
    dst.execute("BEGIN")
    try:
        pg_store.lock(dst)
        if store.head(dst)[0] != 0:
            raise TargetNotEmpty(f"the target log holds {store.count(dst)} events; migrate into an empty one")
        copied = 0
        for rows in store.raw_chunks(src, chunk=CHUNK):
            plain_rows = [(*row[:5], plain(src, row[5]), *row[6:]) for row in rows]
            dst.executemany(f"INSERT INTO events ({store.COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)", plain_rows)
            copied += len(rows)
            if progress is not None:
                progress(len(rows))
        pg_store.notify(dst, copied)
        dst.execute("COMMIT")
    except BaseException:
        dst.execute("ROLLBACK")
        raise
    return copied
