"""Fault rules over HTTP, for the operator (control key); each change is an event (see
`domain.faults`).

    POST     /_telephony/faults          add a rule → 201 {data: Fault}
    GET      /_telephony/faults          the rules, oldest first → {data, total}
    DELETE   /_telephony/faults/{id}     remove one → 204 (404 when it is not there)
    DELETE   /_telephony/faults          remove every one → 204
"""

from __future__ import annotations

from typing import Literal

from aiohttp import web

from ..api.context import meta_of
from ..api.control import control_route, control_shape
from ..api.responses import json_response
from ..api.wire import read_json
from ..fault_rule import FaultRule
from ..keys import FAULTS


class Fault(FaultRule, frozen=True, kw_only=True):
    """A fault rule as the API shows it: its fields (null or false when not given), its clock times,
    where it came from, and how often it matched and fired; `active` false once spent or expired."""

    id: int
    expires_at: str | None
    created_at: str
    source: Literal["api", "config"]
    matched: int
    fired: int
    active: bool


async def add_fault(request: web.Request) -> web.Response:
    rule = await read_json(request, FaultRule, FaultRule.problems)
    return json_response({"data": await request.app[FAULTS].add(rule, meta_of(request))}, status=201)


async def list_faults(request: web.Request) -> web.Response:
    listed = request.app[FAULTS].listed()
    return json_response({"data": listed, "total": len(listed)})


async def remove_fault(request: web.Request) -> web.Response:
    await request.app[FAULTS].remove([int(request.match_info["id"])], meta_of(request))
    return web.Response(status=204)


async def remove_faults(request: web.Request) -> web.Response:
    faults = request.app[FAULTS]
    await faults.remove(list(faults.rules.faults), meta_of(request))
    return web.Response(status=204)


ROUTES = [
    control_route("POST", "/faults", add_fault, control_shape(Fault, status=201, body=FaultRule, errors=(400,))),
    control_route("GET", "/faults", list_faults, control_shape(Fault, "list")),
    control_route("DELETE", "/faults", remove_faults, control_shape(None, "none", status=204)),
    control_route("DELETE", r"/faults/{id:\d{1,18}}", remove_fault,
                  control_shape(None, "none", status=204, errors=(404,))),
]  # fmt: skip
