"""Reads of document tables for GET handlers (on the read-only connection)."""

from __future__ import annotations

from typing import Any

import aiosqlite


async def get(reader: aiosqlite.Connection, table: str, id_: Any, customer_id: int) -> str | None:
    """One document's JSON body, only if it belongs to `customer_id`."""
    rows = await reader.execute_fetchall(
        f'SELECT body FROM "{table}" WHERE id = ? AND customer_id = ?', (id_, customer_id)
    )
    return next(iter(rows))[0] if rows else None


async def get_many(reader: aiosqlite.Connection, table: str, ids: list[Any], customer_id: int) -> dict[Any, str]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    sql = f'SELECT id, body FROM "{table}" WHERE customer_id = ? AND id IN ({marks})'
    return {row[0]: row[1] for row in await reader.execute_fetchall(sql, (customer_id, *ids))}
