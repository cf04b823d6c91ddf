"""DELETE /statements: clears the customer's billing statements (recorded as one event)."""

from __future__ import annotations

from aiohttp import web

from ..api.access import may_change
from ..api.context import meta_of, principal
from ..api.route_table import Route
from ..api.shapes import Shape
from ..domain.events.log import StatementsCleared
from ..eventlog import NewEvent
from ..keys import EVENT_LOG


async def delete_statements(request: web.Request) -> web.Response:
    who = principal(request)
    event = NewEvent(stream=f"statements-{who.customer_id}", event=StatementsCleared(customer_id=who.customer_id))
    await request.app[EVENT_LOG].append([event], meta_of(request))
    return web.Response(status=204)


ROUTES = [
    Route("DELETE", "/statements", delete_statements, may_change("history"),
          shape=Shape(envelope="none", status=204, tag="history")),
]  # fmt: skip
