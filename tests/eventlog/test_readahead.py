"""Reading a log file through before a whole-file job: only when it fits in half the free memory."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from telephony.eventlog import readahead, store


@pytest.fixture
def log_file(tmp_path):
    path = tmp_path / "events.db"
    path.write_bytes(bytes(range(256)) * 9000)  # 2.2 blocks
    return path


def test_a_file_that_fits_is_read_through_to_its_end(log_file, monkeypatch):
    monkeypatch.setattr(readahead, "available_memory", lambda: 2 * log_file.stat().st_size)
    assert readahead.read_through(log_file) == log_file.stat().st_size == 256 * 9000


def test_a_file_larger_than_half_the_available_memory_is_left_alone(log_file, monkeypatch):
    monkeypatch.setattr(readahead, "available_memory", lambda: 2 * log_file.stat().st_size - 2)
    opened = []
    monkeypatch.setattr(readahead.Path, "open", lambda self, *a, **k: opened.append(self))
    assert readahead.read_through(log_file) == 0 and opened == []


def test_nothing_is_read_where_the_os_does_not_say_what_memory_is_free(log_file, tmp_path, monkeypatch):
    monkeypatch.setattr(readahead, "MEMINFO", tmp_path / "missing")
    assert readahead.available_memory() == 0
    assert readahead.read_through(log_file) == 0
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24000000 kB\nMemFree:         1000 kB\nMemAvailable:    2048 kB\n")
    monkeypatch.setattr(readahead, "MEMINFO", meminfo)
    assert readahead.available_memory() == 2048 * 1024


def test_a_missing_file_reads_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(readahead, "available_memory", lambda: 1 << 40)
    assert readahead.read_through(tmp_path / "gone.db") == 0


PROBE = """
import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDWR)
# who holds SQLite's SHARED byte range (510 bytes from PENDING_BYTE + 2) of the database file
asked = struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0x40000002, 510, 0)
kind, _, _, _, pid = struct.unpack("hhqqi", fcntl.fcntl(fd, fcntl.F_GETLK, asked))
print(pid if kind != fcntl.F_UNLCK else 0)
"""


def holder_of_shared_lock(path) -> int:
    found = subprocess.run([sys.executable, "-c", PROBE, str(path)], capture_output=True, text=True, check=True)
    return int(found.stdout)


def test_the_read_in_the_background_leaves_the_locks_of_this_processs_connections(tmp_path):
    """Closing a descriptor of a file drops every POSIX lock its process holds on it, SQLite's too: the
    file is read by a process of its own, and the connections open here keep their locks."""
    path = tmp_path / "events.db"
    writer = store.connect(path)
    writer.execute("CREATE TABLE t (x)")
    writer.execute("INSERT INTO t VALUES (1)")
    reader = store.connect(path, readonly=True)
    assert reader.execute("SELECT count(*) FROM t").fetchone() == (1,)
    assert holder_of_shared_lock(path) == os.getpid()
    assert readahead.in_background(path).wait(timeout=30) == 0
    assert holder_of_shared_lock(path) == os.getpid()
    writer.close()
    reader.close()
