"""Customer-module endpoints of accounts: /me, /aclroles, /users, /users/{id}/audio, /customers/{id}."""

from __future__ import annotations

import msgspec
from aiohttp import web

from ..api.access import ONLY_ROOT, ROOT, USER, may_read
from ..api.context import meta_of, principal
from ..api.errors import Forbidden, NotFound
from ..api.responses import collection, raw_collection, single
from ..api.route_table import Route
from ..api.shapes import Shape
from ..api.wire import read_json
from ..collections import envelope, parse, properties
from ..documents import listing, reads
from ..documents.conditions import equals
from ..domain import acl
from ..domain.billing import shown
from ..domain.bodies import echoes
from ..domain.nouns import not_found
from ..keys import ACCOUNTS, REFERENCES, SETTINGS
from . import decisions
from . import projections as read
from .answers import Audio, Me
from .models import User, UserBulkItem

USER_PROPS = properties(User)
USERS = "user"
_decode = msgspec.json.decode


async def _user_or_404(request: web.Request, user_id: int) -> dict:
    who = principal(request)
    body = await reads.body(request.app[ACCOUNTS].reader, USERS, user_id, who.customer_id)
    if body is None:
        raise NotFound(not_found("user", user_id))
    return _decode(body)


def _user_id(request: web.Request) -> int:
    return int(request.match_info["id"])


async def me(request: web.Request) -> web.Response:
    """The caller: the fields it shares with its User record as `/users` shows them (an unset `cli` or
    `cc` is null in both), its customer's balance and its SIP credentials."""
    accounts, who = request.app[ACCOUNTS], principal(request)
    user = await _user_or_404(request, who.user_id)
    sealed = await read.sealed_sip_password_of(accounts.reader, who.user_id)
    held = await reads.body(accounts.reader, "balance", who.customer_id, who.customer_id)
    account = _decode(held) if held else {"balance": 0, "currency_iso": request.app[SETTINGS].billing.currency}
    data = {
        "id": who.user_id, "email": user["email"], "first_name": user["first_name"],
        "last_name": user["last_name"], "customer_id": who.customer_id, "balance": shown(account["balance"]),
        "cc": user.get("cc"), "cli": user.get("cli"), "currency_iso": account["currency_iso"],
        "is_root": user["is_root"], "language": user.get("language"),
        "sip_domain": request.app[SETTINGS].sip.domain(who.customer_id),
        "sip_password": accounts.unseal(sealed),
    }  # fmt: skip
    return single(request, data, "/me")


async def list_roles(request: web.Request) -> web.Response:
    return collection([grant.role for grant in acl.ROLE_TABLE])


async def get_role(request: web.Request) -> web.Response:
    role_id = int(request.match_info["id"])
    for grant in acl.ROLE_TABLE:
        if grant.role.id == role_id:
            return single(request, grant.role, f"/aclroles/{role_id}")
    raise NotFound(f"ACL role {role_id} not found")


async def list_users(request: web.Request) -> web.Response:
    who = principal(request)
    api = request.app[SETTINGS].api
    q = parse(request.query, USER_PROPS, default_limit=api.default_page_size, max_limit=api.max_page_size)
    found = await listing.page(request.app[ACCOUNTS].reader, USERS, equals(customer_id=who.customer_id), q)
    return raw_collection(envelope(found.joined, found.total))


async def get_user(request: web.Request) -> web.Response:
    user_id = _user_id(request)
    return single(request, await _user_or_404(request, user_id), f"/users/{user_id}")


async def patch_users(request: web.Request) -> web.Response:
    """Bulk PATCH: `[{id, location_id?, groups?}, ...]`, root only, all or nothing. The other User fields
    are read-only here (sent back unchanged they are taken; the operator changes them)."""
    who = principal(request)
    items = await read_json(request, list[UserBulkItem])
    changes, echoed = {}, {}
    for item in items:
        fields = {k: getattr(item, k) for k in ("location_id", "groups") if getattr(item, k) is not msgspec.UNSET}
        if fields.get("location_id") is not None:
            fields["location_id"] = str(fields["location_id"])
        changes[item.id], echoed[item.id] = fields, echoes(item)
    decision = decisions.change_users(who.customer_id, changes, echoed)
    await request.app[ACCOUNTS].log.transact(decision, meta_of(request))
    changed = dict(zip(changes, decision.result, strict=True))
    return collection([changed[item.id] for item in items])


async def delete_user(request: web.Request) -> web.Response:
    """The user goes; queues, ring groups and every other record naming it drop it, in the same
    transaction."""
    who = principal(request)
    removed = decisions.remove_user(who.customer_id, who.user_id, _user_id(request), request.app[REFERENCES])
    await request.app[ACCOUNTS].log.transact(removed, meta_of(request))
    return web.Response(status=204)


AUDIO_FIELDS = ("vm_announcement_id", "fm_announcement_id")


def _may_touch(request: web.Request, user_id: int) -> None:
    """A user may change its own audio, the root administrator anyone's: a rule on the record, checked
    once the user is found (another customer's is a 404), so the route lets any user in."""
    who = principal(request)
    if who.user_id != user_id and not who.is_root:
        raise Forbidden(ONLY_ROOT)


async def get_audio(request: web.Request) -> web.Response:
    user_id = _user_id(request)
    user = await _user_or_404(request, user_id)
    data = {"user_id": user_id, **{f: user.get(f) for f in AUDIO_FIELDS}}
    return single(request, data, f"/users/{user_id}/audio")


async def delete_audio(request: web.Request) -> web.Response:
    user_id = _user_id(request)
    await _user_or_404(request, user_id)
    _may_touch(request, user_id)
    reset = decisions.change_users(principal(request).customer_id, {user_id: dict.fromkeys(AUDIO_FIELDS)})
    await request.app[ACCOUNTS].log.transact(reset, meta_of(request))
    return web.Response(status=204)


async def delete_customer(request: web.Request) -> web.Response:
    """Deletes the caller's own customer: its tokens die at once, its data is no longer served."""
    who = principal(request)
    customer_id = int(request.match_info["id"])
    if customer_id != who.customer_id:
        raise NotFound(f"Customer {customer_id} not found")
    await request.app[ACCOUNTS].log.transact(decisions.close_customer(customer_id), meta_of(request))
    return web.Response(status=204)


NO_CONTENT = Shape(envelope="none", status=204, errors=(404,))
READ_CUSTOMER = may_read("customer")
ROUTES = [
    Route("GET", "/me", me, USER, shape=Shape(Me)),
    Route("GET", "/aclroles", list_roles, USER, shape=Shape(acl.AclRole, "list")),
    Route("GET", r"/aclroles/{id:\d+}", get_role, USER, shape=Shape(acl.AclRole, errors=(404,))),
    Route("GET", "/users", list_users, READ_CUSTOMER, shape=Shape(User, "list", listing=USER_PROPS, errors=(400,))),
    Route("PATCH", "/users", patch_users, ROOT, shape=Shape(User, "list", body=list[UserBulkItem], errors=(400, 404))),
    Route("GET", r"/users/{id:\d+}", get_user, READ_CUSTOMER, shape=Shape(User, errors=(404,))),
    Route("DELETE", r"/users/{id:\d+}", delete_user, ROOT, shape=Shape(envelope="none", status=204, errors=(400, 404))),
    Route("GET", r"/users/{id:\d+}/audio", get_audio, READ_CUSTOMER, shape=Shape(Audio, errors=(404,))),
    Route("DELETE", r"/users/{id:\d+}/audio", delete_audio, USER, shape=NO_CONTENT),  # its own: `_may_touch`
    Route("DELETE", r"/customers/{id:\d+}", delete_customer, ROOT, shape=NO_CONTENT),
]
