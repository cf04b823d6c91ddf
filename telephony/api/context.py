"""Who is calling: the authenticated principal, what its roles allow, and the event metadata of a request."""

from __future__ import annotations

from functools import cache

import msgspec
from aiohttp import web

from ..domain import acl
from ..eventlog import Metadata
from ..keys import API_VERSION, PRINCIPAL, REQUEST_ID
from .errors import Forbidden


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


def authorize(request: web.Request, module: str, *, write: bool) -> Principal:
    """The caller, if its roles allow reading (or writing) `module`; 403 otherwise."""
    who = request[PRINCIPAL]
    if not _allowed(who.is_root, who.roles, module, write):
        raise Forbidden(f"Access denied: your roles do not allow {'changing' if write else 'reading'} {module}")
    return who


@cache
def _allowed(is_root: bool, roles: tuple[str, ...], module: str, write: bool) -> bool:
    """`acl.allowed`, asked once per combination (a handful exist)."""
    return acl.allowed(is_root, list(roles), module, write)


def require_root(request: web.Request) -> Principal:
    who = request[PRINCIPAL]
    if not who.is_root:
        raise Forbidden("Access denied: only the root administrator may do this")
    return who


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
