"""Reading a log file through before a whole-file job: only when it fits in half the free memory."""

from __future__ import annotations

import pytest

from telephony.eventlog import readahead


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


def test_a_missing_file_reads_nothing_and_the_background_read_ends(tmp_path, log_file, monkeypatch):
    monkeypatch.setattr(readahead, "available_memory", lambda: 1 << 40)
    assert readahead.read_through(tmp_path / "gone.db") == 0
    thread = readahead.in_background(log_file)
    thread.join(timeout=10)
    assert not thread.is_alive() and thread.daemon
