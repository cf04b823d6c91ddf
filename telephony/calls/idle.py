"""The calls module before any call engine runs: no call is live, and none can be placed.

Live calls exist only while a call is ongoing (spec, "States and transitions"), so lists are empty
and a call id is unknown (404). Placing a call needs a registered VoIP client, which nobody has
here, so POST answers the platform's own 412. SMS sending likewise needs an SMS-enabled number.
`/users/{id}/calls` is empty for the caller's users and a 404 for anyone else; what hangs from a call
(`/calls/{id}/monitors`, `/trace`) is a 404 like the call (after hangup a call's recordings are
found with `/monitors?filter=` on `live_id`, as the spec says).
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from aiohttp import web

from ..api.context import authorize
from ..api.errors import NotFound, PreconditionFailed
from ..api.responses import collection
from ..api.routing import Route
from ..api.shapes import Shape
from ..api.wire import read_json
from ..documents import reads
from ..domain.schemas import Monitor, Sms
from ..domain.types import E164
from ..keys import READER

NO_CLIENTS = "Unable to make a call with no VoIP clients registered"
Destination = Annotated[
    str,
    msgspec.Meta(
        pattern=r"^(\+?[1-9][0-9]{6,14}|[0-9]{2,6})$", description="an E.164 number or an extension of 2 to 6 digits"
    ),
]


class PlaceCall(msgspec.Struct, kw_only=True):
    to: E164
    caller_id: str | None = None
    from_: str | None = msgspec.field(default=None, name="from")


class PlaceWebcall(msgspec.Struct, kw_only=True):
    from_: E164 = msgspec.field(name="from")
    to: Destination


class PlaceLeadcall(msgspec.Struct, kw_only=True):
    to: Destination
    caller_id: str | None = None
    tts: str | None = None


class SendSms(msgspec.Struct, kw_only=True):
    to: E164
    message: Annotated[str, msgspec.Meta(min_length=1, max_length=1600)]
    from_: E164 | None = msgspec.field(default=None, name="from")


async def no_live_calls(request: web.Request) -> web.Response:
    authorize(request, "calls", write=False)
    return collection([])


async def no_live_calls_of_user(request: web.Request) -> web.Response:
    who = authorize(request, "calls", write=False)
    user_id = int(request.match_info["id"])
    if await reads.body(request.app[READER], "user", user_id, who.customer_id) is None:
        raise NotFound(f"users {user_id} not found")
    return collection([])


async def unknown_call(request: web.Request) -> web.Response:
    authorize(request, "calls", write=request.method != "GET")
    raise NotFound(f"Call {request.match_info['id']} not found")


def refuse(body_type: type, message: str, module: str = "calls"):
    async def handle(request: web.Request) -> web.Response:
        authorize(request, module, write=True)
        await read_json(request, body_type)
        raise PreconditionFailed(message)

    return handle


def _placing(body: type) -> Shape:
    return Shape(status=201, body=body, errors=(400, 412), tag="calls")


CALL = r"/calls/{id:\d+}"
NO_CALLS = Shape(envelope="list", tag="calls")
ROUTES = [
    Route("GET", "/calls", no_live_calls, shape=NO_CALLS),
    Route("POST", "/calls", refuse(PlaceCall, NO_CLIENTS), shape=_placing(PlaceCall)),
    Route("GET", CALL, unknown_call, shape=Shape(errors=(404,), tag="calls")),
    Route("PATCH", CALL, unknown_call, shape=Shape(errors=(404,), tag="calls")),
    Route("DELETE", CALL, unknown_call, shape=Shape(envelope="none", status=204, errors=(404,), tag="calls")),
    Route("GET", CALL + "/trace", unknown_call,
          shape=Shape(envelope="file", errors=(404,), media="text/plain", tag="calls")),
    Route("GET", CALL + "/monitors", unknown_call, shape=Shape(Monitor, "list", errors=(404,), tag="calls")),
    Route("POST", "/webcalls", refuse(PlaceWebcall, NO_CLIENTS), shape=_placing(PlaceWebcall)),
    Route("POST", "/leadcalls", refuse(PlaceLeadcall, NO_CLIENTS), shape=_placing(PlaceLeadcall)),
    Route("GET", r"/users/{id:\d+}/calls", no_live_calls_of_user, shape=NO_CALLS),
    Route("POST", "/sms", refuse(SendSms, "No SMS-enabled number is available to send from", "storage"),
          shape=Shape(Sms, status=201, body=SendSms, errors=(400, 412), tag="storage")),
]  # fmt: skip
