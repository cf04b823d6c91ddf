"""Operator provisioning of numbers: `POST /_telephony/customers/{id}/ddis` (the platform's job)."""

from __future__ import annotations

from typing import Annotated

import msgspec
from aiohttp import web

from ..accounts import customer_exists
from ..api.context import meta_of
from ..api.control import control_route, control_shape
from ..api.errors import NotFound
from ..api.responses import json_response
from ..api.wire import read_json
from ..clock import wire_time
from ..documents import reads
from ..domain import phone
from ..domain.dictionaries import FINAL_DST_TYPE, TARGET_TYPE
from ..domain.errors import Invalid, Problems, Unknown
from ..domain.nouns import not_found
from ..domain.schemas import Ddi
from ..domain.types import E164, Email
from ..keys import CLOCK, EVENT_LOG, READER
from . import decisions, numbers
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
    target_type: str | int | None = None
    """Where calls to the number go: U user, V voicemail, H hang up (or the `target_type` code or name);
    ring groups, queues, IVRs and conferences take numbers through their own `ddis` (or named here)."""
    target_id: int | None = None
    fax_email: Email | None = None
    sms_email: Email | None = None


class DdiChange(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """What the operator changes on a number: where its calls go (both halves of the target, a missing
    one null), whether it takes SMS and faxes, and where they are mailed; absent fields stay."""

    target_type: str | int | None | msgspec.UnsetType = msgspec.UNSET
    target_id: int | None | msgspec.UnsetType = msgspec.UNSET
    sms_enabled: bool | msgspec.UnsetType = msgspec.UNSET
    fax_enabled: bool | msgspec.UnsetType = msgspec.UNSET
    fax_email: Email | None | msgspec.UnsetType = msgspec.UNSET
    sms_email: Email | None | msgspec.UnsetType = msgspec.UNSET


def _target_code(value: str | int | msgspec.UnsetType | None) -> int | None:
    """A target type given as a `final_dst_type` letter, a `target_type` name or its code (ValueError
    for another)."""
    if value is None or value is msgspec.UNSET:
        return None
    name = FINAL_DST_TYPE.to_name(value) if isinstance(value, str) and len(value) == 1 else value
    return int(TARGET_TYPE.to_code(name))


def _targeted(body: NewDdi | DdiChange) -> Problems:
    """The body's `target_type` names a kind of target (its `check` when it is read)."""
    try:
        _target_code(body.target_type)
    except ValueError as exc:
        return [("target_type", str(exc))]
    return []


async def provision_ddi(request: web.Request) -> web.Response:
    customer_id = int(request.match_info["id"])
    body = await read_json(request, NewDdi, _targeted)
    number = phone.e164(body.e164)
    fields = {**msgspec.structs.asdict(body), "e164": number, "name": body.name or number,
              "target_type": _target_code(body.target_type)}  # fmt: skip
    now = wire_time(request.app[CLOCK].now())
    create = decisions.create(DDIS, customer_id, fields, now, number)

    def decide(conn):
        if not customer_exists(conn, customer_id):
            raise Unknown(f"Customer {customer_id} not found")
        if reads.exists(conn, DDIS.kind, number):
            raise Invalid.field("e164", "This number is already provisioned")
        created = list(create(conn))
        return created + numbers.pointed(conn, customer_id, number, fields["target_type"], body.target_id)

    await request.app[EVENT_LOG].transact(decide, meta_of(request))
    return json_response({"data": create.result}, status=201)


async def target_ddi(request: web.Request) -> web.Response:
    """Change a number (the operator's part): where its calls go (users, voicemail, hang-up; a ring
    group, IVR, queue or conference it names lists it, and any other that did drops it), its SMS and
    fax settings."""
    number = phone.e164(request.match_info["e164"])
    body = await read_json(request, DdiChange, _targeted)
    owner = await reads.owned_by(request.app[READER], DDIS.kind, number)
    if owner is None:
        raise NotFound(not_found("ddi", number))
    fields = {k: v for k, v in msgspec.structs.asdict(body).items() if v is not msgspec.UNSET}
    targeted = "target_type" in fields or "target_id" in fields
    if targeted:
        fields.update(target_type=_target_code(fields.get("target_type")), target_id=fields.get("target_id"))
    change = decisions.update(DDIS, owner[0], {number: fields})

    def decide(conn):
        moved = numbers.pointed(conn, owner[0], number, fields["target_type"], fields["target_id"]) if targeted else []
        return [*change(conn), *moved]

    await request.app[EVENT_LOG].transact(decide, meta_of(request))
    return json_response({"data": change.result[0]})


ROUTES = [
    control_route("POST", r"/customers/{id:\d+}/ddis", provision_ddi,
                  control_shape(Ddi, status=201, body=NewDdi, errors=(400, 409))),
    control_route("PATCH", r"/ddis/{e164:\+?\d{7,15}}", target_ddi,
                  control_shape(Ddi, body=DdiChange, errors=(400, 404))),
]  # fmt: skip
