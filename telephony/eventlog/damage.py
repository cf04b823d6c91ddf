"""Events checked against the hash chain as they are read, and the log's last event before a start.

A start appends after the head: a last event changed or damaged since it was written (a flipped byte,
an edit, a torn copy) would have new events chained onto a hash that no longer holds, and a start would
report health `ok` on it. `check_head` reads the last two events and checks the last one's hash against
its stored bytes and its predecessor's hash, and that it reads as its type: a few microseconds, whatever
the log's length. A damage further back is `telephony verify`'s to find; `telephony log` checks each
event it prints (`checked`)."""

from __future__ import annotations

from typing import Any

from ..domain.events import EVENTS, Catalogue
from . import compression, store
from .connection import plain
from .hashing import GENESIS, as_bytes, canonical_bytes, chain_hash
from .records import LogDamaged


def checked(row: tuple, previous: bytes, conn: Any) -> bytes:
    """The stored `row`'s data (read through `conn`) made plain, when its hash holds over its bytes and
    `previous` (its predecessor's hash); `LogDamaged` naming its position otherwise."""
    position, stream, version, type_, schema, data, meta, recorded_at, digest = row
    try:
        content = plain(conn, as_bytes(data))
    except compression.UnreadableData as exc:
        raise LogDamaged(position, f"cannot be read: {exc}") from None
    canonical = canonical_bytes(position, stream, version, type_, schema, recorded_at, content, as_bytes(meta))
    if chain_hash(previous, canonical) != as_bytes(digest):
        raise LogDamaged(position, "does not match its hash: it was changed or damaged after it was written")
    return content


def previous_hash(conn: Any, position: int) -> bytes:
    """The hash the event at `position` is chained onto: its predecessor's (the genesis hash for the first)."""
    if position == 1:
        return GENESIS
    found = conn.execute("SELECT hash FROM events WHERE position = ?", (position - 1,)).fetchone()
    if found is None:
        raise LogDamaged(position, f"follows no event: position {position - 1} is missing")
    return as_bytes(found[0])


def check_head(conn: Any, catalogue: Catalogue = EVENTS) -> None:
    """Raise `LogDamaged` when the last event is not what its hash says, or cannot be read."""
    last = conn.execute(f"SELECT {store.COLUMNS} FROM events ORDER BY position DESC LIMIT 1").fetchone()
    if last is None:
        return
    content = checked(last, previous_hash(conn, last[0]), conn)
    try:
        store.decode_row(last, catalogue, content)
    except LogDamaged:
        raise
    except ValueError as exc:  # its metadata
        raise LogDamaged(last[0], f"cannot be read: {exc}") from None
