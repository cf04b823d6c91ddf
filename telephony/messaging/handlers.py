"""Messaging over HTTP: `POST /sms`, and the operator's simulated inbound SMS and chats.

The SMS lists, `/sms/{id}`, `DELETE /sms`, the dictionaries and the threads are the registry's.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from aiohttp import web

from ..api.access import may_change
from ..api.context import meta_of, principal
from ..api.control import control_route, control_shape
from ..api.errors import NotFound
from ..api.responses import json_response, single
from ..api.route_table import Route
from ..api.shapes import Shape
from ..api.wire import read_json
from ..documents import reads
from ..domain import phone
from ..domain.nouns import not_found
from ..domain.schemas import CONTACT_NUMBERS, Chat, Sms
from ..domain.schemas.storage import SmsText
from ..domain.sms import delivery
from ..domain.types import E164
from ..keys import ACCOUNTS, BILLING, CLOCK, EVENT_LOG, READER, SETTINGS
from . import chats, sms
from .receiving import receiving_number


class SendSms(msgspec.Struct, kw_only=True):
    to: E164
    message: SmsText
    from_: E164 | None = msgspec.field(default=None, name="from")


async def _contact(request: web.Request, customer_id: int, number: str) -> tuple[str | None, str | None]:
    """The customer's contact that has `number`, as `contact:<id>` and its name."""
    found = await reads.first_with_number(request.app[READER], "contact", customer_id, CONTACT_NUMBERS, number)
    if found is None:
        return None, None
    contact = msgspec.json.decode(found)
    name = " ".join(p for p in (contact.get("first_name"), contact.get("last_name")) if p) or contact.get("company")
    return f"contact:{contact['id']}", name


async def send_sms(request: web.Request) -> web.Response:
    who = principal(request)
    body = await read_json(request, SendSms)
    reader, settings = request.app[READER], request.app[SETTINGS].simulator
    found = await reads.body(reader, "user", who.user_id, who.customer_id)
    if found is None:
        raise NotFound(not_found("user", who.user_id))
    to = phone.e164(body.to)
    to_id, to_name = await _contact(request, who.customer_id, to)
    outgoing = sms.Outgoing(customer_id=who.customer_id, user=msgspec.json.decode(found), to=to, text=body.message,
                            requested=body.from_, to_id=to_id, to_name=to_name)  # fmt: skip

    def plan(sms_id: int):
        return delivery(settings.seed, sms_id, settings.sms_failure_rate, settings.sms_sent_seconds,
                        settings.sms_delivered_seconds)  # fmt: skip

    sent = sms.send(outgoing, request.app[BILLING], plan, request.app[CLOCK].time)
    await request.app[EVENT_LOG].transact(sent, meta_of(request))
    return single(request, sent.result, f"/sms/{sent.result['id']}", status=201)


class InboundSms(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    from_: E164 = msgspec.field(name="from")
    to: E164
    text: SmsText


async def inbound_sms(request: web.Request) -> web.Response:
    """An SMS arrives on one of a customer's numbers (which must take SMS: 400 naming `to` else)."""
    body = await read_json(request, InboundSms)
    customer_id, ddi = await receiving_number(request.app[READER], body.to, "sms_enabled", "SMS")
    sender = phone.e164(body.from_)
    caller = await _contact(request, customer_id, sender)
    mailer = request.app[ACCOUNTS].mailer
    received = sms.receive(customer_id, ddi, sender, body.text, caller, mailer.message, request.app[CLOCK].time)
    await request.app[EVENT_LOG].transact(received, meta_of(request, source="simulator"))
    return json_response({"data": received.result}, status=201)


Short = Annotated[str, msgspec.Meta(max_length=255)]


class Visitor(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    name: Short | None = None
    email: Short | None = None
    city: Short | None = None
    country: Short | None = None
    geo: Short | None = None
    ip: Short | None = None
    referer: Short | None = None
    ua: Short | None = None
    id: Short | None = None


class ChatLine(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    text: Annotated[str, msgspec.Meta(min_length=1, max_length=4096)]
    from_: Literal["visitor", "operator"] = msgspec.field(default="visitor", name="from")
    after: Annotated[float, msgspec.Meta(ge=0, le=86_400)] = 0.0


class SimulatedChat(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    customer_id: Annotated[int, msgspec.Meta(ge=1)]
    visitor: Visitor = msgspec.field(default_factory=Visitor)
    messages: Annotated[list[ChatLine], msgspec.Meta(max_length=500)] = msgspec.field(default_factory=list)
    operator_id: Annotated[int, msgspec.Meta(ge=1)] | None = None
    website_id: Annotated[int, msgspec.Meta(ge=1)] | None = None
    duration: Annotated[float, msgspec.Meta(ge=0, le=86_400)] | None = None


async def simulate_chat(request: web.Request) -> web.Response:
    body = await read_json(request, SimulatedChat)
    lines = [(line.from_, line.text, line.after) for line in body.messages]
    started = chats.started(body.customer_id, msgspec.to_builtins(body.visitor), lines, body.operator_id,
                            body.website_id, body.duration, request.app[CLOCK].time)  # fmt: skip
    await request.app[EVENT_LOG].transact(started, meta_of(request, source="simulator"))
    return json_response({"data": started.result}, status=201)


ROUTES = [
    Route("POST", "/sms", send_sms, may_change("storage"),
          shape=Shape(Sms, status=201, body=SendSms, errors=(400, 402, 412), tag="storage")),
]  # fmt: skip
CONTROL_ROUTES = [
    control_route("POST", "/simulate/inbound-sms", inbound_sms,
                  control_shape(Sms, status=201, body=InboundSms, errors=(400, 404))),
    control_route("POST", "/simulate/chat", simulate_chat,
                  control_shape(Chat, status=201, body=SimulatedChat, errors=(400, 404))),
]  # fmt: skip
