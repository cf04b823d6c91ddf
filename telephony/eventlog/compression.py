"""Event data stored compressed, with zstd dictionaries the log trains on its own events.

One platform's events repeat the same keys and many of the same values, which a dictionary holds
once: an imported CDR's ~540 bytes of JSON are stored in ~60. The writer trains a dictionary when
the log reaches `FIRST_TRAINING` events and again each time it has grown `GROWTH`-fold, from the
latest events of every type, and keeps each in the log's database (`event_dictionaries`), which is
part of the log: whatever copies the log copies them. Each compressed frame names its dictionary
(zstd derives the id from the dictionary's content); data stored before the first dictionary, or that
would not shrink, stays plain JSON. The hash chain is over the plain JSON: compression never changes
a hash, and a tampered dictionary shows as broken ones.

The dictionaries a log holds are a `Dictionaries`, which its connections carry (`connection.py`):
nothing of it lives in this module.
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


class Dictionaries:
    """The dictionaries of one log, by id, ready to decompress with; its connections share it, on any
    thread. A dictionary's decompression tables are made once, when it is registered, so that threads
    only share them read-only; a decompressor is lent to one caller at a time (zstd's rule: never one
    on two threads at once), and kept for the next."""

    def __init__(self) -> None:
        self._known: dict[int, zstandard.ZstdCompressionDict] = {}
        self._idle: dict[int, list[zstandard.ZstdDecompressor]] = {}
        """Each dictionary's decompressors not lent out (a list's `pop` and `append` are atomic)."""
        self._registering = threading.Lock()

    def register(self, content: bytes) -> zstandard.ZstdCompressionDict:
        """Know a dictionary (once: its id is its content's)."""
        dictionary = zstandard.ZstdCompressionDict(content)
        with self._registering:
            known = self._known.get(dictionary.dict_id())
            if known is None:
                frame = zstandard.ZstdCompressor(dict_data=dictionary).compress(b"{}")
                zstandard.ZstdDecompressor(dict_data=dictionary).decompress(frame)  # builds the tables
                self._idle[dictionary.dict_id()] = []
                known = self._known[dictionary.dict_id()] = dictionary
        return known

    def load(self, conn: sqlite3.Connection) -> None:
        """Know the dictionaries the log `conn` opens holds. A reader calls it again inside the read that
        meets newer events (a writer in another process may have trained one since). A damaged one is
        skipped: the events that need it show as unreadable, at their position."""
        for (content,) in _stored(conn, "content"):
            with contextlib.suppress(zstandard.ZstdError):
                self.register(content)

    def plain(self, stored: bytes) -> bytes:
        """The JSON of an event's stored data."""
        if stored[:4] != MAGIC:
            return stored
        try:
            frame = _frame_parameters(stored)
            if frame.content_size > LARGEST_EVENT:
                raise UnreadableData(f"its frame claims {frame.content_size} bytes")
            idle = self._idle.get(frame.dict_id)
            if idle is None:
                raise UnreadableData(f"it needs dictionary {frame.dict_id}, which the log does not hold")
            try:
                decompressor = idle.pop()
            except IndexError:
                decompressor = zstandard.ZstdDecompressor(dict_data=self._known[frame.dict_id])
            try:
                return decompressor.decompress(stored)
            finally:
                idle.append(decompressor)
        except zstandard.ZstdError as exc:
            raise UnreadableData(str(exc)) from exc


def _stored(conn: sqlite3.Connection, columns: str, before: int | None = None) -> list[tuple]:
    """Rows of the log's dictionaries (none when the log has no table for them yet, as an old log
    opened read-only), of those trained before position `before` when given."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'event_dictionaries'").fetchone() is None:
        return []
    where = "" if before is None else " WHERE trained_at < ?"
    return conn.execute(f"SELECT {columns} FROM event_dictionaries{where} ORDER BY id", () if before is None
                        else (before,)).fetchall()  # fmt: skip


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
    dictionary trained inside goes with its row). What it trains, the log's `dictionaries` know at once."""

    def __init__(self, conn: sqlite3.Connection, dictionaries: Dictionaries) -> None:
        latest = conn.execute("SELECT content, trained_at FROM event_dictionaries ORDER BY id DESC LIMIT 1").fetchone()
        self._dictionaries = dictionaries
        self._compressor: zstandard.ZstdCompressor | None = None
        self._next_training = FIRST_TRAINING
        if latest is not None:
            self._use(dictionaries.register(latest[0]), latest[1])

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
            samples = _samples(conn, self._dictionaries)
            dictionary = zstandard.train_dictionary(DICTIONARY_BYTES, samples, level=LEVEL)
            content = dictionary.as_bytes()
            registered = self._dictionaries.register(content)
        except (zstandard.ZstdError, UnreadableData) as exc:
            log.warning("no event dictionary trained at position %d (%s); next try at %d", position, exc,
                        position * GROWTH)  # fmt: skip
            self._next_training = position * GROWTH
            return
        conn.execute("INSERT INTO event_dictionaries (trained_at, content) VALUES (?, ?)", (position, content))
        self._use(registered, position)


def _samples(conn: sqlite3.Connection, dictionaries: Dictionaries) -> list[bytes | bytearray | memoryview]:
    """The latest events' JSON, an even share of `SAMPLES` per type (rare types teach their keys too)."""
    types = [row[0] for row in conn.execute(TYPES)]
    share = max(1, SAMPLES // max(1, len(types)))
    latest = "SELECT data FROM events WHERE type = ? ORDER BY position DESC LIMIT ?"
    return [dictionaries.plain(data) for type_ in types for (data,) in conn.execute(latest, (type_, share))]
