"""A condition (`conditions`) and a list's page in SQL: the shape both stores share. Each store's
subclass (`sqlite.sql`, `postgresql.sql`) gives the SQL text that differs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .conditions import TRUE, All, AnyOf, Condition, Exists, Holds, In, Is, Like, Null, Number, NumberOf, both
from .names import Table, table_of

if TYPE_CHECKING:
    from .listing import Listed

OPERATORS = {"=": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def marks(values: Any) -> str:
    return ",".join("?" * len(values))


class Sql:
    """A store's SQL: how it reads a property and binds a value (the methods below), and a page's text:
    the columns of its rows (`ids`, in the list's `{order}`), the query of its bodies joined by commas in
    its order (`bodies`, up to the documents' table it joins), of its last row's id (`last_id`), and
    where an ascending and a descending sort put nulls when the store must be told (`nulls`)."""

    ids = "id"
    bodies: str
    last_id: str
    nulls = ("", "")

    def where(self, condition: Condition, table: Table) -> tuple[str, list[Any]]:
        """The SQL of `condition` on the rows of `table`, and its parameters."""
        params: list[Any] = []
        return self.sql(condition, table, params), params

    def expression(self, prop: str, table: Table) -> str:
        """A (whitelisted) property of the table's rows, as the store compares and sorts it."""
        raise NotImplementedError

    def text(self, prop: str, table: Table) -> str:
        """A property's value as text (a number's digits)."""
        raise NotImplementedError

    def bound(self, prop: str, value: Any, table: Table) -> Any:
        """A value as the store binds it beside a property."""
        raise NotImplementedError

    def like(self, condition: Like, table: Table, params: list[Any]) -> str:
        raise NotImplementedError

    def holds(self, condition: Holds, params: list[Any]) -> str:
        raise NotImplementedError

    def sql(self, condition: Condition, table: Table, params: list[Any]) -> str:
        match condition:
            case Is(prop, op, value):
                params.append(self.bound(prop, value, table))
                return f"{self.expression(prop, table)} {OPERATORS[op]} ?"
            case Null(prop, present):
                return f"{self.expression(prop, table)} IS {'NOT ' if present else ''}NULL"
            case In(prop, values) if values:
                params.extend(self.bound(prop, value, table) for value in values)
                return f"{self.expression(prop, table)} IN ({marks(values)})"
            case Like():
                return self.like(condition, table, params)
            case In():
                return "FALSE"  # of no value
            case All(parts):
                return f"({' AND '.join(self.sql(p, table, params) for p in parts)})" if parts else "TRUE"
            case AnyOf(parts):
                return f"({' OR '.join(self.sql(p, table, params) for p in parts)})" if parts else "FALSE"
            case Number(props, number):
                params.extend([number] * len(props))
                return f"({' OR '.join(f'{self.unplussed(p, table)} = ?' for p in props)})"
            case NumberOf(props, kind, numbers, inner):
                tests = []
                for prop in props:
                    held = " UNION ".join(f'SELECT {self.unplussed(n, table)} FROM "{table_of(kind)}" '
                                          f"WHERE {self.sql(inner, table, params)}" for n in numbers)  # fmt: skip
                    tests.append(f"{self.unplussed(prop, table)} IN ({held})")
                return f"({' OR '.join(tests)})"
            case Holds(values=values):
                return self.holds(condition, params) if values else "FALSE"
            case Exists(kind, inner):
                return f'EXISTS (SELECT 1 FROM "{table_of(kind)}" WHERE {self.sql(inner, table, params)})'
        raise TypeError(f"not a condition: {condition!r}")

    def unplussed(self, prop: str, table: Table) -> str:
        """A phone number's text without its leading `+`."""
        return f"ltrim({self.text(prop, table)}, '+')"

    def searched(self, listed: Listed) -> tuple[Any, Condition]:
        """A `like` of the query that an index of the store's own answers (None: none), and the other conditions."""
        return None, listed.q.where

    def page(self, listed: Listed) -> tuple[str, tuple[Any, ...]]:
        """A page and its total in one statement (total, joined bodies, rows, parent there, last key...), and
        its parameters. Its ids are chosen from an index where one orders the list; the total is what is
        known already, the kept count of an unfiltered list, or counted only when the page is full (a
        shorter page that holds a row, or starts the list, ends it: its total is its offset plus its rows)."""
        table, q, (total, after) = listed.table, listed.q, listed.known
        direction, sort, name = "DESC" if q.descending else "ASC", q.order, f'"{table.name}"'
        match, others = self.searched(listed)
        scope_sql, scope_params = self.where(both(listed.scope, *([listed.parent] if listed.parent else ())), table)
        others_sql, others_params = self.where(others, table)
        if match is not None:
            others_sql, others_params = f"{match.condition} AND {others_sql}", [match.phrase, *others_params]
        order = f"id {direction}"
        if sort:
            order = f"{self.expression(sort, table)} {direction}{self.nulls[q.descending]}, {order}"
        ids, base = self.ids.format(order=order), f"FROM {name} WHERE {scope_sql} AND {others_sql}"
        params: tuple[Any, ...] = (*scope_params, *others_params)
        total_sql, total_params, skip = f"SELECT count(*) {base}", params, q.offset
        chosen = f"SELECT {ids} {base} ORDER BY {order} LIMIT ? OFFSET ?"
        key = (("id",) if sort is None else (sort, "id")) if q.keyed and match is None else ()
        if key and after is not None:  # placed first: the index range starts there
            columns = ", ".join(self.expression(prop, table) for prop in key)
            chosen = (f"SELECT {ids} FROM {name} WHERE {scope_sql} AND ({columns}) {'<' if q.descending else '>'} "
                      f"({marks(after)}) AND {others_sql} ORDER BY {order} LIMIT ? OFFSET ?")  # fmt: skip
            after_params = (self.bound(prop, value, table) for prop, value in zip(key, after, strict=True))
            params, skip = (*scope_params, *after_params, *others_params), 0
        if q.group_by:  # a group is shown by its first document, and sorted by its values
            grouped = f"{base} GROUP BY {self.expression(q.group_by, table)}"
            total_sql = f"SELECT count(*) FROM (SELECT 1 {grouped}) AS g"
            chosen = (f"SELECT {ids} FROM (SELECT min(id) AS id {grouped}) AS g JOIN {name} USING (id) "
                      f"ORDER BY {order} LIMIT ? OFFSET ?")  # fmt: skip
        elif match is not None and sort is None:
            total_sql, total_params, chosen, params = self.by_index(listed, match, others, scope_sql, scope_params)
        elif listed.counted is not None and q.where == TRUE:
            total_sql = f'SELECT coalesce((SELECT n FROM "{table.counts}" WHERE customer_id = ?), 0)'
            total_params = (listed.counted,)
        if total is not None:
            total_sql, total_params = "SELECT CAST(? AS BIGINT)", (total,)
        present, present_params = self.where(listed.parent, table) if listed.parent is not None else ("TRUE", [])
        keyed = ", ".join(f"(SELECT {self.expression(p, table)} FROM {name} WHERE id = {self.last_id})" for p in key)
        statement = (f"WITH page AS MATERIALIZED ({chosen}), shown AS (SELECT count(*) AS n FROM page) SELECT "
                     f"CASE WHEN n < ? AND (n > 0 OR ? = 0) THEN ? + n ELSE ({total_sql}) END, "
                     f"({self.bodies} {name} USING (id)), n, {present}, {keyed or 'NULL'} FROM shown")  # fmt: skip
        return statement, (*params, q.limit, skip, q.limit, q.offset, q.offset, *total_params, *present_params)

    def by_index(self, listed: Listed, match: Any, others: Condition, scope_sql: str, scope_params: list[Any]
                 ) -> tuple[str, tuple[Any, ...], str, tuple[Any, ...]]:  # fmt: skip
        """(total SQL, its params, page-of-ids SQL, its params) of a list by id driven by `searched`'s index."""
        raise NotImplementedError
