"""Each store's SQL of the document tables, by the dialect its connections and readers speak
(`eventlog.connection.Connection.dialect`, `listing.ReadStore.dialect`)."""

from __future__ import annotations

from .postgresql.sql import SQL as POSTGRESQL
from .postgresql.sql import PgTable
from .sql import Sql
from .sqlite.sql import SQL as SQLITE
from .sqlite.sql import SqliteTable

TABLES: dict[str, type[SqliteTable] | type[PgTable]] = {"sqlite": SqliteTable, "postgresql": PgTable}
SQL: dict[str, Sql] = {"sqlite": SQLITE, "postgresql": POSTGRESQL}
