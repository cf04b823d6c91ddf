"""Who is calling: the authenticated principal, and the event metadata of a request (what its roles
allow, each route declares: `access.py`)."""

from __future__ import annotations

import msgspec
from aiohttp import web

from ..eventlog import Metadata
from ..keys import API_VERSION, PRINCIPAL, REQUEST_ID


class Principal(msgspec.Struct, frozen=True, kw_only=True):
    user_id: int
    customer_id: int
    is_root: bool
    roles: tuple[str, ...]
    token_id: str
    token_kind: str
    token_digest: str


def principal(request: web.Request) -> Principal:
    return request[PRINCIPAL]


def meta_of(request: web.Request, *, source: str | None = None) -> Metadata:
    """Event metadata naming the acting user and token kind (or the operator) of a request."""
    who = request.get(PRINCIPAL)
    return Metadata(
        user_id=who.user_id if who else None,
        token_kind=who.token_kind if who else ("control" if request.get(API_VERSION) == "control" else None),
        token_id=who.token_id if who else None,
        customer_id=who.customer_id if who else None,
        api_version=request.get(API_VERSION),
        request_id=request.get(REQUEST_ID),
        remote_addr=request.remote,
        source=source,
    )
