"""JSON in: request bodies decoded and validated as typed Structs, failures as the spec's 400.

Responses are built in `responses`."""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
from aiohttp import web

from ..domain.validation import problem
from .errors import BadRequest, FieldError

T = TypeVar("T")


def validation_error(exc: msgspec.ValidationError, type_: Any = None) -> BadRequest:
    """A msgspec error as the spec's error body: one item naming the field, in plain words (`type_`,
    what was decoded, tells what its patterns expect)."""
    field, message = problem(exc, type_)
    return BadRequest(f"{field}: {message}" if field else message, [FieldError(field, message)])


def decode(body: bytes, type_: type[T]) -> T:
    """Decode and validate a JSON body as `type_`, or raise a 400 naming the field."""
    if not body.strip():
        body = b"{}"
    try:
        return msgspec.json.decode(body, type=type_)
    except msgspec.ValidationError as exc:
        raise validation_error(exc, type_) from None
    except msgspec.DecodeError as exc:
        raise BadRequest("Malformed JSON body", [FieldError(None, f"Malformed JSON body: {exc}")]) from None
    except RecursionError:
        raise BadRequest("Malformed JSON body", [FieldError(None, "The JSON body is nested too deeply")]) from None


async def read_json(request: web.Request, type_: type[T]) -> T:
    return decode(await request.read(), type_)
