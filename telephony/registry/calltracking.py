"""PATCH /calltracking/ddis: assign numbers to call tracking campaigns, in bulk, by number (a number's
other fields, as GET shows them, are taken back read-only)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from ..api.access import may_change
from ..api.context import meta_of, principal
from ..api.responses import collection
from ..api.route_table import Route
from ..api.shapes import Shape
from ..api.wire import read_json
from ..domain import phone
from ..domain.bodies import echoes, echoing
from ..domain.schemas import CallTrackingDdiItem, Ddi
from ..keys import EVENT_LOG
from . import decisions
from .catalogue import BY_PATH

DDIS = BY_PATH["ddis"]
ITEM: Any = echoing(CallTrackingDdiItem, Ddi)


async def assign_numbers(request: web.Request) -> web.Response:
    who = principal(request)
    items = await read_json(request, list[ITEM])
    numbers = [phone.e164(item.e164) for item in items]
    changes = {number: {"campaign_id": item.campaign_id} for number, item in zip(numbers, items, strict=True)}
    echoed = {number: echoes(item) for number, item in zip(numbers, items, strict=True)}
    decision = decisions.update(DDIS, who.customer_id, changes, echoed)  # checks each campaign is the customer's
    await request.app[EVENT_LOG].transact(decision, meta_of(request))
    return collection(decision.result)


ROUTES = [
    Route("PATCH", "/calltracking/ddis", assign_numbers, may_change(DDIS.module),
          shape=Shape(Ddi, "list", body=list[ITEM], errors=(400, 404), tag="settings")),
]  # fmt: skip
