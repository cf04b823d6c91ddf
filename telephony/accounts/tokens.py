"""API tokens (v1.2): POST, GET and DELETE /apitokens, as the real platform serves them."""

from __future__ import annotations

import msgspec
from aiohttp import web

from ..api.access import USER
from ..api.context import meta_of, principal
from ..api.errors import NotFound
from ..api.responses import raw_collection, single
from ..api.route_table import Route
from ..api.shapes import Shape
from ..api.wire import read_json
from ..clock import wire_time
from ..collections import Kind, envelope, parse
from ..keys import ACCOUNTS, SETTINGS
from ..security import digest
from . import projections as read
from .models import ApiToken, NewApiToken

API_TOKEN_FIELDS = {f.encode_name: Kind.TEXT for f in msgspec.structs.fields(ApiToken)} | {
    "user_id": Kind.INT, "customer_id": Kind.INT, "expiry": Kind.INT,
    "created_at": Kind.TIME, "last_request_at": Kind.TIME,
}  # fmt: skip
V12 = ("v1.1", "v1.2")  # served on both versions, as every spec endpoint is


async def create(request: web.Request) -> web.Response:
    accounts, who = request.app[ACCOUNTS], principal(request)
    body = await read_json(request, NewApiToken)
    issued = await accounts.issue(
        who.user_id, who.customer_id, "apitoken", meta_of(request), name=body.name, expiry=body.expiry,
        host=request.remote, user_agent=request.headers.get("User-Agent", ""),
    )  # fmt: skip
    token = ApiToken(user_id=who.user_id, token=issued.token, customer_id=who.customer_id, name=body.name,
                     host=request.remote or "", user_agent=request.headers.get("User-Agent", ""),
                     expiry=body.expiry, last_request_at=None, created_at=issued.created_at)  # fmt: skip
    return single(request, token, f"/apitokens/{issued.token}", status=201)


async def list_tokens(request: web.Request) -> web.Response:
    """The caller's live API tokens, a normal collection; each item carries its token."""
    accounts, who = request.app[ACCOUNTS], principal(request)
    api = request.app[SETTINGS].api
    q = parse(request.query, API_TOKEN_FIELDS, default_limit=api.default_page_size, max_limit=api.max_page_size)
    found = await read.api_tokens_page(accounts.reader, who.user_id, q)
    items = []
    for item in found.documents():
        item["token"] = accounts.unseal(item.pop("sealed"))
        session = accounts.index.by_id.get(item.pop("_token_id"))
        if session is not None and (last := accounts.activity.last_request(session)) is not None:
            item["last_request_at"] = wire_time(last)
        items.append(item)
    return raw_collection(envelope(msgspec.json.encode(items)[1:-1], found.total))


async def delete(request: web.Request) -> web.Response:
    """Revokes one of the caller's API tokens (the ones GET lists); login tokens end with /logout."""
    accounts, who = request.app[ACCOUNTS], principal(request)
    session = accounts.index.by_digest.get(digest(request.match_info["token"]))
    if session is None or session.user_id != who.user_id or session.kind != "apitoken":
        raise NotFound("API token not found")
    await accounts.revoke([session.token_id], "deleted", meta_of(request))
    return web.Response(status=204)


ROUTES = [
    Route("POST", "/apitokens", create, USER, versions=V12,
          shape=Shape(ApiToken, status=201, body=NewApiToken, errors=(400,), tag="authentication")),
    Route("GET", "/apitokens", list_tokens, USER, versions=V12, origin="real-platform",
          shape=Shape(ApiToken, "list", listing=API_TOKEN_FIELDS, errors=(400,), tag="authentication")),
    Route("DELETE", "/apitokens/{token}", delete, USER, versions=V12, origin="real-platform",
          shape=Shape(envelope="none", status=204, errors=(404,), tag="authentication")),
]  # fmt: skip
