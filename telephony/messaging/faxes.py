"""Simulated inbound faxes: `POST /_telephony/simulate/inbound-fax {from, to, pages}` (control key).

A fax arrives on one of a customer's fax-enabled numbers (`to`; a number nobody has is a 404, one
without fax a 400 naming `to`): a Fax record (`type` 1 inbound, `status` 4 received), its PDF at
`GET /faxes/{id}.pdf` (`pages` pages), a conversation in the unified history, and, when the number
has a `fax_email`, a mail with the PDF attached (through the mailer: SMTP when set, the outbox else).
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from aiohttp import web

from ..api.context import meta_of
from ..api.control import control_route, control_shape
from ..api.responses import json_response
from ..api.wire import read_json
from ..clock import wire_time
from ..domain import phone
from ..domain.events import RESOURCES
from ..domain.schemas import Fax
from ..domain.types import E164
from ..eventlog import Decision, NewEvent
from ..eventlog.connection import Connection
from ..keys import ACCOUNTS, CLOCK, EVENT_LOG, READER
from ..mail import fax_document
from ..projections.sequences import next_id
from .receiving import receiving_number

RECEIVED, INBOUND = 4, 1
"""The `fax_status` and `fax_type` codes of a fax received."""


class InboundFax(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    from_: E164 = msgspec.field(name="from")
    to: E164
    pages: Annotated[int, msgspec.Meta(ge=1, le=500)] = 1


async def inbound_fax(request: web.Request) -> web.Response:
    body = await read_json(request, InboundFax)
    customer_id, ddi = await receiving_number(request.app[READER], body.to, "fax_enabled", "faxes")
    dialled = ddi["id"]
    mailer, received = request.app[ACCOUNTS].mailer, wire_time(request.app[CLOCK].now())

    def decide(conn: Connection) -> tuple[list[NewEvent], dict]:
        fax_id = next_id(conn, "fax")
        record = {"id": fax_id, "charge": 0.0, "created_at": received, "filename": f"fax-{fax_id}.pdf",
                  "from": phone.e164(body.from_), "pages": body.pages, "status": RECEIVED, "to": dialled,
                  "type": INBOUND}  # fmt: skip
        made = RESOURCES["fax"].made(fax_id, customer_id, record)
        events = [NewEvent(stream=f"fax-{fax_id}", event=made)]
        if ddi.get("fax_email"):
            text = f"A fax of {body.pages} page(s) from {record['from']} to {dialled} arrived at {received} UTC."
            events.append(mailer.message(ddi["fax_email"], f"Fax from {record['from']}", text,
                                         [fax_document(record)]))  # fmt: skip
        return events, record

    faxed = Decision(decide)
    await request.app[EVENT_LOG].transact(faxed, meta_of(request, source="simulator"))
    return json_response({"data": faxed.result}, status=201)


ROUTES = [
    control_route("POST", "/simulate/inbound-fax", inbound_fax,
                  control_shape(Fax, status=201, body=InboundFax, errors=(400, 404))),
]  # fmt: skip
