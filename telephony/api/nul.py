"""On PostgreSQL, a JSON body whose text holds a NUL character is a 400 naming the field.

No text PostgreSQL keeps (`text`, `jsonb`) can hold a NUL, so such a body could not be stored; it is
refused before anything is decided. SQLite keeps the character, so there this middleware is not
mounted (`create_app`). A body is looked at only when it holds JSON's escape for the character."""

from __future__ import annotations

from typing import Any

import msgspec
from aiohttp import web

from .errors import BadRequest
from .middlewares import Handler

ESCAPED = b"\\u0000"
MESSAGE = "Text cannot hold a NUL character (\\u0000)"


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


@web.middleware
async def refuse_nul(request: web.Request, handler: Handler) -> web.StreamResponse:
    if request.can_read_body and request.content_type == "application/json":
        body = await request.read()  # kept by aiohttp for the handler
        if ESCAPED in body:
            try:
                field = holding_nul(msgspec.json.decode(body))
            except msgspec.DecodeError:
                field = None  # the handler answers the malformed body
            if field is not None:
                raise BadRequest.field(field or None, MESSAGE)
    return await handler(request)
