"""A customer's documents of a kind as the pages list them: the first `limit` in an order."""

from __future__ import annotations

from typing import Any

import msgspec
from aiohttp import web

from ..collections import parse, properties
from ..documents import listing
from ..documents.conditions import equals
from ..keys import READER, SETTINGS


class Sorted(msgspec.Struct):
    """The properties the pages' lists sort by."""

    id: int
    name: str


async def documents(request: web.Request, kind: str, customer_id: int, limit: int, sort: str = "id",
                    descending: bool = False) -> list[dict[str, Any]]:  # fmt: skip
    query = {"limit": str(limit), "sort": sort, "dir": "DESC" if descending else "ASC"}
    q = parse(query, properties(Sorted), default_limit=limit, max_limit=request.app[SETTINGS].api.max_page_size)
    return (await listing.page(request.app[READER], kind, equals(customer_id=customer_id), q)).documents()
