"""A condition (`documents.conditions`) in SQLite's SQL (`documents.sql` gives its shape).

A property is its column when the table has one, else `json_extract` of the body: either way a
value of its JSON type (a boolean as 1 or 0, a null as NULL), which compares with the bound value
as SQLite compares values. `like` is SQLite's LIKE, which folds ASCII letters; a pattern with other
letters also compares both sides in lower case (`unicode_lower`, a Python function of the reader's
connections, run only on the rows that pass LIKE with those letters as `_`)."""

from __future__ import annotations

from typing import Any

from ..conditions import Holds, Like
from ..names import Table
from ..sql import Sql, marks

UNICODE_LOWER = "unicode_lower"


class SqliteSql(Sql):
    def expression(self, prop: str, table: Table) -> str:
        return prop if prop in table.columns or prop in table.props else f"json_extract(body, '$.{prop}')"

    text = expression

    def bound(self, prop: str, value: Any, table: Table) -> Any:
        return int(value) if isinstance(value, bool) else value

    def like(self, condition: Like, table: Table, params: list[Any]) -> str:
        column, pattern = self.expression(condition.prop, table), condition.pattern
        match = f"like(?, {column})"  # SQLite's like(pattern, value) is `value LIKE pattern`
        params.append("".join(c if c.isascii() else "_" for c in pattern))
        if not pattern.isascii():
            match = f"({match} AND like(?, {UNICODE_LOWER}({column})))"
            params.append(pattern.lower())
        return f"({column} IS NOT NULL AND {'NOT ' if condition.negate else ''}{match})"

    def holds(self, condition: Holds, params: list[Any]) -> str:
        prop, values, member = condition.prop, condition.values, condition.member
        item = f"CASE WHEN type = 'object' THEN json_extract(value, '$.{member}') ELSE value END" if member else "value"
        params.extend(self.bound(prop, value, Table("")) for value in values)
        return f"EXISTS (SELECT 1 FROM json_each(body, '$.{prop}') WHERE {item} IN ({marks(values)}))"


SQL = SqliteSql()
