"""Orderings: a customer's documents of one kind in the order of one of their indexes, and the SQL
that counts and walks spans of them.

The ordering of a kind over properties (p1, ..., pn) is the order of its index
(customer_id, p1, ..., pn, id), over the documents whose properties are all set; the ordering over
no property is that of ids. Its keys are tuples that compare in Python as SQLite compares the
index's entries: `(class1, v1, ..., classn, vn, id)`, where a value's class is 1 for a number and 2
for text (SQLite puts every number before any text), or `(id,)`. Spans are half-open, [lo, hi);
either end may be open (None). Inside a key, class BELOW sorts before every value and ABOVE after,
and an id of LOWEST before every id and HIGHEST after, so "after every document whose p1 is 5" is
`(1, 5, HIGHEST)`.

A span is read as a few index ranges in order ("boxes": equal leading values, then a range on one
property), since SQLite uses an index on expressions for such conditions, never for a comparison
of row values.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .names import json_path, table_of

Key = tuple[Any, ...]
BELOW, NUMBER, TEXT, ABOVE = -1, 1, 2, 9
LOWEST, HIGHEST = -(2**63) - 1, 2**63
"""Ids no document has: before and after every one."""
WALKS = 4096


class Unorderable(ValueError):
    """A property value an ordering cannot place (an array, an object)."""


def component(value: Any) -> tuple[int, Any] | None:
    """A property value as the (class, value) pair of a key; None when it is not set."""
    if value is None:
        return None
    if isinstance(value, bool):
        return NUMBER, int(value)
    if isinstance(value, int | float):
        return NUMBER, value
    if isinstance(value, str):
        return TEXT, value
    raise Unorderable(repr(value))


@dataclass(frozen=True)
class Box:
    """Equal values on the first `len(prefix)` columns, then a range on the next one (`low`, `high`:
    (value, inclusive) or None when open). Columns are the ordering's properties, then the id."""

    prefix: tuple[Any, ...]
    low: tuple[Any, bool] | None
    high: tuple[Any, bool] | None


class Ordering:
    """One index order of a kind's documents (see the module docstring)."""

    def __init__(self, kind: str, props: tuple[str, ...] = ()) -> None:
        self.kind = kind
        self.props = props
        self.name = ",".join(props) or "id"
        self.table = f'"{table_of(kind)}"'
        self._columns = (*(json_path(p) for p in props), "id")
        self._selected = ", ".join(self._columns)
        self._statements: dict[tuple[Any, ...], str] = {}
        """SQL by builder and the shapes of its boxes: the same few shapes come back with other values."""
        self._walk_builders: dict[str, Any] = {}
        self._recent_walks: dict[tuple[Any, ...], tuple[str, list[Any]]] = {}
        self._shaped_walks: dict[tuple[str, str], str] = {}
        """The SQL of walks whose boxes always have one shape (onward from a document's key, through an
        `eq` list), by that walk and what it selects: the same whatever the values."""

    def __repr__(self) -> str:
        return f"Ordering({self.kind!r}, {self.props!r})"

    # --- keys --------------------------------------------------------------------------------------

    def key(self, id_: int, values: Mapping[str, Any]) -> Key | None:
        """The key of a document with this id and these property values; None when one is not set."""
        parts: list[Any] = []
        for prop in self.props:
            pair = component(values.get(prop))
            if pair is None:
                return None
            parts.extend(pair)
        parts.append(id_)
        return tuple(parts)

    def key_of_row(self, row: tuple[Any, ...]) -> Key:
        """The key of a row of this ordering's columns (property values, then the id)."""
        parts: list[Any] = []
        for value in row[:-1]:
            pair = component(value)
            assert pair is not None
            parts.extend(pair)
        parts.append(row[-1])
        return tuple(parts)

    def _columns_of(self, key: Key) -> list[Any]:
        """A key as one bound per column: a property's value (BELOW/ABOVE as themselves), then the id."""
        values = [(key[i], key[i + 1]) for i in range(0, len(key) - 1, 2)]
        return [*values, key[-1]]

    # --- spans as index ranges ---------------------------------------------------------------------

    def boxes(self, lo: Key | None, hi: Key | None) -> list[Box]:
        """The index ranges of [lo, hi), in order."""
        if lo is not None and hi is not None and lo[-1] == LOWEST and hi[-1] == HIGHEST and lo[:-1] == hi[:-1]:
            box = Box(tuple(self._columns_of(lo)[:-1]), (LOWEST, True), (HIGHEST, False))  # `eq` lists: one box
            return [] if _empty(box) else [box]
        width = len(self._columns)
        low = self._columns_of(lo) if lo is not None else [(BELOW, None)] * (width - 1) + [LOWEST]
        high = self._columns_of(hi) if hi is not None else [(ABOVE, None)] * (width - 1) + [HIGHEST]
        if _flat(low) >= _flat(high):
            return []
        common = next(i for i in range(width) if low[i] != high[i])
        last = width - 1
        out = [Box(tuple(low[:i]), (low[i], i == last), None) for i in range(last, common, -1)]
        out.append(Box(tuple(low[:common]), (low[common], common == last), (high[common], False)))
        out.extend(Box(tuple(high[:i]), None, (high[i], False)) for i in range(common + 1, width))
        return [box for box in out if not _empty(box)]

    def _where(self, box: Box) -> tuple[tuple[Any, ...], list[Any]]:
        """The shape of a box's SQL condition (which comparisons it makes) and its parameters."""
        params = [value[1] if isinstance(value, tuple) else value for value in box.prefix]
        shape: list[Any] = [len(box.prefix)]
        for bound, strict, loose in ((box.low, ">", ">="), (box.high, "<", "<=")):
            if bound is None or _open(bound[0]):
                shape.append(None)
                continue
            value, inclusive = bound
            shape.append(loose if inclusive else strict)
            params.append(value[1] if isinstance(value, tuple) else value)
        return tuple(shape), params

    def _condition(self, shape: tuple[Any, ...]) -> str:
        """The SQL condition of a box of this shape: `customer_id = ?`, equal leading columns, a range
        on the next, and `IS NOT NULL` on each later property (tested on each row's body, so not on
        the ranged one, which its comparison already requires to be set)."""
        column, low, high = shape
        conditions = ["customer_id = ?", *(f"{expr} = ?" for expr in self._columns[:column])]
        conditions.extend(f"{self._columns[column]} {op} ?" for op in (low, high) if op is not None)
        first_tested = column + 1 if low or high else column
        conditions.extend(f"{e} IS NOT NULL" for e in self._columns[first_tested:-1])
        return " AND ".join(conditions)

    def _statement(self, boxes: list[Box], build: Any, customer_id: int) -> tuple[str, list[Any]]:
        """The SQL `build(arms)` makes of the boxes' conditions (kept by shape) and its parameters."""
        shapes, params = [], []
        for box in boxes:
            shape, bound = self._where(box)
            shapes.append(shape)
            params.append(customer_id)
            params.extend(bound)
        key = (build, tuple(shapes))
        sql = self._statements.get(key)
        if sql is None:
            sql = self._statements[key] = build([(self._condition(shape), shape[0]) for shape in shapes])
        return sql, params

    def _order(self, column: int) -> str:
        return ", ".join(self._columns[column:])

    # --- reads ------------------------------------------------------------------------------------

    def count(self, conn: sqlite3.Connection, customer_id: int, lo: Key | None, hi: Key | None) -> int:
        """How many documents of the customer lie in [lo, hi)."""
        boxes = self.boxes(lo, hi)
        if not boxes:
            return 0
        sql, params = self._statement(boxes, self._count_sql, customer_id)
        return conn.execute(sql, params).fetchone()[0]

    def _count_sql(self, arms: list[tuple[str, int]]) -> str:
        return "SELECT " + " + ".join(f"(SELECT count(*) FROM {self.table} WHERE {where})" for where, _ in arms)

    def walk_sql(self, customer_id: int, lo: Key | None, hi: Key | None, selected: str) -> tuple[str, list[Any]]:
        """A query of `selected` over [lo, hi) in order, ending in `LIMIT ? OFFSET ?` for the caller to
        bind. Select only what is used: SQLite computes a property again from the body for each row
        it is selected of, even where the index holds it. Walks start at a few fences again and
        again, so the last `WALKS` are kept."""
        if hi is None and lo is not None and self._placed(lo):
            return self._onward(customer_id, lo, selected)
        if lo is not None and hi is not None and self._equal(lo, hi):
            return self._among_equal(customer_id, lo, hi, selected)
        key = (customer_id, lo, hi, selected)
        found = self._recent_walks.get(key)
        if found is None:
            if len(self._recent_walks) >= WALKS:
                self._recent_walks.clear()
            found = self._recent_walks[key] = self._walk_sql(customer_id, lo, hi, selected)
        return found

    def _placed(self, key: Key) -> bool:
        """Whether `key` is a document's own (every value set, a real id): a fence, never a bound."""
        return self._valued(key) and key[-1] not in (LOWEST, HIGHEST)

    def _valued(self, key: Key) -> bool:
        """Whether `key` sets every property to a value (none BELOW or ABOVE)."""
        return len(key) == 2 * len(self.props) + 1 and all(key[i] in (NUMBER, TEXT) for i in range(0, len(key) - 1, 2))

    def _equal(self, lo: Key, hi: Key) -> bool:
        """Whether [lo, hi) holds the documents whose every property equals a value (an `eq` list)."""
        return lo[-1] == LOWEST and hi[-1] == HIGHEST and lo[:-1] == hi[:-1] and self._valued(lo)

    def _among_equal(self, customer_id: int, lo: Key, hi: Key, selected: str) -> tuple[str, list[Any]]:
        """`walk_sql` of an `eq` list: one box of one shape, whatever the values (a call's `live_id` is
        asked for once), so its SQL is made once and its parameters are the values."""
        return self._shaped("equal", customer_id, lo, hi, selected), [customer_id, *lo[1:-1:2]]

    def _onward(self, customer_id: int, lo: Key, selected: str) -> tuple[str, list[Any]]:
        """`walk_sql` from a document's key to the end. Its boxes always have one shape (equal leading
        values, then a bound on the next column, for each column from the id back to the first), so
        the SQL is made once and only the parameters are worked out per key, without the boxes."""
        values = (*lo[1:-1:2], lo[-1])
        params: list[Any] = []
        for column in range(len(values) - 1, -1, -1):
            params.append(customer_id)
            params.extend(values[: column + 1])
        return self._shaped("onward", customer_id, lo, None, selected), params

    def _shaped(self, walk: str, customer_id: int, lo: Key, hi: Key | None, selected: str) -> str:
        """The SQL of a `walk` of one shape, made from its first span's boxes and kept."""
        sql = self._shaped_walks.get((walk, selected))
        if sql is None:
            sql = self._shaped_walks[walk, selected] = self._walk_sql(customer_id, lo, hi, selected)[0]
        return sql

    def _walk_sql(self, customer_id: int, lo: Key | None, hi: Key | None, selected: str) -> tuple[str, list[Any]]:
        boxes = self.boxes(lo, hi)
        if not boxes:
            return f"SELECT {selected} FROM {self.table} WHERE 0 LIMIT ? OFFSET ?", []
        return self._statement(boxes, self._walks(selected), customer_id)

    def _walks(self, selected: str) -> Any:
        found = self._walk_builders.get(selected)
        if found is None:

            def build(arms: list[tuple[str, int]]) -> str:
                return (
                    " UNION ALL ".join(
                        f"SELECT * FROM (SELECT {selected} FROM {self.table} "
                        f"WHERE {where} ORDER BY {self._order(column)})"
                        for where, column in arms
                    )
                    + " LIMIT ? OFFSET ?"
                )

            found = self._walk_builders[selected] = build
        return found

    def key_at(self, conn: sqlite3.Connection, customer_id: int, lo: Key | None, offset: int) -> Key | None:
        """The key `offset` places after `lo` (0: the first at or after it), or None past the end."""
        sql, params = self.walk_sql(customer_id, lo, None, self._selected)
        row = conn.execute(sql, [*params, 1, offset]).fetchone()
        return self.key_of_row(row) if row is not None else None


def _flat(columns: list[Any]) -> tuple[Any, ...]:
    out: list[Any] = []
    for column in columns:
        out.extend(column if isinstance(column, tuple) else (column,))
    return tuple(out)


def _open(value: Any) -> bool:
    """A bound that bounds nothing: BELOW or ABOVE for a property, LOWEST or HIGHEST for an id."""
    if isinstance(value, tuple):
        return value[0] in (BELOW, ABOVE)
    return value in (LOWEST, HIGHEST)


def _empty(box: Box) -> bool:
    """A box that holds no document: equal to an open bound, or a range that is empty."""
    if any(_open(value) for value in box.prefix):
        return True
    if box.low is not None and box.low[0] in ((ABOVE, None), HIGHEST):
        return True
    if box.high is not None and box.high[0] in ((BELOW, None), LOWEST):
        return True
    if box.low is None or box.high is None or _open(box.low[0]) or _open(box.high[0]):
        return False
    (low, low_inclusive), (high, high_inclusive) = box.low, box.high
    lo, hi = _flat([low]), _flat([high])
    return lo > hi or (lo == hi and not (low_inclusive and high_inclusive))
