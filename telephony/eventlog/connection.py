"""What a connection to the log carries beside its rows, handed in with it to every read and decision:
the log's zstd dictionaries (its reads decompress with them) and the ids the open request's events
have claimed but not yet written (`projections/sequences.py` gathers them, `next_id` reads them).

Each is the state of one log or of one transaction, so it lives on the connection, never in a module
or a thread-local: two logs in one process (two apps, a copy beside its source) keep theirs apart.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from .compression import MAGIC, Dictionaries


class ConnectionState:
    """The state a connection to the log carries (set by `carry` when it is opened)."""

    dictionaries: Dictionaries
    """The dictionaries of the log it opens (shared by the log's connections)."""
    claimed: dict[str, int]
    """The highest id of each kind the open request's events claimed, not yet in the `sequences` table."""

    def carry(self, dictionaries: Dictionaries | None = None) -> None:
        self.dictionaries = Dictionaries() if dictionaries is None else dictionaries
        self.claimed = {}


class LogConnection(sqlite3.Connection, ConnectionState):
    """A SQLite connection to the log's database (`store.connect` opens one)."""


def carried(conn: Any) -> ConnectionState:
    """The state `conn` carries; a connection that was not opened as one to the log has none."""
    if not isinstance(conn, ConnectionState):
        raise TypeError(f"{type(conn).__name__} is no connection to the log (open one with store.connect)")
    return conn


def plain(conn: Any, stored: bytes) -> bytes:
    """The JSON of an event's data as `conn`'s log stores it (a frame is decompressed with its dictionaries)."""
    if stored[:4] != MAGIC:
        return stored
    return carried(conn).dictionaries.plain(stored)
