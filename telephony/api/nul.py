"""A NUL character in a request: a 400 naming where it stands, before anything is decided.

No text PostgreSQL keeps (`text`, `jsonb`) can hold a NUL, so no text of a request that may reach a
statement may hold one there. On both stores a path parameter or a query parameter (but `filter`, whose
values answer as on SQLite: `PgReader` binds them as `bytea`) holding one is refused: none is ever
meaningful, and both stores answer the same. A body is the store's: SQLite keeps the character,
so on PostgreSQL alone a JSON body (or JSON lines, the import's) whose text holds one is refused. The
dashboard's forms are checked where they are read (`posted`), on both stores: reading a multipart
body here would take it from the handler.

A request pays for the check only where a NUL can be: a parameter holds one only when the request's
target spells it (`%00`, or a raw NUL should a parser let one through), and on PostgreSQL a body may."""

from __future__ import annotations

from typing import Any

import msgspec
from aiohttp import web
from multidict import MultiDictProxy

from .errors import BadRequest
from .middlewares import Conditional, Handler

ESCAPED = b"\\u0000"
MESSAGE = "Text cannot hold a NUL character (\\u0000)"
ANSWERED_AS_ON_SQLITE = frozenset({"filter"})
"""Query parameters whose values holding a NUL answer as on SQLite."""
FORMS = "/_telephony/dashboard"
"""Where bodies are forms, read by their handlers (`posted`)."""
SPELLED = ("%00", "\x00")
"""How a NUL stands in a request's target, as sent."""


def holding_nul(value: Any, path: str = "") -> str | None:
    """The path of the first text in `value` (a key or a value) holding a NUL, or None."""
    if isinstance(value, str):
        return path if "\x00" in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            named = f"{path}.{key}" if path else str(key)
            if "\x00" in key:
                return named
            if (found := holding_nul(item, named)) is not None:
                return found
    if isinstance(value, list):
        for n, item in enumerate(value):
            if (found := holding_nul(item, f"{path}[{n}]")) is not None:
                return found
    return None


async def posted(request: web.Request) -> MultiDictProxy[Any]:
    """A posted form (a dashboard's), a 400 naming its first field whose name or text holds a NUL."""
    form = await request.post()
    for name, value in form.items():
        if "\x00" in name or (isinstance(value, str) and "\x00" in value):
            raise BadRequest.field(name, MESSAGE)
    return form


def _in_request(request: web.Request) -> str | None:
    """The first path parameter or query parameter holding a NUL. (A header cannot hold one: aiohttp's
    HTTP parser answers a 400 before the app, and tokens are looked up by their digest.)"""
    for name, value in request.match_info.items():
        if "\x00" in value:
            return name
    for name, value in request.query.items():
        if name not in ANSWERED_AS_ON_SQLITE and ("\x00" in name or "\x00" in value):
            return name
    return None


def _in_body(body: bytes) -> str | None:
    """Where the text of a JSON body, or of one of its JSON lines, holds a NUL ("" for the whole body)."""
    if ESCAPED not in body:
        return None
    try:
        return holding_nul(msgspec.json.decode(body))
    except msgspec.DecodeError:
        pass
    for n, line in enumerate(body.splitlines(), 1):
        if ESCAPED in line:
            try:
                found = holding_nul(msgspec.json.decode(line))
            except msgspec.DecodeError:
                return None  # the handler answers the malformed line
            if found is not None:
                return f"line {n}" + (f".{found}" if found else "")
    return None


def _spells_nul(request: web.Request) -> bool:
    """Whether the request's target (its path and query, as sent) may hold a NUL."""
    target = request.raw_path
    return SPELLED[0] in target or SPELLED[1] in target


def _has_body(request: web.Request) -> bool:
    return request.can_read_body and not request.path.startswith(FORMS)


def refusing_nul(*, bodies: bool) -> Conditional:
    """The middleware, for the requests whose target may hold a NUL; `bodies`: and those with a body
    (on PostgreSQL), whose text it reads."""

    @web.middleware
    async def refuse_nul(request: web.Request, handler: Handler) -> web.StreamResponse:
        field = _in_request(request) if _spells_nul(request) else None
        if field is None and bodies and _has_body(request):
            field = _in_body(await request.read())  # kept by aiohttp for the handler
        if field is not None:
            raise BadRequest.field(field or None, MESSAGE)
        return await handler(request)

    if bodies:
        return Conditional(lambda request: _spells_nul(request) or _has_body(request), refuse_nul)
    return Conditional(_spells_nul, refuse_nul)
