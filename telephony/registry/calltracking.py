"""PATCH /calltracking/ddis: assign numbers to call tracking campaigns, in bulk, by number."""

from __future__ import annotations

from aiohttp import web

from ..api.context import authorize, meta_of
from ..api.responses import collection
from ..api.routing import Route
from ..api.shapes import Shape
from ..api.wire import read_json
from ..domain.schemas import CallTrackingDdiItem, Ddi
from ..keys import EVENT_LOG
from . import decisions
from .catalogue import BY_PATH

DDIS = BY_PATH["ddis"]


async def assign_numbers(request: web.Request) -> web.Response:
    who = authorize(request, DDIS.module, write=True)
    items = await read_json(request, list[CallTrackingDdiItem])
    changes = {"+" + item.e164.lstrip("+"): {"campaign_id": item.campaign_id} for item in items}
    decision = decisions.update(DDIS, who.customer_id, changes)  # checks each campaign is the customer's
    await request.app[EVENT_LOG].transact(decision, meta_of(request))
    return collection(decision.result)


ROUTES = [
    Route("PATCH", "/calltracking/ddis", assign_numbers,
          shape=Shape(Ddi, "list", body=list[CallTrackingDdiItem], errors=(400, 404), tag="settings")),
]  # fmt: skip
