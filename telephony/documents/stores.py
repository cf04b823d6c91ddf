"""Each store's SQL of the document tables, by the dialect its connections and readers speak
(`eventlog.connection.Connection.dialect`, `listing.ReadStore.dialect`)."""

from __future__ import annotations

from .postgresql.rows import PgRows
from .postgresql.sql import SQL as POSTGRESQL
from .rows import Rows
from .sql import Sql
from .sqlite.rows import SqliteRows
from .sqlite.sql import SQL as SQLITE

ROWS: dict[str, type[Rows]] = {"sqlite": SqliteRows, "postgresql": PgRows}
SQL: dict[str, Sql] = {"sqlite": SQLITE, "postgresql": POSTGRESQL}
