"""JSON in: request bodies decoded and validated as typed Structs, failures as the spec's 400.

Responses are built in `responses`."""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
from aiohttp import web

from ..domain.phone import numbers_normalised
from ..domain.validation import problem
from .errors import BadRequest, FieldError

T = TypeVar("T")


def validation_error(exc: msgspec.ValidationError, type_: Any = None) -> BadRequest:
    """A msgspec error as the spec's error body: one item naming the field, in plain words (`type_`,
    what was decoded, tells what its patterns expect)."""
    field, message = problem(exc, type_)
    return BadRequest(f"{field}: {message}" if field else message, [FieldError(field, message)])


def decode(body: bytes, type_: type[T]) -> T:
    """Decode and validate a JSON body as `type_`, its integers within 64 bits (what SQLite stores and
    an export carries back) and its phone numbers normalised (`domain.phone`), or raise a 400 naming
    the field."""
    if not body.strip():
        body = b"{}"
    try:
        value = msgspec.json.decode(body, type=type_)
        check_integers(msgspec.to_builtins(value))
        return numbers_normalised(value, type_)
    except msgspec.ValidationError as exc:
        raise validation_error(exc, type_) from None
    except msgspec.DecodeError as exc:
        raise BadRequest("Malformed JSON body", [FieldError(None, f"Malformed JSON body: {exc}")]) from None
    except RecursionError:
        raise BadRequest("Malformed JSON body", [FieldError(None, "The JSON body is nested too deeply")]) from None


INT64 = (-(2**63), 2**63 - 1)
_WALKED = frozenset({int, dict, list})


def check_integers(value: Any, path: str = "") -> None:
    """Every integer in `value` fits in a signed 64-bit integer."""
    kind = type(value)
    if kind is int:
        if not INT64[0] <= value <= INT64[1]:
            raise BadRequest.field(path or None, f"{value} does not fit in a 64-bit integer.")
    elif kind is dict:
        for key, item in value.items():
            if type(item) in _WALKED:
                check_integers(item, f"{path}.{key}" if path else str(key))
    elif kind is list:
        for index, item in enumerate(value):
            if type(item) in _WALKED:
                check_integers(item, f"{path}[{index}]")


async def read_json(request: web.Request, type_: type[T]) -> T:
    return decode(await request.read(), type_)
