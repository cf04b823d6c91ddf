"""The four changes a document table applies, as plain JSON values: a kind's own events make them
(`of_event`), feeds make them of other events (call events make CDRs)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from ..domain.events import Event
from ..domain.events.resources import ResourceCleared, ResourceCreated, ResourceDeleted, ResourceUpdated


class Put(msgspec.Struct, frozen=True):
    """A new document (its id must not be in the table yet): plain JSON values, or a record's Struct,
    which the table writes as it is."""

    id: Any
    customer_id: int
    body: dict[str, Any] | msgspec.Struct


class Patch(msgspec.Struct, frozen=True):
    id: Any
    changes: dict[str, Any]


class Remove(msgspec.Struct, frozen=True):
    id: Any


class Clear(msgspec.Struct, frozen=True):
    """Every document of a customer goes (only those whose properties `where` have these values: a read
    model's own narrowing, which no event carries)."""

    customer_id: int
    where: Mapping[str, Any] = msgspec.field(default_factory=dict)


DocumentChange = Put | Patch | Remove | Clear


def json_text(body: Any) -> str:
    """A body as the JSON text a table keeps (text already, or values or a record's Struct to encode)."""
    return body if isinstance(body, str) else msgspec.json.encode(body).decode()


def of_event(event: Event) -> DocumentChange:
    """The change one of a kind's four events makes to its table."""
    match event:
        case ResourceCreated(id=id_, customer_id=customer_id, body=body):
            return Put(id_, customer_id, body)
        case ResourceUpdated(id=id_, changes=changes):
            return Patch(id_, changes)
        case ResourceDeleted(id=id_):
            return Remove(id_)
        case ResourceCleared(customer_id=customer_id):
            return Clear(customer_id)
    raise TypeError(f"{type(event).__qualname__} is none of a kind's four events")
