"""Operator provisioning of numbers: `POST /_telephony/customers/{id}/ddis` (the platform's job)."""

from __future__ import annotations

from typing import Annotated

import msgspec
from aiohttp import web

from ..accounts import customer_exists
from ..api.context import meta_of
from ..api.control import control_route, control_shape
from ..api.responses import json_response
from ..api.wire import read_json
from ..clock import wire_time
from ..documents import reads
from ..domain.errors import Invalid, Unknown
from ..domain.schemas import Ddi
from ..domain.types import E164
from ..keys import CLOCK, EVENT_LOG
from . import decisions
from .catalogue import BY_PATH

DDIS = BY_PATH["ddis"]


class NewDdi(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    e164: E164
    name: str | None = None
    channels: Annotated[int, msgspec.Meta(ge=1)] = 2
    sms_enabled: bool = False
    fax_enabled: bool = False
    rate: float = 0.0
    status: int = 1
    info: str | None = None


async def provision_ddi(request: web.Request) -> web.Response:
    customer_id = int(request.match_info["id"])
    body = await read_json(request, NewDdi)
    number = "+" + body.e164.lstrip("+")
    fields = {**msgspec.structs.asdict(body), "e164": number, "name": body.name or number}
    now = wire_time(request.app[CLOCK].now())
    create = decisions.create(DDIS, customer_id, fields, now, number)

    def decide(conn):
        if not customer_exists(conn, customer_id):
            raise Unknown(f"Customer {customer_id} not found")
        if reads.exists(conn, DDIS.kind, number):
            raise Invalid.field("e164", "This number is already provisioned")
        return create(conn)

    await request.app[EVENT_LOG].transact(decide, meta_of(request))
    return json_response({"data": create.result}, status=201)


ROUTES = [
    control_route("POST", r"/customers/{id:\d+}/ddis", provision_ddi,
                  control_shape(Ddi, status=201, body=NewDdi, errors=(400, 409))),
]  # fmt: skip
