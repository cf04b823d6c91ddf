"""Operator endpoints for tenants: customers, users, their API keys and SIP clients, and the mail outbox."""

from __future__ import annotations

from typing import Literal

import msgspec
from aiohttp import web

from ..api.context import meta_of
from ..api.control import control_route, control_shape
from ..api.errors import NotFound
from ..api.responses import collection, json_response
from ..api.wire import read_json
from ..domain.bodies import echoes
from ..domain.nouns import not_found
from ..domain.sip_clients import Registration
from ..keys import ACCOUNTS, MEMORY
from ..mail import rendered
from . import attributes, decisions
from . import projections as read
from .attributes import NewUser, UserChange
from .models import Named, NewCustomer, NewSipRegistration, SipRegistration, User
from .registrations import Registrations


async def create_customer(request: web.Request) -> web.Response:
    body = await read_json(request, NewCustomer)
    customer, user = await request.app[ACCOUNTS].create_customer(
        body.name, body.admin_email, body.admin_password, meta_of(request)
    )
    return json_response({"data": {"customer": customer, "user": user}}, status=201)


async def create_user(request: web.Request) -> web.Response:
    """Adds a user with roles and any User attribute (at the top level, or under `attributes`)."""
    body = await read_json(request, NewUser, attributes.problems)
    given, _ = attributes.attributes(body)
    user = await request.app[ACCOUNTS].create_user(int(request.match_info["id"]), body.email, body.password, given,
                                                   meta_of(request))  # fmt: skip
    return json_response({"data": user}, status=201)


async def change_user(request: web.Request) -> web.Response:
    """Changes any User attribute of a user, with the checks of its creation, as one `user.updated`
    event: what reads the user (routing, recording, authentication) follows at once."""
    body = await read_json(request, UserChange, attributes.problems)
    given, _ = attributes.attributes(body)
    user_id = _live_user(request)
    accounts = request.app[ACCOUNTS]
    customer_id = accounts.index.accounts[user_id].customer_id
    changed = decisions.change_users(customer_id, {user_id: given}, {user_id: echoes(body)})
    await accounts.log.transact(changed, meta_of(request))
    return json_response({"data": changed.result[0]})


async def create_api_key(request: web.Request) -> web.Response:
    accounts = request.app[ACCOUNTS]
    user_id = int(request.match_info["id"])
    body = await read_json(request, Named)
    account = accounts.index.accounts.get(user_id)
    if account is None:
        raise NotFound(not_found("user", user_id))
    meta = meta_of(request)
    issued = await accounts.issue(user_id, account.customer_id, "apikey", meta, name=body.name)
    data = {"id": issued.token_id, "name": body.name, "key": issued.token, "user_id": user_id,
            "created_at": issued.created_at}  # fmt: skip
    return json_response({"data": data}, status=201)


async def list_api_keys(request: web.Request) -> web.Response:
    accounts = request.app[ACCOUNTS]
    user_id = int(request.match_info["id"])
    if user_id not in accounts.index.accounts:
        raise NotFound(not_found("user", user_id))
    rows = await read.api_keys_of(accounts.reader, user_id)
    return collection([{"id": r[0], "name": r[1], "key": accounts.unseal(r[2]), "created_at": r[3]} for r in rows])


def _live_user(request: web.Request) -> int:
    """The user of the path, which must exist (in a customer that exists)."""
    user_id = int(request.match_info["id"])
    if user_id not in request.app[ACCOUNTS].index.accounts:
        raise NotFound(not_found("user", user_id))
    return user_id


def _registration(user_id: int, r: Registration) -> dict:
    return {"id": r.registration_id, "user_id": user_id, "user_agent": r.user_agent, "contact": r.contact,
            "registered_at": r.registered_at}  # fmt: skip


async def register_client(request: web.Request) -> web.Response:
    """Registers a (simulated) SIP client of the user: it can place and take calls."""
    body = await read_json(request, NewSipRegistration)
    user_id = _live_user(request)
    d = await request.app[ACCOUNTS].register_client(user_id, body.user_agent, body.contact, meta_of(request))
    registered = Registration(d["registration_id"], d["user_agent"], d["contact"], d["registered_at"])
    return json_response({"data": _registration(user_id, registered)}, status=201)


async def list_clients(request: web.Request) -> web.Response:
    user_id = _live_user(request)
    return collection([_registration(user_id, r) for r in request.app[MEMORY][Registrations].of(user_id)])


async def unregister_client(request: web.Request) -> web.Response:
    user_id = int(request.match_info["id"])
    await request.app[ACCOUNTS].unregister_client(user_id, int(request.match_info["rid"]), meta_of(request))
    return web.Response(status=204)


async def outbox(request: web.Request) -> web.Response:
    """Mail that went to the outbox (or SMTP), newest last, with its `status` ("sent", or "failed" when
    the SMTP server did not take it), its `Date:` and `Message-ID:`, and its attachments, each with
    the URL serving it; `?to=` narrows to one recipient."""
    accounts = request.app[ACCOUNTS]
    to = request.query.get("to")
    rows = await read.mail_of(accounts.reader, to)
    return collection([{"id": r[0], "to": r[1], "subject": r[2], "body": accounts.unseal(r[3]), "transport": r[4],
                        "created_at": r[5], "status": r[6], "date": r[8], "message_id": r[9],
                        "attachments": [_attachment(r[0], n, a) for n, a in enumerate(msgspec.json.decode(r[7]))]}
                       for r in rows])  # fmt: skip


def _attachment(mail_id: int, n: int, attached: dict) -> dict:
    return {"filename": attached["filename"], "media_type": attached["media_type"], "size": attached["size"],
            "url": f"/_telephony/outbox/{mail_id}/attachments/{n}"}  # fmt: skip


async def outbox_attachment(request: web.Request) -> web.Response:
    """The bytes of a mail's attachment `n` (from 0, in the order its outbox entry lists them), as its
    media type: what the SMTP server was or would be given."""
    mail_id, n = int(request.match_info["id"]), int(request.match_info["n"])
    attachments = await read.attachments_of_mail(request.app[ACCOUNTS].reader, mail_id)
    if attachments is None:
        raise NotFound(f"Mail {mail_id} not found")
    if n >= len(attachments):
        raise NotFound(f"Mail {mail_id} has no attachment {n}")
    attached = attachments[n]
    data = await rendered(attached, request.app[ACCOUNTS].reader)
    if data is None:
        raise NotFound(f"The file of attachment {n} of mail {mail_id} is gone")
    return web.Response(body=data, content_type=attached.media_type)


class Customer(msgspec.Struct, kw_only=True):
    id: int
    name: str
    created_at: str


class OpenedCustomer(msgspec.Struct, kw_only=True):
    """A new customer and its root user."""

    customer: Customer
    user: User


class ListedApiKey(msgspec.Struct, kw_only=True):
    id: str
    name: str
    key: str
    created_at: str


class ApiKey(ListedApiKey, kw_only=True):
    user_id: int


class MailAttachment(msgspec.Struct, kw_only=True):
    filename: str
    media_type: str
    size: int
    url: str


class Mail(msgspec.Struct, kw_only=True):
    id: int
    to: str
    subject: str
    body: str
    transport: str
    created_at: str
    status: Literal["queued", "sent", "failed"]
    date: str | None
    """Its `Date:` header (RFC 5322): the real time it was written at, not the clock's."""
    message_id: str
    attachments: list[MailAttachment]


TO = {"to": "only the mail to this address"}
ROUTES = [
    control_route("POST", "/customers", create_customer,
                  control_shape(OpenedCustomer, status=201, body=NewCustomer, errors=(400,))),
    control_route("POST", r"/customers/{id:\d+}/users", create_user,
                  control_shape(User, status=201, body=NewUser, errors=(400,))),
    control_route("PATCH", r"/users/{id:\d+}", change_user, control_shape(User, body=UserChange, errors=(400, 404))),
    control_route("POST", r"/users/{id:\d+}/apikeys", create_api_key,
                  control_shape(ApiKey, status=201, body=Named, errors=(400,))),
    control_route("GET", r"/users/{id:\d+}/apikeys", list_api_keys, control_shape(ListedApiKey, "list")),
    control_route("POST", r"/users/{id:\d+}/registrations", register_client,
                  control_shape(SipRegistration, status=201, body=NewSipRegistration, errors=(400, 404))),
    control_route("GET", r"/users/{id:\d+}/registrations", list_clients,
                  control_shape(SipRegistration, "list", errors=(404,))),
    control_route("DELETE", r"/users/{id:\d+}/registrations/{rid:\d+}", unregister_client,
                  control_shape(envelope="none", status=204, errors=(404,))),
    control_route("GET", "/outbox", outbox, control_shape(Mail, "list", query=TO)),
    control_route("GET", r"/outbox/{id:\d+}/attachments/{n:\d+}", outbox_attachment,
                  control_shape(envelope="file", media="*/*", errors=(404,))),
]  # fmt: skip
