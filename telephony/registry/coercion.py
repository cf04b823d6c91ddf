"""From a read request body to the fields a resource stores.

The body was read and checked whole when it arrived (`api.wire`: types, bounds, unknown fields, coded
values and the resource's `validate` hook, every problem in one 400). Here dictionary-backed fields
are stored as their codes, request names become stored names, and `prepare` maps request-only fields
onto the model (for example a recording's size). The read-only fields a body echoes are left out
(`bodies.echoes` gives them to the decision). What needs the stored state (references, fields fixed
at creation, read-only fields sent back) is checked by the decision, in the transaction.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..domain.dictionaries import DICTIONARIES
from ..domain.types import dictionary_fields
from .resource import Resource


def fields_of(resource: Resource, body: msgspec.Struct, *, creating: bool, prepare: bool = True) -> dict[str, Any]:
    """The model fields `body` sets (absent PATCH fields stay absent), normalised; `prepare` False leaves
    the resource's `prepare` hook to the caller (which has more fields to give it)."""
    echoed = set(getattr(type(body), "echoed", {}).values())
    sent: dict[str, Any] = {k: v for k, v in msgspec.to_builtins(body).items() if k not in echoed}
    for name, dictionary in dictionary_fields(type(body)).items():
        if sent.get(name) is not None:
            sent[name] = DICTIONARIES[dictionary].to_code(sent[name])
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
