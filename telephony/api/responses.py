"""Every success response: the spec's envelopes (`{data, links}` for one resource, `{data, total}` for
lists, `{message}`) and any other JSON payload, each encoded whole so it carries a Content-Length.

The request side (decoding and validating bodies) is `wire`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec
from aiohttp import web

from ..keys import API_VERSION, SETTINGS
from .middlewares import stamp_request_id

_encode = msgspec.json.encode


def json_response(payload: Any, status: int = 200) -> web.Response:
    """The whole body at once, so the response carries a Content-Length."""
    return web.Response(body=_encode(payload), status=status, content_type="application/json")


def base_url(request: web.Request) -> str:
    return f"/{request[API_VERSION]}/{request.app[SETTINGS].api.service}"


def single(request: web.Request, data: Any, self_path: str, status: int = 200) -> web.Response:
    body = {"data": data, "links": {"self": base_url(request) + self_path}}
    return web.Response(body=_encode(body), status=status, content_type="application/json")


def collection(data: list[Any], total: int | None = None) -> web.Response:
    body = {"data": data, "total": len(data) if total is None else total}
    return web.Response(body=_encode(body), content_type="application/json")


def raw_collection(payload: bytes) -> web.Response:
    return web.Response(body=payload, content_type="application/json")


def message(text: str, status: int = 200, **extra: Any) -> web.Response:
    return web.Response(body=_encode({"message": text, **extra}), status=status, content_type="application/json")


async def streamed(request: web.Request, content_type: str, chunks: Iterable[bytes],
                   size: int | None = None) -> web.StreamResponse:  # fmt: skip
    """A body sent chunk by chunk (with its `Content-Length` when `size` is known); a HEAD gets the
    same status and headers, and no chunk is made for it."""
    response = web.StreamResponse(headers={"Content-Type": content_type})
    stamp_request_id(request, response)
    if size is not None:
        response.content_length = size
    await response.prepare(request)
    if request.method != "HEAD":
        for chunk in chunks:
            await response.write(chunk)
    await response.write_eof()
    return response
