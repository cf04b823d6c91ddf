"""Sending SMS before messaging exists: it needs an SMS-enabled number, which nobody has yet, so
`POST /sms` answers the platform's own 412."""

from __future__ import annotations

from typing import Annotated

import msgspec
from aiohttp import web

from ..api.context import authorize
from ..api.errors import PreconditionFailed
from ..api.routing import Route
from ..api.shapes import Shape
from ..api.wire import read_json
from ..domain.schemas import Sms
from ..domain.types import E164


class SendSms(msgspec.Struct, kw_only=True):
    to: E164
    message: Annotated[str, msgspec.Meta(min_length=1, max_length=1600)]
    from_: E164 | None = msgspec.field(default=None, name="from")


async def send_sms(request: web.Request) -> web.Response:
    authorize(request, "storage", write=True)
    await read_json(request, SendSms)
    raise PreconditionFailed("No SMS-enabled number is available to send from")


ROUTES = [
    Route("POST", "/sms", send_sms, shape=Shape(Sms, status=201, body=SendSms, errors=(400, 412), tag="storage")),
]
