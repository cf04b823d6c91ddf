"""A data dir written by the real app, for the commands' tests (the `prepared` fixture of conftest.py)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from telephony.app import create_app

from ..serving import SERVICE, login, telephony


@dataclass
class Prepared:
    """A data dir with a login and two API tokens, `early` and `late`, ten minutes apart."""

    data_dir: Path
    secrets: list[str]
    early_position: int
    cut: str
    """A UTC time between `early` and `late`."""


async def issue(client, token: str, name: str) -> str:
    response = await client.post(f"{SERVICE}/apitokens", json={"name": name, "expiry": 0}, headers=auth(token))
    assert response.status == 201, await response.text()
    return (await response.json())["data"]["token"]


def auth(token: str) -> dict[str, str]:
    return {"X-Auth-Token": token}


async def prepare(aiohttp_client, settings, clock) -> Prepared:
    client = await aiohttp_client(create_app(settings, clock=clock))
    user_token = await login(client)
    early = await issue(client, user_token, "early")
    early_position = (await (await client.get("/_telephony/health")).json())["position"]
    cut = clock.now() + timedelta(seconds=300)
    clock.advance(600)
    late = await issue(client, user_token, "late")
    await client.close()
    return Prepared(settings.data_dir, [user_token, early, late], early_position, cut.strftime("%Y-%m-%d %H:%M:%S"))


def run(prepared: Prepared, *args: str):
    return telephony("--data-dir", prepared.data_dir, *args, cwd=prepared.data_dir.parent)


def tamper(prepared: Prepared, sql: str, *params) -> None:
    with sqlite3.connect(prepared.data_dir / "events.db") as conn:
        assert conn.execute(sql, params).rowcount == 1
