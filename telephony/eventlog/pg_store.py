"""The PostgreSQL schema of the event log, and what orders its commits across processes.

The reads are the SQLite store's own (`store.head`, `store.raw_chunks`, ...): they are written in the
SQL both engines share and run on a `PgConnection`. Events are stored plain (PostgreSQL compresses
large values itself); data copied from a SQLite log is made plain on the way (`telephony migrate`).

Positions never show out of commit order: every commit takes a transaction-level advisory lock
(`COMMIT_LOCK`) before it reads the head, so commits happen one at a time, in position order, from
every process. The hash chain needs the previous event's hash anyway, so commits could never overlap;
the lock makes that hold across processes with no gap to wait out (see docs/postgresql.md)."""

from __future__ import annotations

from .pg_connection import PgConnection

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    position    BIGINT  PRIMARY KEY,
    stream      TEXT    NOT NULL,
    version     BIGINT  NOT NULL,
    type        TEXT    NOT NULL,
    schema      INTEGER NOT NULL,
    data        BYTEA   NOT NULL,
    meta        BYTEA   NOT NULL,
    recorded_at TEXT    NOT NULL,
    hash        BYTEA   NOT NULL,
    UNIQUE (stream, version)
);
CREATE INDEX IF NOT EXISTS events_type ON events (type, position);
"""
COMMIT_LOCK = 0x7E1E_0001
"""The advisory lock every append's transaction holds until it commits: one commit at a time."""
CHANNEL = "telephony_events"
"""Where each commit says its new head (`NOTIFY`, delivered when it commits)."""


def connect(url: str) -> PgConnection:
    """A connection to the log at `url`, its tables made when missing (two processes may race to make
    them: the lock orders them)."""
    conn = PgConnection(url)
    conn.execute("BEGIN")
    conn.execute("SELECT pg_advisory_xact_lock(?)", (COMMIT_LOCK,))
    conn.execute(SCHEMA)
    conn.execute("COMMIT")
    return conn


def lock(conn: PgConnection) -> None:
    """Take the commit lock inside the caller's transaction; held until it commits or rolls back."""
    conn.execute("SELECT pg_advisory_xact_lock(?)", (COMMIT_LOCK,))


def notify(conn: PgConnection, head: int) -> None:
    """Say the new head to every listening process, when the caller's transaction commits."""
    conn.execute("SELECT pg_notify(?, ?)", (CHANNEL, str(head)))
