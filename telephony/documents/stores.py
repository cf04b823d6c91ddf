"""Each store's SQL of the document tables, by the dialect its connections and readers speak
(`eventlog.connection.Connection.dialect`, `listing.ReadStore.dialect`)."""

from __future__ import annotations

from typing import Any, Protocol

from .conditions import Condition
from .names import Table
from .postgresql import sql as postgresql_sql
from .postgresql.rows import PgRows
from .rows import Rows
from .sqlite import sql as sqlite_sql
from .sqlite.rows import SqliteRows


class Sql(Protocol):
    """A store's SQL of a condition on a table's rows and of one of their properties."""

    def where(self, condition: Condition, table: Table, /) -> tuple[str, list[Any]]: ...

    def expression(self, prop: str, table: Table, /) -> str: ...


ROWS: dict[str, type[Rows]] = {"sqlite": SqliteRows, "postgresql": PgRows}
SQL: dict[str, Sql] = {"sqlite": sqlite_sql, "postgresql": postgresql_sql}
