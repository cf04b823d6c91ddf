"""What a record must hold to be stored whole, as an import brings it: the API's own declarations.

A request body is checked by its schema when it arrives; a record that arrives whole (an import
line, later a call engine's CDR) is checked here against the same declarations, so nothing the API
would refuse is stored by another way in:

- the resource's model: types and bounds (durations, sizes, pages, the texts files are drawn from),
  phone numbers normalised as a request's are;
- numbers fit in 64 bits (ids and everything SQLite stores as an integer);
- each time property holds a real UTC time `YYYY-MM-DD HH:MM:SS` (or a date `YYYY-MM-DD`);
- each coded field holds a value of its dictionary (`GET /<resource>/dictionaries`), stored as its code;
- the fields that the create body also sets pass its constraints and the resource's `validate` and
  `prepare` hooks, as a POST with them would.

Every problem is named by its field, all of a record's in one 400.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import msgspec

from ..api.errors import BadRequest
from ..api.wire import decode
from ..domain.bodies import read
from ..domain.dictionaries import DICTIONARIES, RESOURCE_DICTIONARIES
from ..domain.errors import Problems
from .coercion import fields_of
from .resource import Resource


def document_fields(resource: Resource, raw: bytes | msgspec.Raw) -> dict[str, Any]:
    """The model fields of a whole record (JSON), checked as the API checks them and normalised."""
    value, problems = read(msgspec.json.decode(bytes(raw)), resource.model)
    if value is None:
        raise BadRequest.of(problems)
    fields: dict[str, Any] = msgspec.to_builtins(value)  # the fields that could be read: check them too
    problems += time_problems(fields, resource.time_props)
    problems += code_problems(fields, RESOURCE_DICTIONARIES.get(resource.path, {}))
    if resource.create is not None:
        created, found = _as_created(resource, fields)
        fields.update(created)
        problems += found
    if problems:
        raise BadRequest.of(list(dict.fromkeys(problems)))
    if resource.prepare is not None:
        fields = resource.prepare(fields, {"creating": True})
    return fields


def decode_checked(raw: bytes | msgspec.Raw, type_: type) -> Any:
    """`raw` read as `type_` as request bodies are (`api.wire.decode`): a 400 naming every problem."""
    return decode(bytes(raw), type_)


_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?: [0-9]{2}:[0-9]{2}:[0-9]{2})?")


def time_problems(fields: dict[str, Any], names: Iterable[str]) -> Problems:
    """Each named field is null or a real UTC time (`YYYY-MM-DD HH:MM:SS`) or date (`YYYY-MM-DD`)."""
    return [(name, f"{value!r} is not a UTC time (YYYY-MM-DD HH:MM:SS) or a date (YYYY-MM-DD).")
            for name in names if (value := fields.get(name)) not in (None, "")
            and not (isinstance(value, str) and _is_time(value))]  # fmt: skip


def _is_time(text: str) -> bool:
    if _TIME.fullmatch(text) is None:
        return False
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def code_problems(fields: dict[str, Any], coded: dict[str, str] | Any) -> Problems:
    """Each coded field (a dotted path into `fields`) holds a code or name of its dictionary; stored as the code."""
    problems: Problems = []
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
            problems.append((path, str(exc)))
    return problems


def _as_created(resource: Resource, fields: dict[str, Any]) -> tuple[dict[str, Any], Problems]:
    """The fields the create body sets, as a POST of them would store them (its constraints and hooks),
    and the problems a POST of them would have."""
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
        return {}, missing + problems
    return fields_of(resource, body, creating=True, prepare=False), []
