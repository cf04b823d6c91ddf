"""Notices between the processes of one PostgreSQL log: a channel of `NOTIFY`s that every process sends
on and hears, itself included (what the clock's moves have reached, `reactors.shared_clock`).

Two connections of its own: one listening, one sending (a notice goes out at once, in no transaction
of the log's). The channel is the schema's, so two logs in two schemas of one database do not hear
each other."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

import psycopg
from psycopg import sql

log = logging.getLogger(__name__)


class Notices:
    """Open with `await Notices.open(url, name)`; `send` a text, `heard` is called with each received."""

    def __init__(self, listening: psycopg.AsyncConnection, sending: psycopg.AsyncConnection, channel: str) -> None:
        self._listening, self._sending, self._channel = listening, sending, channel
        self.heard: Callable[[str], None] = lambda _payload: None
        self._task = asyncio.get_running_loop().create_task(self._listen(), name=f"notices-{channel}")

    @classmethod
    async def open(cls, url: str, name: str) -> Notices:
        listening = await psycopg.AsyncConnection.connect(url, autocommit=True)
        sending = await psycopg.AsyncConnection.connect(url, autocommit=True)
        row = await (await listening.execute("SELECT current_schema()")).fetchone()
        channel = f"telephony_{name}_{row[0] if row and row[0] else 'public'}"[:63]
        await listening.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
        return cls(listening, sending, channel)

    async def send(self, payload: str) -> None:
        await self._sending.execute("SELECT pg_notify(%s, %s)", (self._channel, payload))

    async def _listen(self) -> None:
        async for notice in self._listening.notifies():
            try:
                self.heard(notice.payload)
            except Exception:
                log.exception("notice %r on %s could not be taken", notice.payload, self._channel)

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task
        await self._listening.close()
        await self._sending.close()
