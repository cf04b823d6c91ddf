"""The read side for GET handlers on PostgreSQL (a `ReadStore`): a few connections, each query on a thread.

Statements with `?` placeholders (`PgConnection`) and a page in PostgreSQL's own SQL (`pages`).
Queries run on threads (`asyncio.to_thread`),
as the SQLite reader's long ones do, so the event loop never waits on the server: psycopg's async
connection would save the thread but not the placeholders' translation, and the writer already runs
synchronous psycopg on its thread. A connection serves one query at a time; `size` of them, kept
in a queue, serve that many at once. Each statement reads the latest commit (autocommit: no read
transaction is held between)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable
from typing import Any

from ...eventlog.pg_connection import PgConnection

SIZE = 4


class _Rows:
    """Rows read at once, with the surface of an aiosqlite cursor that reads use."""

    def __init__(self, rows: list[Any]) -> None:
        self._rows = rows

    async def fetchall(self) -> list[Any]:
        return self._rows

    async def __aiter__(self) -> AsyncIterator[Any]:
        for row in self._rows:
            yield row


class PgReader:
    dialect = "postgresql"

    def __init__(self, connections: list[PgConnection]) -> None:
        self._all = connections
        self._free: asyncio.Queue[PgConnection] = asyncio.Queue()
        for conn in connections:
            self._free.put_nowait(conn)

    @classmethod
    async def open(cls, url: str, size: int = SIZE) -> PgReader:
        connections = [await asyncio.to_thread(PgConnection, url) for _ in range(size)]
        return cls(connections)

    async def execute_fetchall(self, sql: str, parameters: Iterable[Any] = ()) -> list[Any]:
        params = tuple(parameters)
        conn = await self._free.get()
        try:
            return await asyncio.to_thread(lambda: conn.execute(sql, params).fetchall())
        finally:
            self._free.put_nowait(conn)

    @contextlib.asynccontextmanager
    async def execute(self, sql: str, parameters: Iterable[Any] = ()) -> AsyncIterator[_Rows]:
        """The rows of a query, for reads written `async with reader.execute(...) as cursor`."""
        yield _Rows(await self.execute_fetchall(sql, parameters))

    async def close(self) -> None:
        for conn in self._all:
            await asyncio.to_thread(conn.close)
