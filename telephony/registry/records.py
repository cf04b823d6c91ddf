"""What a record must hold to be stored whole, as an import brings it: the API's own declarations.

A request body is checked by its schema when it arrives; a record that arrives whole (an import
line, later a call engine's CDR) is checked here against the same declarations, so nothing the API
would refuse is stored by another way in:

- the resource's model: types and bounds (durations, sizes, pages, the texts files are drawn from);
- numbers fit in 64 bits (ids and everything SQLite stores as an integer);
- each time property holds a real UTC time `YYYY-MM-DD HH:MM:SS` (or a date `YYYY-MM-DD`);
- each coded field holds a value of its dictionary (`GET /<resource>/dictionaries`), stored as its code;
- the fields that the create body also sets pass its constraints and the resource's `validate` and
  `prepare` hooks, as a POST with them would.

Every problem is a 400 naming its field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import msgspec

from ..api.errors import BadRequest
from ..api.wire import check_integers, validation_error
from ..domain.bodies import read
from ..domain.dictionaries import DICTIONARIES, RESOURCE_DICTIONARIES
from .coercion import fields_of
from .resource import Resource


def document_fields(resource: Resource, raw: bytes) -> dict[str, Any]:
    """The model fields of a whole record (JSON), checked as the API checks them and normalised."""
    value = decode_checked(raw, resource.model)
    fields: dict[str, Any] = msgspec.to_builtins(value)
    check_times(fields, resource.time_props)
    code_fields(fields, RESOURCE_DICTIONARIES.get(resource.path, {}))
    if resource.create is not None:
        fields.update(_as_created(resource, fields))
    if resource.prepare is not None:
        fields = resource.prepare(fields, {"creating": True})
    return fields


def decode_checked(raw: bytes, type_: type) -> Any:
    """`raw` decoded as `type_` (strictly, as request bodies are), its numbers within 64 bits."""
    try:
        value: Any = msgspec.json.decode(raw, type=type_)
    except msgspec.ValidationError as exc:
        raise validation_error(exc) from None
    check_integers(msgspec.to_builtins(value))
    return value


_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?: [0-9]{2}:[0-9]{2}:[0-9]{2})?")


def check_times(fields: dict[str, Any], names: Iterable[str]) -> None:
    """Each named field is null or a real UTC time (`YYYY-MM-DD HH:MM:SS`) or date (`YYYY-MM-DD`)."""
    for name in names:
        value = fields.get(name)
        if value is None or value == "":
            continue
        if not isinstance(value, str) or not _is_time(value):
            raise BadRequest.field(name, f"{value!r} is not a UTC time (YYYY-MM-DD HH:MM:SS) or a date (YYYY-MM-DD).")


def _is_time(text: str) -> bool:
    if _TIME.fullmatch(text) is None:
        return False
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def code_fields(fields: dict[str, Any], coded: dict[str, str] | Any) -> None:
    """Each coded field (a dotted path into `fields`) holds a code or name of its dictionary; stored as the code."""
    for path, dictionary in coded.items():
        *parents, name = path.split(".")
        holder: Any = fields
        for parent in parents:
            holder = holder.get(parent) if isinstance(holder, dict) else None
        if not isinstance(holder, dict) or holder.get(name) is None:
            continue
        try:
            holder[name] = DICTIONARIES[dictionary].to_code(holder[name])
        except ValueError as exc:
            raise BadRequest.field(path, str(exc)) from None


def _as_created(resource: Resource, fields: dict[str, Any]) -> dict[str, Any]:
    """The fields the create body sets, as a POST of them would store them (its constraints and hooks)."""
    assert resource.create is not None and resource.patch is not None
    stored_as: dict[str, str] = dict(getattr(resource.create, "stored_as", {}))
    sent_as = {stored: sent for sent, stored in stored_as.items()}
    declared = [f for f in msgspec.structs.fields(resource.create) if f.encode_name != resource.attachment]
    names = {f.encode_name for f in declared}
    sent = {sent_as.get(k, k): v for k, v in fields.items() if sent_as.get(k, k) in names and v is not None}
    missing = [(stored_as.get(f.encode_name, f.encode_name), "This field is required.") for f in declared
               if f.required and f.encode_name not in sent]  # fmt: skip
    body, problems = read(sent, resource.patch, resource.validate)
    if missing or problems:
        raise BadRequest.of(missing + problems)
    return fields_of(resource, body, creating=True, prepare=False)
