"""Shared wire types: the two base structs, constrained strings, and dictionary-backed fields.

`Resource` is what the API answers: every field has a default, so a partially stored document still
decodes, and every field is always written (null where unknown). `Body` is what a client POSTs; a
field it does not have is refused (`bodies.read` names each). PATCH bodies are derived from `Body`
subclasses by the registry.

A field whose value comes from a code dictionary is written `Annotated[Code, coded("language")]`:
the client may send the code or the name, and the registry stores the code (see `dictionaries`).
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any

import msgspec

from .dictionaries import DICTIONARIES, Code
from .phone import E164

__all__ = [
    "Body",
    "Code",
    "E164",
    "E164Number",
    "Email",
    "FileSize",
    "MAX_CALL_SECONDS",
    "Name",
    "NonNegative",
    "PositiveId",
    "Resource",
    "Seconds",
    "ShortText",
    "WireDate",
    "WireTime",
    "coded",
    "dictionary_fields",
]


class Resource(msgspec.Struct, kw_only=True, omit_defaults=False):
    """Base of response models: every field defaulted, every field always present in output."""


class Body(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Base of create (POST) bodies: a field without a default is required.

    msgspec does not pass `kw_only` on to subclasses, so subclasses list their required fields first.
    """


E164Number = Annotated[int, msgspec.Meta(ge=10**6, le=10**15 - 1, description="E.164 number as an integer")]
Email = Annotated[
    str, msgspec.Meta(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$", max_length=254, description="an email address")
]
"""The one judge of an email address: schemas, account bodies and the login family all use it."""
WireTime = Annotated[
    str,
    msgspec.Meta(
        pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$",
        description="a UTC time, YYYY-MM-DD HH:MM:SS",
    ),
]
WireDate = Annotated[str, msgspec.Meta(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", description="a date, YYYY-MM-DD")]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=255)]
NonNegative = Annotated[int, msgspec.Meta(ge=0)]
PositiveId = Annotated[int, msgspec.Meta(ge=1)]

# Bounds of what a stored record may describe. Its files (a recording's MP3, a call's SIP trace and
# capture, a fax's PDF) are rendered from these fields, so each is bounded where it is declared.
MAX_CALL_SECONDS = 86_400
"""The longest call, recording, voicemessage or chat a record may describe: one day."""
Seconds = Annotated[int, msgspec.Meta(ge=0, le=MAX_CALL_SECONDS)]
"""A duration in whole seconds, 0 to `MAX_CALL_SECONDS`."""
FileSize = Annotated[int, msgspec.Meta(ge=0, le=1 << 30)]
"""A file's length in bytes, at most 1 GiB (a day of recording is 345.6 MB)."""
ShortText = Annotated[str, msgspec.Meta(max_length=255)]
"""A number, name or identity shown in a rendered file: at most 255 characters."""

_DICTIONARY_KEY = "dictionary"


def coded(dictionary: str) -> msgspec.Meta:
    """Mark a field as backed by the named dictionary: `Annotated[Code, coded("language")]`.

    This returns the `Meta` rather than the whole `Annotated` type so that mypy can check the
    annotation; the dictionary name is checked here, when the schema class is defined.
    """
    if dictionary not in DICTIONARIES:
        raise ValueError(f"unknown dictionary {dictionary!r}; known: {', '.join(sorted(DICTIONARIES))}")
    return msgspec.Meta(extra={_DICTIONARY_KEY: dictionary}, description=f"a {dictionary} code or name")


@functools.cache
def dictionary_fields(struct_type: type[msgspec.Struct]) -> Mapping[str, str]:
    """Map each dictionary-backed field (by wire name) of `struct_type` to its dictionary name (worked
    out once per type: reading a struct's fields evaluates its annotations, a fifth of the loop's time
    under a load of writes when it was done per request)."""
    found: dict[str, str] = {}
    for field in msgspec.structs.fields(struct_type):
        name = _dictionary_of(field.type)
        if name is not None:
            found[field.encode_name] = name
    return MappingProxyType(found)


def _dictionary_of(annotation: Any) -> str | None:
    """The dictionary named in an annotation, looking inside `X | None` and `X | UnsetType`."""
    if typing.get_origin(annotation) is Annotated:
        for meta in annotation.__metadata__:
            if isinstance(meta, msgspec.Meta) and meta.extra and _DICTIONARY_KEY in meta.extra:
                return str(meta.extra[_DICTIONARY_KEY])
        return None
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        for member in typing.get_args(annotation):
            name = _dictionary_of(member)
            if name is not None:
                return name
    return None
