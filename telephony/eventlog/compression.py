"""Event data stored compressed, with zstd dictionaries the log trains on its own events.

One platform's events repeat the same keys and many of the same values, which a dictionary holds
once: an imported CDR's ~540 bytes of JSON are stored in ~60. The writer trains a dictionary when
the log reaches `FIRST_TRAINING` events and again each time it has grown `GROWTH`-fold, from the
latest events of every type, and keeps each in the log's database (`event_dictionaries`), which is
part of the log: whatever copies the log copies them. Each compressed frame names its dictionary
(zstd derives the id from the dictionary's content, so one registry serves every log a process
opens); data stored before the first dictionary, or that would not shrink, stays plain JSON. The
hash chain is over the plain JSON: compression never changes a hash, and a tampered dictionary
shows as broken ones.
"""

from __future__ import annotations

import sqlite3
import threading

import zstandard

SCHEMA = """
CREATE TABLE IF NOT EXISTS event_dictionaries (
    id INTEGER PRIMARY KEY, trained_at INTEGER NOT NULL, content BLOB NOT NULL
)
"""
MAGIC = b"\x28\xb5\x2f\xfd"
"""How every zstd frame begins; plain JSON never does."""
FIRST_TRAINING = 1000
GROWTH = 8
SAMPLES = 2000
DICTIONARY_BYTES = 16384
LEVEL = 3

_dictionaries: dict[int, zstandard.ZstdCompressionDict] = {}
"""Every dictionary this process knows, by id (ready to decompress with: see `_register`)."""
_per_thread = threading.local()
"""Each thread's decompressors, by dictionary id: one must never be used by two threads at once."""
_registering = threading.Lock()
_frame_parameters = zstandard.get_frame_parameters


class UnreadableData(ValueError):
    """Stored data that is no frame of a dictionary the log holds (damaged, or its dictionary lost)."""


def _register(content: bytes) -> zstandard.ZstdCompressionDict:
    """Know a dictionary; its decompression tables are made here, once, so that threads only share them
    read-only (zstd's rule for a shared dictionary)."""
    dictionary = zstandard.ZstdCompressionDict(content)
    with _registering:
        if dictionary.dict_id() not in _dictionaries:
            frame = zstandard.ZstdCompressor(dict_data=dictionary).compress(b"{}")
            zstandard.ZstdDecompressor(dict_data=dictionary).decompress(frame)  # builds the tables
            _dictionaries[dictionary.dict_id()] = dictionary
    return dictionary


def _decompressor(dictionary_id: int) -> zstandard.ZstdDecompressor:
    """The calling thread's decompressor for a dictionary."""
    mine: dict[int, zstandard.ZstdDecompressor] = _per_thread.__dict__.setdefault("decompressors", {})
    found = mine.get(dictionary_id)
    if found is None:
        dictionary = _dictionaries.get(dictionary_id)
        if dictionary is None:
            raise UnreadableData(f"it needs dictionary {dictionary_id}, which the log does not hold")
        found = mine[dictionary_id] = zstandard.ZstdDecompressor(dict_data=dictionary)
    return found


def load(conn: sqlite3.Connection) -> None:
    """Know the dictionaries of the log `conn` opens (one opened read-only may not hold the table yet)."""
    found = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'event_dictionaries'").fetchone()
    if found is not None:
        for (content,) in conn.execute("SELECT content FROM event_dictionaries ORDER BY id"):
            _register(content)


def plain(stored: bytes) -> bytes:
    """The JSON of an event's stored data."""
    if stored[:4] != MAGIC:
        return stored
    try:
        return _decompressor(_frame_parameters(stored).dict_id).decompress(stored)
    except zstandard.ZstdError as exc:
        raise UnreadableData(str(exc)) from exc


def copy(src: sqlite3.Connection, dst: sqlite3.Connection) -> None:
    """Give the log `dst` the dictionaries of `src` (inside the caller's transaction)."""
    dst.executemany(
        "INSERT OR IGNORE INTO event_dictionaries (id, trained_at, content) VALUES (?, ?, ?)",
        src.execute("SELECT id, trained_at, content FROM event_dictionaries ORDER BY id").fetchall(),
    )


class Packer:
    """What the writer stores of each event's JSON, and when it trains the next dictionary."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        latest = conn.execute("SELECT content, trained_at FROM event_dictionaries ORDER BY id DESC LIMIT 1").fetchone()
        self._compressor: zstandard.ZstdCompressor | None = None
        self._next_training = FIRST_TRAINING
        if latest is not None:
            self._use(_register(latest[0]), latest[1])

    def _use(self, dictionary: zstandard.ZstdCompressionDict, trained_at: int) -> None:
        self._compressor = zstandard.ZstdCompressor(dict_data=dictionary, level=LEVEL, write_checksum=False)
        self._next_training = trained_at * GROWTH

    def pack(self, data: bytes) -> bytes:
        if self._compressor is None:
            return data
        packed = self._compressor.compress(data)
        return packed if len(packed) < len(data) else data

    def appended(self, conn: sqlite3.Connection, position: int) -> None:
        """Once the log has grown enough, train the next dictionary and keep it in the writer's
        transaction (a writer that rolls back makes a new `Packer`: the dictionary goes with the events)."""
        if position < self._next_training:
            return
        try:
            dictionary = zstandard.train_dictionary(DICTIONARY_BYTES, _samples(conn), level=LEVEL)
        except zstandard.ZstdError:  # too few or too alike to learn from: try again after more growth
            self._next_training = position * GROWTH
            return
        content = dictionary.as_bytes()
        conn.execute("INSERT INTO event_dictionaries (trained_at, content) VALUES (?, ?)", (position, content))
        self._use(_register(content), position)


def _samples(conn: sqlite3.Connection) -> list[bytes | bytearray | memoryview]:
    """The latest events' JSON, an even share of `SAMPLES` per type (rare types teach their keys too)."""
    types = [row[0] for row in conn.execute("SELECT DISTINCT type FROM events")]
    share = max(1, SAMPLES // max(1, len(types)))
    latest = "SELECT data FROM events WHERE type = ? ORDER BY position DESC LIMIT ?"
    return [plain(data) for type_ in types for (data,) in conn.execute(latest, (type_, share))]
