"""The read side for GET handlers on PostgreSQL (a `listing.ReadStore`): a few connections, each query on a thread."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from typing import Any

from ...eventlog.pg_connection import PgConnection

SIZE = 4


class PgReader:
    """Each query runs on a thread (`asyncio.to_thread`), as the SQLite reader's long ones do, so the loop
    never waits on the server (psycopg's async connection would save the thread but not the placeholders'
    translation); `size` connections in a queue serve that many at once, in autocommit (no read
    transaction is held between statements)."""

    dialect = "postgresql"

    def __init__(self, connections: list[PgConnection]) -> None:
        self._all = connections
        self._free: asyncio.Queue[PgConnection] = asyncio.Queue()
        for conn in connections:
            self._free.put_nowait(conn)

    @classmethod
    async def open(cls, url: str, size: int = SIZE) -> PgReader:
        return cls([await asyncio.to_thread(PgConnection, url) for _ in range(size)])

    async def execute_fetchall(self, sql: str, parameters: Iterable[Any] = ()) -> list[Any]:
        params = tuple(parameters)
        conn = await self._free.get()
        try:
            return await asyncio.to_thread(lambda: conn.execute(sql, params).fetchall())
        finally:
            self._free.put_nowait(conn)

    async def each(self, sql: str, parameters: Iterable[Any] = ()) -> AsyncIterator[Any]:
        """The rows of a query (read at once)."""
        for row in await self.execute_fetchall(sql, parameters):
            yield row

    async def close(self) -> None:
        for conn in self._all:
            await asyncio.to_thread(conn.close)
