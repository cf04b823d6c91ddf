"""A condition (`conditions`) in SQL, with its parameters: the shape both stores share. Each store's
subclass (`sqlite.sql`, `postgresql.sql`) says how it reads a property, binds a value, matches a
pattern and reads a list's items."""

from __future__ import annotations

from typing import Any

from .conditions import All, AnyOf, Condition, Exists, Holds, In, Is, Like, Null, Number, NumberOf
from .names import Table, table_of

OPERATORS = {"=": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def marks(values: Any) -> str:
    return ",".join("?" * len(values))


class Sql:
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
