"""One writer per data dir: the server and offline writers (import, in-place replay) hold a lock.

The lock is an advisory `flock` on `<data_dir>/.lock`; the kernel drops it when its process dies,
so a crashed server never leaves the data dir locked. Servers of a PostgreSQL log share their data
dir (its keys), each holding the lock `shared`: an offline writer is refused while any of them runs.
"""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_FILE = ".lock"
READ_ONLY = (errno.EROFS, errno.EACCES, errno.EPERM)
"""What the system answers a write where nothing may be written."""


class DataDirUnusable(RuntimeError):
    """The data dir cannot be used as it is; the message names what and says what to do (the command
    prints it as one line and exits 2)."""


class DataDirBusy(DataDirUnusable):
    """Another process is writing to this data dir."""


class DataDirReadOnly(DataDirUnusable):
    """The data dir cannot be written (a backup, an evidence copy, a read-only mount)."""


@contextmanager
def exclusive(data_dir: Path, *, shared: bool = False) -> Iterator[None]:
    """Hold the data dir's lock (`shared`: beside other servers of one PostgreSQL log)."""
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(data_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        if exc.errno not in READ_ONLY:
            raise
        raise DataDirReadOnly(f"{data_dir} cannot be written ({exc.strerror}): this command writes there; "
                              "`log`, `verify`, `export`, `events` and `replay --out NEW_DIR` read it as it "
                              "is") from None  # fmt: skip
    try:
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DataDirBusy(f"{data_dir} is in use by another telephony process (stop the server first)") from None
        yield
    finally:
        os.close(fd)
