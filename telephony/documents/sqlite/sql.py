"""A condition (`documents.conditions`) and a list's page in SQLite's SQL (`documents.sql` gives its shape).

A property is its column when the table has one, else `json_extract` of the body: either way a
value of its JSON type (a boolean as 1 or 0, a null as NULL), which compares with the bound value
as SQLite compares values. `like` is SQLite's LIKE, which folds ASCII letters; a pattern with other
letters also compares both sides in lower case (`unicode_lower`, a Python function of the reader's
connections, run only on the rows that pass LIKE with those letters as `_`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..conditions import TRUE, All, Condition, Holds, Like, both
from ..names import Table
from ..sql import Sql, marks
from . import search

if TYPE_CHECKING:
    from ..listing import Listed

UNICODE_LOWER = "unicode_lower"


class SqliteSql(Sql):
    bodies = "SELECT CAST(group_concat(body, ',') AS BLOB) FROM page CROSS JOIN {table} USING (id)"
    last_id = "(SELECT id FROM page LIMIT 1 OFFSET (SELECT count(*) - 1 FROM page))"

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

    def searched(self, listed: Listed) -> tuple[search.Match | None, Condition]:
        """The first `like` of the query that a search index answers (`search`), and the other conditions."""
        where = listed.q.where
        parts = where.parts if isinstance(where, All) else (where,)
        for n, part in enumerate(parts):
            if not isinstance(part, Like) or part.negate or part.prop not in listed.searched:
                continue
            if (found := search.match(listed.table.name, part.prop, part.pattern)) is not None:
                return found, both(*parts[:n], *parts[n + 1 :]) if len(parts) > 1 else TRUE
        return None, where

    def by_index(self, listed: Listed, match: search.Match, others: Condition, scope_sql: str, scope_params: list[Any]
                 ) -> tuple[str, tuple[Any, ...], str, tuple[Any, ...]]:  # fmt: skip
        """A list by id driven by a search table: its matches read in id order and each looked up until the
        page is full. When the customer owns every document of the table and nothing else narrows the
        list, the total is the count of matches alone, read from the index without looking any document up."""
        table, fts, direction = listed.table, f'"{match.table}"', "DESC" if listed.q.descending else "ASC"
        name = f'"{table.name}"'
        others_sql, others_params = self.where(others, table)
        joined = (f"FROM {fts} CROSS JOIN {name} ON {name}.id = {fts}.rowid WHERE {fts} MATCH ? AND {scope_sql} "
                  f"AND {others_sql}")  # fmt: skip
        params = (match.phrase, *scope_params, *others_params)
        total_sql, total_params = f"SELECT count(*) {joined}", params
        if listed.counted is not None and others == TRUE:
            counts = f'"{table.counts}"'
            sole = f"(SELECT n FROM {counts} WHERE customer_id = ?) = (SELECT sum(n) FROM {counts})"
            matches = f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ?"
            total_sql = f"SELECT CASE WHEN {sole} THEN ({matches}) ELSE ({total_sql}) END"
            total_params = (listed.counted, match.phrase, *params)
        chosen = f"SELECT {name}.id {joined} ORDER BY {fts}.rowid {direction} LIMIT ? OFFSET ?"
        return total_sql, total_params, chosen, params


SQL = SqliteSql()
