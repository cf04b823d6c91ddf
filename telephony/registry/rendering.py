"""Shaping documents for the wire: `include=` embeds related records (ring groups, queues).

Resources without includes are served as stored. `include=users` embeds `{id, first_name,
last_name}` (queues add `status`: logged in to the queue); `include=ddis` embeds the numbers.
Without it, queue members are a list of user ids, as the real platform answers.
"""

from __future__ import annotations

from typing import Any

import msgspec
from aiohttp import web

from ..api.context import principal
from ..api.route_table import included
from ..documents import reads
from ..keys import READER
from .resource import Resource


def _member_id(member: Any) -> int:
    return member["id"] if isinstance(member, dict) else int(member)


async def _users(request: web.Request, ids: set[int]) -> dict[int, dict]:
    found = await reads.bodies(request.app[READER], "user", sorted(ids), principal(request).customer_id)
    return {
        id_: {k: v for k, v in msgspec.json.decode(body).items() if k in ("id", "first_name", "last_name")}
        for id_, body in found.items()
    }


async def _ddis(request: web.Request, numbers: set[str]) -> dict[str, dict]:
    found = await reads.bodies_by(request.app[READER], "ddi", "e164", sorted(numbers), principal(request).customer_id)
    return {number: msgspec.json.decode(body) for number, body in found.items()}


async def render_many(request: web.Request, resource: Resource, documents: list[dict]) -> list[dict]:
    if not resource.includes:
        return documents
    wanted = included(request)
    members = {_member_id(m) for d in documents for m in d.get("users") or ()}
    users = await _users(request, members) if "users" in wanted and members else {}
    numbers = {n for d in documents for n in d.get("ddis") or ()}
    ddis = await _ddis(request, numbers) if "ddis" in wanted and numbers else {}
    for document in documents:
        embedded: list[Any] = []
        for member in document.get("users") or ():
            if "users" not in wanted:
                embedded.append(_member_id(member))
                continue
            user = users.get(_member_id(member))
            if user is not None:
                status = {"status": member.get("status", True)} if isinstance(member, dict) else {}
                embedded.append({**user, **status})
        if "users" in document:
            document["users"] = embedded
        if "ddis" in wanted and "ddis" in document:
            document["ddis"] = [ddis.get(n, {"e164": n}) for n in document["ddis"] or ()]
    return documents


async def render_one(request: web.Request, resource: Resource, document: dict) -> dict:
    return (await render_many(request, resource, [document]))[0]
