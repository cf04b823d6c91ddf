"""Reads of document tables for GET handlers (on the read-only connection)."""

from __future__ import annotations

from typing import Any

from .reader import Reader

MAX_ID = 2**63 - 1


def storable(ids: list[Any]) -> list[Any]:
    """The ids that could exist: an integer beyond 64 bits names nothing (and SQLite cannot bind it)."""
    return [i for i in ids if not isinstance(i, int) or -MAX_ID <= i <= MAX_ID]


async def get(reader: Reader, table: str, id_: Any, customer_id: int) -> str | None:
    """One document's JSON body, only if it belongs to `customer_id`."""
    if not storable([id_]):
        return None
    rows = await reader.execute_fetchall(
        f'SELECT body FROM "{table}" WHERE id = ? AND customer_id = ?', (id_, customer_id)
    )
    return next(iter(rows))[0] if rows else None


async def get_many(reader: Reader, table: str, ids: list[Any], customer_id: int) -> dict[Any, str]:
    ids = storable(ids)
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    sql = f'SELECT id, body FROM "{table}" WHERE customer_id = ? AND id IN ({marks})'
    return {row[0]: row[1] for row in await reader.execute_fetchall(sql, (customer_id, *ids))}
