"""Uploaded files, stored once by content: `blob.stored` {sha256, media_type, base64}.

A file uploaded twice (or by two resources) is one event and one row; documents refer to it by
its SHA-256. Files are in the log like everything else, so a replay restores them.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..domain.events.log import BlobStored
from ..eventlog import NO_STREAM, Connection, NewEvent, RecordedEvent
from ..eventlog.connection import BYTES
from .base import Projection

if TYPE_CHECKING:
    from ..documents.listing import ReadStore


class Blobs(Projection):
    name = "blobs"
    tables = ("blobs",)
    handles = frozenset({BlobStored})

    def create(self, conn: Connection) -> None:
        conn.execute("CREATE TABLE IF NOT EXISTS blobs (sha256 TEXT PRIMARY KEY, media_type TEXT NOT NULL, "
                     f"data {BYTES[conn.dialect]})")  # fmt: skip

    def apply(self, conn: Connection, event: RecordedEvent) -> None:
        match event.event:
            case BlobStored(sha256=sha, media_type=media_type, base64=encoded):
                conn.execute(
                    "INSERT INTO blobs VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                    (sha, media_type, base64.b64decode(encoded)),
                )


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def store_once(conn: Connection, data: bytes, media_type: str) -> list[NewEvent]:
    """The event that stores `data`, or none when the same bytes are stored already."""
    sha = sha256_of(data)
    if conn.execute("SELECT 1 FROM blobs WHERE sha256 = ?", (sha,)).fetchone():
        return []
    stored = BlobStored(sha256=sha, media_type=media_type, base64=base64.b64encode(data).decode())
    return [NewEvent(stream=f"blob-{sha}", event=stored, expected_version=NO_STREAM)]


async def load(reader: ReadStore, sha256: str) -> tuple[str, bytes] | None:
    """A stored file's media type and bytes."""
    rows = await reader.execute_fetchall("SELECT media_type, data FROM blobs WHERE sha256 = ?", (sha256,))
    return next(iter(rows)) if rows else None


def every(conn: Connection) -> Iterator[tuple[str, str, bytes]]:
    """(sha256, media type, bytes) of every stored file, by sha256."""
    yield from conn.execute("SELECT sha256, media_type, data FROM blobs ORDER BY sha256")
