"""Simulated inbound traffic, for demos and an integrator's CI: `POST /_telephony/simulate/inbound-call`.

The caller (`from`) rings one of a customer's numbers (`to`; a number nobody has is a 404), and the
platform routes the call by the number's target (`calls.dialplan`). `answer` names simulated answers
of users (by id) or numbers: seconds until they answer, or `busy`, `reject`, `never`; the others
follow the `[simulator]` settings, deterministically for its seed. `hangup_after` is when the caller
gives up. The answer is the live call (201), or the ended one when the number routes nowhere.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from aiohttp import web

from ..api.context import meta_of
from ..api.control import control_route, control_shape
from ..api.errors import BadRequest, NotFound
from ..api.responses import json_response
from ..api.wire import read_json
from ..documents import reads
from ..domain import phone
from ..domain.nouns import not_found
from ..domain.schemas import LiveCall
from ..domain.types import E164
from ..keys import CALLS, READER
from . import dialplan, parties
from .live import live_call
from .placing import Inbound

Answer = Annotated[float, msgspec.Meta(ge=0, le=3600)] | Literal["busy", "reject", "never"]
Key = Annotated[str, msgspec.Meta(pattern=r"^([0-9*#]|[0-9]{2,6})$", description="a key, or an extension")]


class InboundCall(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    from_: E164 = msgspec.field(name="from")
    to: E164
    answer: dict[Annotated[str, msgspec.Meta(max_length=32)], Answer] = msgspec.field(default_factory=dict)
    hangup_after: Annotated[float, msgspec.Meta(ge=0, le=43_200)] | None = None
    digits: list[Key | KeyPress] = msgspec.field(default_factory=list)


class KeyPress(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A key (or an extension) pressed in an IVR, `after` seconds into its prompt."""

    key: Key
    after: Annotated[float, msgspec.Meta(ge=0, le=3600)] = 1.0


async def inbound_call(request: web.Request) -> web.Response:
    body = await read_json(request, InboundCall)
    reader, calls = request.app[READER], request.app[CALLS]
    dialled = phone.e164(body.to)
    owner = await reads.owned_by(reader, "ddi", dialled)
    if owner is None:
        raise NotFound(not_found("ddi", dialled))
    customer_id, ddi = owner[0], msgspec.json.decode(owner[1])
    caller = await parties.outside(reader, customer_id, phone.e164(body.from_))
    choices = {phone.digits(key): value for key, value in body.answer.items()}
    digits = tuple((d, 1.0) if isinstance(d, str) else (d.key, d.after) for d in body.digits)
    inbound = Inbound(customer_id=customer_id, src=caller, dialled=dialled, target=dialplan.target_of(ddi),
                      choices=choices, gives_up_after=body.hangup_after, digits=digits)  # fmt: skip
    call = await calls.place_inbound(inbound, meta_of(request, source="simulator"))
    return json_response({"data": live_call(call, calls.clock.time())}, status=201)


class Dtmf(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    digits: Key | None = None
    """Required; checked once the call is known, so an unknown call is a 404 whatever the body."""


async def dtmf(request: web.Request) -> web.Response:
    """The caller of a call live in an IVR presses a key (or dials an extension) now."""
    calls, call_id = request.app[CALLS], int(request.match_info["id"])
    body = await read_json(request, Dtmf)
    if call_id not in calls.live.calls:  # unknown, or ended: a call is gone at its hangup
        raise NotFound(f"Call {call_id} not found")
    if body.digits is None:
        raise BadRequest.field("digits", "This field is required")
    call = await calls.press(call_id, body.digits, meta_of(request, source="simulator"))
    return json_response({"data": live_call(call, calls.clock.time())})


ROUTES = [
    control_route("POST", "/simulate/inbound-call", inbound_call,
                  control_shape(LiveCall, status=201, body=InboundCall, errors=(400, 404))),
    control_route("POST", r"/calls/{id:\d{1,18}}/dtmf", dtmf, control_shape(LiveCall, body=Dtmf, errors=(400, 404))),
]  # fmt: skip
