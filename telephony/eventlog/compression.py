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

import contextlib
import logging
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
LARGEST_EVENT = 64 * 1024 * 1024
"""No event's JSON is larger: a frame that says otherwise is damaged."""

_dictionaries: dict[int, zstandard.ZstdCompressionDict] = {}
"""Every dictionary this process knows, by id (ready to decompress with: see `_register`)."""
_per_thread = threading.local()
"""Each thread's decompressors, by dictionary id: one must never be used by two threads at once."""
_registering = threading.Lock()
TYPES = """
WITH RECURSIVE seen(type) AS (
    SELECT min(type) FROM events
    UNION ALL SELECT (SELECT min(type) FROM events WHERE type > seen.type) FROM seen WHERE seen.type IS NOT NULL
) SELECT type FROM seen WHERE type IS NOT NULL
"""
"""Every event type, one seek each in the index by type (a DISTINCT would read all of it)."""
log = logging.getLogger(__name__)
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


def _stored(conn: sqlite3.Connection, columns: str, before: int | None = None) -> list[tuple]:
    """Rows of the log's dictionaries (none when the log has no table for them yet, as an old log
    opened read-only, or a PostgreSQL log, which stores events plain), of those trained before position
    `before` when given."""
    if not isinstance(conn, sqlite3.Connection):
        return []
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'event_dictionaries'").fetchone() is None:
        return []
    where = "" if before is None else " WHERE trained_at < ?"
    return conn.execute(f"SELECT {columns} FROM event_dictionaries{where} ORDER BY id", () if before is None
                        else (before,)).fetchall()  # fmt: skip


def load(conn: sqlite3.Connection) -> None:
    """Know the dictionaries of the log `conn` opens. A reader calls it again inside the read that
    meets newer events (a writer in another process may have trained one since). A damaged one is
    skipped: the events that need it show as unreadable, at their position."""
    for (content,) in _stored(conn, "content"):
        with contextlib.suppress(zstandard.ZstdError):
            _register(content)


def plain(stored: bytes) -> bytes:
    """The JSON of an event's stored data."""
    if stored[:4] != MAGIC:
        return stored
    try:
        frame = _frame_parameters(stored)
        if frame.content_size > LARGEST_EVENT:
            raise UnreadableData(f"its frame claims {frame.content_size} bytes")
        return _decompressor(frame.dict_id).decompress(stored)
    except zstandard.ZstdError as exc:
        raise UnreadableData(str(exc)) from exc


def copy(src: sqlite3.Connection, dst: sqlite3.Connection, before: int) -> None:
    """Give the log `dst` the dictionaries of `src` that events up to `before` may need (inside the
    caller's transaction; call it after reading those events: a dictionary is committed before any
    event that needs it). Later ones hold fragments of later events, so they stay behind."""
    dst.executemany(
        "INSERT OR IGNORE INTO event_dictionaries (id, trained_at, content) VALUES (?, ?, ?)",
        _stored(src, "id, trained_at, content", before),
    )


class Packer:
    """What the writer stores of each event's JSON, and when it trains the next dictionary.

    The writer marks its state at each request's savepoint and rolls it back with the request (a
    dictionary trained inside goes with its row)."""

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

    def mark(self) -> tuple[zstandard.ZstdCompressor | None, int]:
        return self._compressor, self._next_training

    def rollback(self, mark: tuple[zstandard.ZstdCompressor | None, int]) -> None:
        self._compressor, self._next_training = mark

    def appended(self, conn: sqlite3.Connection, position: int) -> None:
        """Once the log has grown enough, train the next dictionary and keep it in the writer's
        transaction. Training never fails a write: when it cannot learn (too few or too alike events,
        an unreadable sample), it tries again after more growth."""
        if position < self._next_training:
            return
        try:
            dictionary = zstandard.train_dictionary(DICTIONARY_BYTES, _samples(conn), level=LEVEL)
            content = dictionary.as_bytes()
            registered = _register(content)
        except (zstandard.ZstdError, UnreadableData) as exc:
            log.warning("no event dictionary trained at position %d (%s); next try at %d", position, exc,
                        position * GROWTH)  # fmt: skip
            self._next_training = position * GROWTH
            return
        conn.execute("INSERT INTO event_dictionaries (trained_at, content) VALUES (?, ?)", (position, content))
        self._use(registered, position)


def _samples(conn: sqlite3.Connection) -> list[bytes | bytearray | memoryview]:
    """The latest events' JSON, an even share of `SAMPLES` per type (rare types teach their keys too)."""
    types = [row[0] for row in conn.execute(TYPES)]
    share = max(1, SAMPLES // max(1, len(types)))
    latest = "SELECT data FROM events WHERE type = ? ORDER BY position DESC LIMIT ?"
    return [plain(data) for type_ in types for (data,) in conn.execute(latest, (type_, share))]
