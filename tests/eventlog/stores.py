"""The stores the event log contract runs on: SQLite in a data dir, PostgreSQL in a schema of the
session's cluster. Each opens a log (again, for a restart) and a plain connection to its database, in
autocommit mode, that takes SQLite's `?` placeholders on both."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from telephony.clock import Clock
from telephony.domain.events import Catalogue
from telephony.eventlog import EventLog
from telephony.eventlog.pg_connection import PgConnection
from telephony.eventlog.pg_log import PgEventLog
from telephony.projections import Projection, Projections

from .counting import StreamCounts
from .things import THINGS


class Store:
    """Where a test's log lies."""

    def __init__(self, name: str, data_dir: Path, url: str = "") -> None:
        self.name, self.data_dir, self.url = name, data_dir, url
        self._opened: list[Any] = []

    async def open(self, catalogue: Catalogue = THINGS, projections: list[Projection] | None = None) -> EventLog:
        chosen = Projections([StreamCounts()] if projections is None else projections, catalogue)
        if self.url:
            return await PgEventLog.open_url(self.url, chosen, Clock(), progress=False)
        return await EventLog.open(self.data_dir, chosen, Clock(), progress=False)

    def sql(self) -> Any:
        """A connection to the log's database, in autocommit mode."""
        path = self.data_dir / "events.db"
        conn = PgConnection(self.url) if self.url else sqlite3.connect(path, isolation_level=None)
        self._opened.append(conn)
        return conn

    def close(self) -> None:
        for conn in self._opened:
            conn.close()


async def open_log(data_dir: Path, catalogue: Catalogue = THINGS) -> EventLog:
    """A SQLite log in `data_dir` with the contract's projection (tests of SQLite's own features)."""
    return await Store("sqlite", data_dir).open(catalogue)
