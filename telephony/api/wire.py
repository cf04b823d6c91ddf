"""JSON in: request bodies read and checked as typed Structs, every problem in one 400.

A body is read by `domain.bodies.read`: each bad field, each field the body does not take, each
coded value outside its dictionary and each integer beyond 64 bits is one `{field, message}` item,
and so is each problem the caller's `check` finds in what could be read. Responses are built in
`responses`."""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
from aiohttp import web

from ..domain.bodies import INT64, Check, read
from ..domain.validation import problem
from .errors import BadRequest, FieldError

T = TypeVar("T")
__all__ = ["INT64", "decode", "read_json", "validation_error"]


def validation_error(exc: msgspec.ValidationError, type_: Any = None) -> BadRequest:
    """A msgspec error as the spec's error body: one item naming the field, in plain words (`type_`,
    what was decoded, tells what its patterns expect)."""
    return BadRequest.of([problem(exc, type_)])


def decode(body: bytes, type_: type[T], check: Check | None = None) -> T:
    """A JSON body read as `type_` and checked by `check`; a 400 naming every problem otherwise."""
    try:
        raw = msgspec.json.decode(body) if body.strip() else {}
    except msgspec.DecodeError as exc:
        raise BadRequest("Malformed JSON body", [FieldError(None, f"Malformed JSON body: {exc}")]) from None
    except RecursionError:
        raise BadRequest("Malformed JSON body", [FieldError(None, "The JSON body is nested too deeply")]) from None
    value, problems = read(raw, type_, check)
    if problems:
        raise BadRequest.of(problems)
    return value


async def read_json(request: web.Request, type_: type[T], check: Check | None = None) -> T:
    return decode(await request.read(), type_, check)
