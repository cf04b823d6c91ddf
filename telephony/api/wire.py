"""JSON in: request bodies decoded and validated as typed Structs, failures as the spec's 400.

Responses are built in `responses`."""

from __future__ import annotations

import re
from typing import TypeVar

import msgspec
from aiohttp import web

from .errors import BadRequest, FieldError

T = TypeVar("T")
_PATH = re.compile(r" - at `\$(?:\.|\[\d+\]\.?)?(?P<path>[^`]*)`$")


def validation_error(exc: msgspec.ValidationError | msgspec.DecodeError) -> BadRequest:
    """A msgspec error as the spec's error body: one item naming the field."""
    text = str(exc)
    match = _PATH.search(text)
    message = text[: match.start()] if match else text
    field = match.group("path") if match and match.group("path") else None
    if field is None and "missing required field" in message:
        field = message.split("`")[1]
    if "unknown field" in message and "`" in message:
        field = message.split("`")[1]
    return BadRequest(f"{field}: {message}" if field else message, [FieldError(field, message)])


def decode(body: bytes, type_: type[T]) -> T:
    """Decode and validate a JSON body as `type_`, or raise a 400 naming the field."""
    if not body.strip():
        body = b"{}"
    try:
        return msgspec.json.decode(body, type=type_)
    except msgspec.ValidationError as exc:
        raise validation_error(exc) from None
    except msgspec.DecodeError as exc:
        raise BadRequest("Malformed JSON body", [FieldError(None, f"Malformed JSON body: {exc}")]) from None
    except RecursionError:
        raise BadRequest("Malformed JSON body", [FieldError(None, "The JSON body is nested too deeply")]) from None


async def read_json(request: web.Request, type_: type[T]) -> T:
    return decode(await request.read(), type_)
