"""From a decoded request body to the fields a resource stores.

Dictionary-backed fields take a code or a name and are stored as the code; a resource's
`validate` hook adds checks msgspec cannot express; `prepare` maps request-only fields onto the
model (for example a recording's size). Every problem is a 400 naming its field. What needs the
stored state (references, fields fixed at creation) is checked by the decision, in the transaction.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..api.errors import BadRequest, FieldError
from ..domain.dictionaries import DICTIONARIES
from ..domain.types import dictionary_fields
from .resource import Resource


def _fail(problems: list[tuple[str | None, str]]) -> BadRequest:
    first_field, first_message = problems[0]
    return BadRequest(
        f"{first_field}: {first_message}" if first_field else first_message,
        [FieldError(f, m) for f, m in problems],
    )


def fields_of(resource: Resource, body: msgspec.Struct, *, creating: bool, prepare: bool = True) -> dict[str, Any]:
    """The model fields `body` sets (absent PATCH fields stay absent), checked and normalised; `prepare`
    False leaves the resource's `prepare` hook to the caller (which has more fields to give it)."""
    sent: dict[str, Any] = msgspec.to_builtins(body)
    problems: list[tuple[str | None, str]] = []
    for name, dictionary in dictionary_fields(type(body)).items():
        if sent.get(name) is None:
            continue
        try:
            sent[name] = DICTIONARIES[dictionary].to_code(sent[name])
        except ValueError as exc:
            problems.append((name, str(exc)))
    if resource.validate is not None and not problems:
        problems.extend(resource.validate(body))
    if problems:
        raise _fail(problems)
    for request_name, stored_name in getattr(resource.create, "stored_as", {}).items():
        if request_name in sent:
            sent[stored_name] = sent.pop(request_name)
    if prepare and resource.prepare is not None:
        sent = resource.prepare(sent, {"creating": creating})
    kept = resource.model_fields | resource.ref_fields
    return {name: value for name, value in sent.items() if name in kept and name != "id"}


def stored(resource: Resource, fields: dict[str, Any]) -> dict[str, Any]:
    """The fields a document keeps (a reference only sent, such as a queue's `ddis`, is checked, not kept)."""
    return {name: value for name, value in fields.items() if name in resource.model_fields}


def new_document(resource: Resource, fields: dict[str, Any], id_: Any, customer_id: int, now: str) -> dict:
    """A whole resource document: the model's defaults, the sent fields, id, owner and timestamps."""
    document = msgspec.to_builtins(resource.model())
    document.update(stored(resource, fields))
    document["id"] = id_
    for owner in ("customer_id", "customer"):
        if owner in document:
            document[owner] = customer_id
    if "created_at" in document and not document.get("created_at"):
        document["created_at"] = now
    return document
