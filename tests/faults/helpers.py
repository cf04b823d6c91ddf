"""Helpers of the fault tests: add rules, list them."""

from __future__ import annotations

from typing import Any

from tests.accounts.helpers import CONTROL


async def add_fault(client, expect: int = 201, **rule: Any) -> dict:
    response = await client.post("/_telephony/faults", json=rule, headers=CONTROL)
    answer = await response.json()
    assert response.status == expect, answer
    return answer


async def listed_faults(client) -> list[dict]:
    response = await client.get("/_telephony/faults", headers=CONTROL)
    assert response.status == 200
    return (await response.json())["data"]
