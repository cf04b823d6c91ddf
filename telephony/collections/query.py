"""List requests: `page`, `limit`, `filter`, `sort`/`dir`, `group_by`, checked into a `listing.Query`."""

from __future__ import annotations

from collections.abc import Mapping

from ..documents.listing import Query
from ..domain.errors import Invalid
from . import filters
from .filters import Kind


def _positive(query: Mapping[str, str], name: str, default: int) -> int:
    raw = query.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise Invalid.field(name, f"'{name}' must be a positive integer")
    return value


def parse(query: Mapping[str, str], props: Mapping[str, Kind], *, default_limit: int, max_limit: int) -> Query:
    """Read a list request's parameters; anything unknown or malformed is a 400 naming it. Pages count
    from 1; a missing `limit` is `default_limit`, a larger one than `max_limit` is served as that. The
    order is always fixed, ties broken by id, so a walk of the pages returns every row exactly once."""
    page = _positive(query, "page", 1)
    limit = min(_positive(query, "limit", default_limit), max_limit)
    where = filters.parse(query.get("filter"), props)
    sort, descending = query.get("sort") or None, (query.get("dir") or "ASC").upper() == "DESC"
    if (query.get("dir") or "ASC").upper() not in ("ASC", "DESC"):
        raise Invalid.field("dir", "'dir' must be ASC or DESC")
    if sort and sort.startswith("-"):
        sort, descending = sort[1:], True
    if sort and sort not in props:
        raise Invalid.field("sort", f"Unknown property '{sort}'")
    if sort and props[sort] in (Kind.ARRAY, Kind.OBJECT):
        raise Invalid.field("sort", f"'{sort}' is {'a list' if props[sort] is Kind.ARRAY else 'an object'}: "
                                    "lists are sorted by text, number, boolean or time properties")  # fmt: skip
    group_by = query.get("group_by") or None
    if group_by and group_by not in props:
        raise Invalid.field("group_by", f"Unknown property '{group_by}'")
    if page * limit > 2**62:
        raise Invalid.field("page", "'page' is too large")
    return Query(page, limit, where, sort, descending, group_by)


def envelope(joined: bytes, total: int) -> bytes:
    """`{data: [...], total}` around JSON bodies joined by commas, without decoding them (copied once:
    a chain of `+` copies the page at every step)."""
    return b"".join((b'{"data":[', joined, b'],"total":', str(total).encode(), b"}"))
