"""A lease on a PostgreSQL log: one holder at a time across every process, for a reactor that must run
once (the simulator's steps, the webhook sender, report runs...).

A lease is a session-level advisory lock held by a connection of its own. A process that dies, even
by `kill -9`, loses its connection and with it the lock; a process waiting for the lease is blocked
in `pg_advisory_lock` on the server and takes it at that moment, with no polling. The reactor that
takes the lease over resumes from its tracking position (committed with the events it wrote), so no
step is lost or taken twice."""

from __future__ import annotations

import contextlib
import hashlib

import psycopg


def lease_key(name: str, schema: str = "") -> int:
    """The advisory lock's key of the lease `name` of the log in `schema`: a signed 64-bit number from
    their digest (advisory locks are the database's: two logs in two schemas have leases of their own)."""
    digest = hashlib.sha256(f"telephony lease {schema}.{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class Lease:
    """The lease `name` on the database at `url`; `await acquire()` waits until this process holds it."""

    def __init__(self, url: str, name: str) -> None:
        self.url, self.name = url, name
        self._conn: psycopg.AsyncConnection | None = None

    @property
    def held(self) -> bool:
        """True from a returned `acquire` until `release` or the loss of the connection."""
        return self._conn is not None and not self._conn.closed

    async def acquire(self) -> None:
        """Wait for the lease (cancel the call to stop waiting)."""
        conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        try:
            await conn.execute("SELECT pg_advisory_lock(%s)", (await self._key(conn),))
        except BaseException:
            with contextlib.suppress(Exception):
                await conn.cancel_safe(timeout=5)  # the server stops waiting for the lock too
            await conn.close()
            raise
        self._conn = conn

    async def try_acquire(self) -> bool:
        """Take the lease when no one holds it; False at once otherwise."""
        conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        row = await (await conn.execute("SELECT pg_try_advisory_lock(%s)", (await self._key(conn),))).fetchone()
        if row is None or not row[0]:
            await conn.close()
            return False
        self._conn = conn
        return True

    async def _key(self, conn: psycopg.AsyncConnection) -> int:
        row = await (await conn.execute("SELECT current_schema()")).fetchone()
        return lease_key(self.name, row[0] if row and row[0] else "")

    async def release(self) -> None:
        """Give the lease up (closing the session releases the lock)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            await conn.close()
