"""Pages read by rank: any page of a list in a few index seeks, with its exact total, whatever its depth.

A list whose conditions are equalities on the leading properties of one of the kind's orderings,
and at most one range on the next, in that ordering's order (by id, or by the ranged property with
ties by id), is a span [lo, hi) of that ordering. Its total is the difference of two ranks, and its
page starts at a rank that `Ranks` finds without walking there; the page is then a short walk of
the index, its bodies joined by SQLite into one string. Anything else (a `like`, an `in`, a
sort the ordering does not give) returns None, and the list is read by SQL as before (`listing`).
"""

from __future__ import annotations

import sqlite3
from array import array
from collections.abc import Sequence
from typing import Any

from .kept import Page, followed, joined_bodies
from .listing import short_page_params, total_unless_short
from .ordering import ABOVE, BELOW, HIGHEST, LOWEST, Key, Ordering, Unorderable, component
from .ranks import Ranks
from .reader import Reader, Snapshot

Comparison = tuple[str, str, Any]
"""(property, operator, value), the operator one of = < <= > >=."""
SMALL = 1000
"""A span of at most this many documents is counted by walking it: cheaper than two ranks."""
LOWER = {">=": LOWEST, ">": HIGHEST}
UPPER = {"<": LOWEST, "<=": HIGHEST}


class Plan:
    """A list as a span of one ordering."""

    __slots__ = ("ordering", "lo", "hi")

    def __init__(self, ordering: Ordering, lo: Key | None, hi: Key | None) -> None:
        self.ordering, self.lo, self.hi = ordering, lo, hi


def plan(orderings: Sequence[Ordering], comparisons: Sequence[Comparison], sort: str | None) -> Plan | None:
    """The span that answers these conditions in this order, if an ordering has one."""
    equal: dict[str, Any] = {}
    ranged: dict[str, list[tuple[str, Any]]] = {}
    for prop, operator, value in comparisons:
        if operator == "=":
            if prop in equal and equal[prop] != value:
                return None
            equal[prop] = value
        else:
            ranged.setdefault(prop, []).append((operator, value))
    if sort == "id":
        sort = None
    for ordering in orderings:
        found = _span(ordering, equal, ranged, sort)
        if found is not None:
            return found
    return None


def _span(ordering: Ordering, equal: dict[str, Any], ranged: dict[str, list[tuple[str, Any]]],
          sort: str | None) -> Plan | None:  # fmt: skip
    props, leading = ordering.props, len(equal)
    if set(props[:leading]) != set(equal) or len(props) - leading > 1:
        return None
    rest = props[leading:]
    if sort is None and (rest or ranged):
        return None
    if sort is not None and (rest != (sort,) or set(ranged) != {sort}):
        return None  # a property left free might be unset, and the ordering holds only set ones
    try:
        prefix = tuple(part for prop in props[:leading] for part in _pair(equal[prop]))
        if not rest:
            return Plan(ordering, (*prefix, LOWEST) if prefix else None, (*prefix, HIGHEST) if prefix else None)
        lo: Key = (*prefix, BELOW, None, LOWEST)
        hi: Key = (*prefix, ABOVE, None, HIGHEST)
        for operator, value in ranged[sort]:  # type: ignore[index]
            if operator in LOWER:
                lo = max(lo, (*prefix, *_pair(value), LOWER[operator]))
            else:
                hi = min(hi, (*prefix, *_pair(value), UPPER[operator]))
    except (Unorderable, TypeError):
        return None
    return Plan(ordering, lo, hi)


def _pair(value: Any) -> tuple[int, Any]:
    pair = component(value)
    if pair is None:
        raise Unorderable("unset")
    return pair


def read(reader: Reader, ranks: Ranks, kind: str, customer_id: int, comparisons: Sequence[Comparison] | None,
         sort: str | None, descending: bool, offset: int, limit: int) -> tuple[bytes, int] | None:  # fmt: skip
    """A customer's page of `kind` under these conditions, by rank: (bodies joined, total), or None
    when no ordering answers it or the ranks are a moment behind the snapshot."""
    if comparisons is None:
        return None
    found = plan(ranks.orderings(kind), comparisons, sort)
    if found is None:
        return None

    def work(snapshot: Snapshot) -> tuple[bytes, int] | None:
        if not ranks.sync(snapshot.position):
            return None
        return page(snapshot, ranks, found, customer_id, offset, limit, descending)

    return reader.at_snapshot(work)


def page(snapshot: Snapshot, ranks: Ranks, plan: Plan, customer_id: int, offset: int, limit: int,
         descending: bool) -> tuple[bytes, int]:  # fmt: skip
    """The page's bodies joined by commas, and the total of the span. Until the ordering's ranks are
    built for the customer, a bounded span of at most `SMALL` documents (a call's CDRs) is counted
    and walked as it is, so such lists never build them; a larger one is read by rank."""
    snapshot.unbounded()  # a span's walk is bounded by the page; a first build walks the index once
    conn, ordering = snapshot.conn, plan.ordering
    if plan.lo is not None and plan.hi is not None and not ranks.built(ordering, customer_id):
        small = _small_span(conn, ordering, customer_id, plan.lo, plan.hi, offset, limit, descending)
        if small is not None:
            return small
    lo = ranks.rank(conn, ordering, customer_id, plan.lo) if plan.lo is not None else 0
    total = ranks.rank(conn, ordering, customer_id, plan.hi) - lo
    count = min(limit, total - offset)
    if count <= 0:
        return b"", max(total, 0)
    start = lo + (total - offset - count if descending else offset)
    return _at_ranks(conn, ranks, plan, customer_id, start, count, descending, offset), total


def _at_ranks(conn: sqlite3.Connection, ranks: Ranks, plan: Plan, customer_id: int, start: int, count: int,
              descending: bool, offset: int) -> bytes:  # fmt: skip
    """The bodies at ranks [start, start + count), the list's rows from `offset`, joined in its direction:
    as kept from an earlier read when no key before them changed since (`kept`), else walked from the
    fence before. A list read newest first whose page was kept a few ranks back reads only the rows
    it gained."""
    ordering = plan.ordering
    blocks = ranks.blocks(conn, ordering, customer_id)
    key = (ordering.kind, ordering.name, customer_id, plan.hi if descending else plan.lo, offset, count, descending)
    kept = ranks.kept.get(key, blocks, start)
    if kept is not None and kept.start == start:
        return kept.joined
    run: tuple[bytes, array | None]
    if kept is not None:
        gained = start - kept.start
        fence, skip = ranks.seek(conn, ordering, customer_id, kept.start + count)
        run = followed(_walk_back(conn, ordering, customer_id, fence, skip, gained), kept.but_oldest(gained))
    else:
        fence, skip = ranks.seek(conn, ordering, customer_id, start)
        if descending:
            run = _walk_back(conn, ordering, customer_id, fence, skip, count)
        else:
            run = _walk(conn, ordering, customer_id, fence, skip, count), None
    if ranks.kept.wanted(offset, len(run[0])):
        bound = ranks.bound_after(conn, ordering, customer_id, start + count - 1)
        ranks.kept.put(key, Page(blocks, bound, start, *run), offset)
    return run[0]


def _small_span(conn: sqlite3.Connection, ordering: Ordering, customer_id: int, lo: Key, hi: Key, offset: int,
                limit: int, descending: bool) -> tuple[bytes, int] | None:  # fmt: skip
    """The page of a bounded span and its total, when the span holds at most `SMALL` documents (None
    otherwise: it is read by rank). In id order the page is walked in the statement that counts the
    span, and a page shorter than the limit ends the span, so its total is its offset plus its rows and
    nothing is counted: an equality that one document has, as a call's `live_id`, costs one walk."""
    counted, counted_params = ordering.walk_sql(customer_id, lo, hi, "NULL")
    if descending:
        total = conn.execute(f"SELECT count(*) FROM ({counted})", (*counted_params, SMALL + 1, 0)).fetchone()[0]
        if total > SMALL:
            return None
        count = min(limit, total - offset)
        if count <= 0:
            return b"", total
        return _walk_back(conn, ordering, customer_id, lo, total - offset - count, count, hi)[0], total
    walk, params = ordering.walk_sql(customer_id, lo, hi, "body")
    sql = (
        f"SELECT n, {total_unless_short(f'SELECT count(*) FROM ({counted})')}, "
        f"joined FROM (SELECT count(*) AS n, CAST(group_concat(body, ',') AS BLOB) AS joined FROM ({walk}))"
    )
    bound = (*short_page_params(limit, offset), *counted_params, SMALL + 1, 0, *params, limit, offset)
    shown, total, joined = conn.execute(sql, bound).fetchone()
    ended = shown < limit and (shown > 0 or offset == 0)
    return (joined or b"", total) if ended or total <= SMALL else None


def _walk(conn: sqlite3.Connection, ordering: Ordering, customer_id: int, start: Key | None, skip: int, count: int,
          end: Key | None = None) -> bytes:  # fmt: skip
    """The bodies of `count` documents from `skip` places after `start` (and before `end`, when the
    span is known), joined by commas."""
    sql, params = ordering.walk_sql(customer_id, start, end, "body")
    found = conn.execute(f"SELECT CAST(group_concat(body, ',') AS BLOB) FROM ({sql})", (*params, count, skip))
    return found.fetchone()[0] or b""


def _walk_back(conn: sqlite3.Connection, ordering: Ordering, customer_id: int, start: Key | None, skip: int,
               count: int, end: Key | None = None) -> tuple[bytes, array]:  # fmt: skip
    """`_walk` in the other direction, newest first, and where each body ends (`kept.joined_bodies`).
    SQLite joins them, as in `_walk`, with their sizes: the loop gives the GIL up once, not per row."""
    sql, params = ordering.walk_sql(customer_id, start, end, "body")
    both = f"SELECT CAST(group_concat(body, ',') AS BLOB), group_concat(length(CAST(body AS BLOB))) FROM ({sql})"
    forward, sizes = conn.execute(both, (*params, count, skip)).fetchone()
    if not forward:
        return joined_bodies([])
    bodies, at = [], 0
    for size in map(int, sizes.split(",")):
        bodies.append(forward[at : at + size])
        at += size + 1
    bodies.reverse()
    return joined_bodies(bodies)
