"""Reading a log file through once, in order, before a job that reads all of it in another order.

A rebuild or a comparison reads the pages of a data dir's database in b-tree order, page by page;
when the file is not in the OS's page cache, each is a small read from the disk: `verify` over a
million CDRs took 20.8 s on a cold file against 13.5 s on a cached one. The same file read in order,
in large blocks, takes well under a second, and then those jobs find every page cached. It is done
only when the file fits in half of the memory available, so it never pushes out what it brought in.
"""

from __future__ import annotations

import threading
from pathlib import Path

BLOCK_BYTES = 1024 * 1024
MEMINFO = Path("/proc/meminfo")


def available_memory() -> int:
    """Bytes of memory the OS can give without swapping (`MemAvailable`); 0 where it does not say."""
    try:
        for line in MEMINFO.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def read_through(path: Path) -> int:
    """Read the file at `path` once, in order, when it fits in half the available memory; the bytes
    read (0 when it was left alone or cannot be read)."""
    try:
        if path.stat().st_size > available_memory() // 2:
            return 0
        block, read = bytearray(BLOCK_BYTES), 0
        with path.open("rb", buffering=0) as file:
            while n := file.readinto(block):
                read += n
        return read
    except OSError:
        return 0


def in_background(path: Path) -> threading.Thread:
    """`read_through` on a thread of its own (its reads wait on the disk, not on the interpreter)."""
    thread = threading.Thread(target=read_through, args=(path,), name="readahead", daemon=True)
    thread.start()
    return thread
