"""Tracking positions: how far each reactor has reacted, stored beside the events it emitted.

A reactor's position is written in the same transaction as the events its reaction appends, so a
reaction lands on the log exactly once: after a crash the reactor resumes from the last position
that was committed with its effects. The table is the reactors' own state, not a projection: a
rebuild of the projections leaves it alone.
"""

from __future__ import annotations

from ..eventlog.connection import Connection

TABLE = """
CREATE TABLE IF NOT EXISTS reactor_positions (name TEXT PRIMARY KEY, position INTEGER NOT NULL)
"""


class TrackingMoved(Exception):
    """Another run of the reactor recorded a different position than this one expected."""

    def __init__(self, name: str, expected: int, actual: int) -> None:
        super().__init__(f"reactor {name!r} is at position {actual}, expected {expected}")
        self.actual = actual


def position(conn: Connection, name: str, *, default: int) -> int:
    """The recorded position of `name`; `default` is recorded for a reactor seen the first time."""
    conn.execute(TABLE)
    row = conn.execute("SELECT position FROM reactor_positions WHERE name = ?", (name,)).fetchone()
    if row is not None:
        return row[0]
    conn.execute("INSERT INTO reactor_positions VALUES (?, ?)", (name, default))
    return default


def advance(conn: Connection, name: str, expected: int, to: int) -> None:
    """Move `name` from `expected` to `to` inside the caller's transaction, or raise `TrackingMoved`."""
    row = conn.execute("SELECT position FROM reactor_positions WHERE name = ?", (name,)).fetchone()
    actual = row[0] if row else 0
    if actual != expected:
        raise TrackingMoved(name, expected, actual)
    conn.execute("UPDATE reactor_positions SET position = ? WHERE name = ?", (to, name))


def all_positions(conn: Connection) -> dict[str, int]:
    conn.execute(TABLE)
    return dict(conn.execute("SELECT name, position FROM reactor_positions"))
