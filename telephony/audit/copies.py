"""Point-in-time copies: the log up to a position or time, with its projections, in a new data dir."""

from __future__ import annotations

import shutil
from pathlib import Path

from ..eventlog import LOG_FILE, compression, store
from ..eventlog.connection import LogConnection
from ..eventlog.pg_connection import Snapshot
from ..projections import Projections

CARRIED_FILES = ("control-key.sha256", "secret.key")
"""Files of a data dir that belong with its log (keys), copied by `replay_into`."""


def _copy_events(src: LogConnection | Snapshot, dst: LogConnection, until: int | None, until_time: str | None) -> int:
    """Copy the log's events (up to a point) and the dictionaries they need (a PostgreSQL log stores
    its events plain)."""
    dst.execute("BEGIN IMMEDIATE")
    copied = last = 0
    insert = f"INSERT INTO events ({store.COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)"
    for rows in store.raw_chunks(src, until=until, until_time=until_time, chunk=5000):
        dst.executemany(insert, rows)
        copied, last = copied + len(rows), rows[-1][0]
    if isinstance(src, LogConnection):
        compression.copy(src, dst, before=last)
    dst.execute("COMMIT")
    return copied


def replay_into(
    data_dir: Path,
    out_dir: Path,
    projections: Projections,
    *,
    until: int | None = None,
    until_time: str | None = None,
    progress: bool = True,
    log_url: str = "",
) -> int:
    """Write the state at `until` (position) or `until_time` into a new data dir, with the data dir's keys,
    from its SQLite log or from the PostgreSQL log at `log_url` (read at one moment)."""
    if (out_dir / LOG_FILE).exists():
        raise FileExistsError(f"{out_dir / LOG_FILE} exists; replay writes into a new data dir")
    out_dir.mkdir(parents=True, exist_ok=True)
    src: LogConnection | Snapshot = Snapshot(log_url) if log_url else store.connect(data_dir / LOG_FILE, readonly=True)
    dst = store.connect(out_dir / LOG_FILE, synchronous="NORMAL")
    try:
        copied = _copy_events(src, dst, until, until_time)
        projections.rebuild(dst, progress=progress)
    except BaseException:
        dst.close()
        for suffix in ("", "-wal", "-shm"):  # a new data dir holds all of its state or nothing
            (out_dir / (LOG_FILE + suffix)).unlink(missing_ok=True)
        raise
    finally:
        src.close()
        dst.close()
    for name in CARRIED_FILES:
        if (data_dir / name).exists():
            shutil.copy2(data_dir / name, out_dir / name)
    return copied
