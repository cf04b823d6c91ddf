"""A lease on a PostgreSQL log: one holder at a time across every process, for a reactor that must run
once (the simulator's steps, the webhook sender, report runs...).

A lease is a session-level advisory lock held by a connection of its own. A process that dies, even
by `kill -9`, loses its connection and with it the lock; a process waiting for the lease is blocked
in `pg_advisory_lock` on the server and takes it at that moment, with no polling. The reactor that
takes the lease over resumes from its tracking position (committed with the events it wrote), so no
step is lost or taken twice.

A lease can also be lost while its process lives (the server restarted, the session killed, the
network cut), which psycopg notices only when the connection is next used: while it is held, the
connection is checked every `CHECK_EVERY` seconds of real time (`SELECT 1`, at most `CHECK_TIMEOUT`),
and a failed check ends the holding (`held` is False at once, `lost` returns)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging

import psycopg

log = logging.getLogger(__name__)

CHECK_EVERY = 1.0
"""Real seconds between two checks of a held lease's connection."""
CHECK_TIMEOUT = 3.0
"""Real seconds a check may take before the lease counts as lost (a cut network answers nothing)."""


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
        self._watch: asyncio.Task[None] | None = None
        self._lost = asyncio.Event()

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
        self._hold(conn)

    async def try_acquire(self) -> bool:
        """Take the lease when no one holds it; False at once otherwise."""
        conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        row = await (await conn.execute("SELECT pg_try_advisory_lock(%s)", (await self._key(conn),))).fetchone()
        if row is None or not row[0]:
            await conn.close()
            return False
        self._hold(conn)
        return True

    async def lost(self) -> None:
        """Return once the lease is lost (at once when it is not held)."""
        if self.held:
            await self._lost.wait()

    def _hold(self, conn: psycopg.AsyncConnection) -> None:
        self._conn, self._lost = conn, asyncio.Event()
        self._watch = asyncio.get_running_loop().create_task(self._check(conn), name=f"lease-check-{self.name}")

    async def _check(self, conn: psycopg.AsyncConnection) -> None:
        """Check the connection until it fails; then the lease is lost."""
        try:
            while True:
                await asyncio.sleep(CHECK_EVERY)
                await asyncio.wait_for(conn.execute("SELECT 1"), CHECK_TIMEOUT)
        except Exception as exc:
            reason = str(exc).strip() or type(exc).__name__
        if self._conn is conn:
            self._conn = None
            log.warning("lease %s lost (%s); waiting for it again", self.name, reason)
            self._lost.set()
        with contextlib.suppress(Exception):
            await conn.close()

    async def _key(self, conn: psycopg.AsyncConnection) -> int:
        row = await (await conn.execute("SELECT current_schema()")).fetchone()
        return lease_key(self.name, row[0] if row and row[0] else "")

    async def release(self) -> None:
        """Give the lease up (closing the session releases the lock)."""
        conn, self._conn = self._conn, None
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
        if conn is not None:
            await conn.close()
