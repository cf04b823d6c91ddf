"""Placing calls over HTTP: click-to-call (`POST /calls`), lead calls and web calls.

The handler resolves the parties (the user's own client, the caller id, the destination: a number
or a user's extension) and the call is placed in one decision (`placing`): the live call answers,
or the web call's record. A softphone's INVITE places its click-to-call through `click_to_call` too
(`phones`).
"""

from __future__ import annotations

import re
from typing import Annotated

import msgspec
from aiohttp import web

from ..api.context import meta_of, principal
from ..api.errors import BadRequest
from ..api.responses import single
from ..api.shapes import Shape
from ..api.wire import read_json
from ..documents import reads
from ..documents.listing import ReadStore
from ..domain import phone
from ..domain.calls.call import Call
from ..domain.types import E164
from ..eventlog import Metadata
from ..keys import CALLS, READER
from . import parties
from .engine import Calls
from .live import live_call
from .placing import Placing

Destination = Annotated[
    str,
    msgspec.Meta(
        pattern=f"^({phone.NUMBER}|[0-9]{{2,6}})$",
        description=f"{phone.DESCRIPTION}, or an extension of 2 to 6 digits",
        extra=phone.NUMBER_FIELD,
    ),
]
Text = Annotated[str, msgspec.Meta(max_length=2048)]


class PlaceCall(msgspec.Struct, kw_only=True):
    to: Destination
    caller_id: str | None = None
    from_: int | str | None = msgspec.field(default=None, name="from")


class PlaceWebcall(msgspec.Struct, kw_only=True):
    from_: E164 = msgspec.field(name="from")
    to: Destination


class PlaceLeadcall(msgspec.Struct, kw_only=True):
    to: Destination
    caller_id: str | None = None
    tts: Text | None = None


def registrations_of(request: web.Request) -> parties.Registrations:
    return request.app[CALLS].registrations


async def _originator(reader: ReadStore, customer_id: int, user_id: int, given: int | str | None) -> dict:
    if given is not None:
        if not re.fullmatch(r"[0-9]{1,18}", str(given)):
            raise BadRequest.field("from", "This value must be the id of a user.")
        user_id = int(given)
    return await parties.user_of(reader, user_id, customer_id)


async def place_call(request: web.Request) -> web.Response:
    """Click-to-call: the user's own client rings first, then the destination."""
    who = principal(request)
    body = await read_json(request, PlaceCall)
    call = await click_to_call(request.app[READER], request.app[CALLS], who.customer_id, who.user_id, body,
                               meta_of(request))  # fmt: skip
    return single(request, live_call(call, call.placed_at), f"/calls/{call.id}", status=201)


async def click_to_call(reader: ReadStore, calls: Calls, customer_id: int, user_id: int, body: PlaceCall,
                        meta: Metadata, phone: parties.Client | None = None) -> Call:  # fmt: skip
    """The call `POST /calls` places for a user, its checks and its events. `phone` is a softphone that
    dialled it (`calls.phones`): the user's side is that phone, which answers as the call is placed."""
    registrations = calls.registrations
    user = await _originator(reader, customer_id, user_id, body.from_)
    src = parties.user_party(user, registrations, required=True)
    if phone is not None:
        src = msgspec.structs.replace(src, ua=phone.user_agent, contact=phone.contact)
    clid = await parties.caller_id(reader, customer_id, body.caller_id, user)
    to = await parties.destination(reader, customer_id, body.to, registrations)
    placing = Placing(customer_id=customer_id, user_id=user["id"], kind="click", first="src", src=src, dst=to.party,
                      clid=clid, context=to.context, destination="out", record=parties.records(user, "out", to.context),
                      outcome=to.outcome, target=to.target, caller_answers=phone is not None)  # fmt: skip
    return await calls.place(placing, meta)


async def place_leadcall(request: web.Request) -> web.Response:
    """A lead call: the destination is called first (and hears `tts`), then the user."""
    who = principal(request)
    body = await read_json(request, PlaceLeadcall)
    reader, registrations = request.app[READER], registrations_of(request)
    user = await parties.user_of(reader, who.user_id, who.customer_id)
    src = parties.user_party(user, registrations, required=True)
    clid = await parties.caller_id(reader, who.customer_id, body.caller_id, user)
    to = await parties.destination(reader, who.customer_id, body.to, registrations)
    placing = Placing(customer_id=who.customer_id, user_id=user["id"], kind="lead", first="dst", src=src, dst=to.party,
                      clid=clid, context=to.context, destination="out", record=parties.records(user, "out", to.context),
                      outcome=to.outcome, tts=body.tts, target=to.target)  # fmt: skip
    return await _placed(request, placing)


async def _placed(request: web.Request, placing: Placing) -> web.Response:
    call = await request.app[CALLS].place(placing, meta_of(request))
    return single(request, live_call(call, call.placed_at), f"/calls/{call.id}", status=201)


async def place_webcall(request: web.Request) -> web.Response:
    """A web call bridges two numbers: `from` is called first, then `to`."""
    who = principal(request)
    body = await read_json(request, PlaceWebcall)
    calls, reader = request.app[CALLS], request.app[READER]
    src = await parties.outside(reader, who.customer_id, phone.e164(body.from_))
    to = await parties.destination(reader, who.customer_id, body.to, registrations_of(request))
    placing = Placing(customer_id=who.customer_id, user_id=who.user_id, kind="web", first="src", src=src, dst=to.party,
                      clid=src.number, context=to.context, destination="webcall", outcome=to.outcome, web=True,
                      target=to.target)  # fmt: skip
    call = await calls.place(placing, meta_of(request))
    record = await reads.body(reader, "webcall", call.webcall_id, who.customer_id)
    return single(request, msgspec.json.decode(record or b"{}"), f"/webcalls/{call.webcall_id}", status=201)


def placing_shape(body: type, answer: type | None = None) -> Shape:
    return Shape(answer, status=201, body=body, errors=(400, 402, 412), tag="calls")
