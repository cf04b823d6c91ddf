"""Generic decisions over documents, run inside the writer's transaction.

Each checks ownership against the projection (a record of another customer does not exist for
the caller) and returns the events of the change.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from ..documents import reads
from ..domain.errors import Unknown
from ..eventlog import NO_STREAM, NewEvent, store
from ..projections.sequences import next_id
from .resource import Resource

Decide = Callable[[sqlite3.Connection], list[NewEvent]]


def _stream(resource: Resource, id_: Any) -> str:
    return f"{resource.kind}-{id_}"


def _require(conn: sqlite3.Connection, resource: Resource, ids: list[Any], customer_id: int) -> None:
    found = reads.owned(conn, resource.kind, ids, customer_id)
    missing = [i for i in ids if i not in found]
    if missing:
        raise Unknown(f"{resource.path} {', '.join(map(str, missing))} not found")


def create(resource: Resource, customer_id: int, build: Callable[[Any], dict], id_: Any = None) -> Decide:
    """`build(id)` makes the document once the id is allocated (or with `id_`, a natural id whose
    record the caller found absent)."""

    def decide(conn: sqlite3.Connection) -> list[NewEvent]:
        if id_ is None:  # a new id: its stream cannot exist
            new_id, expected = next_id(conn, resource.kind, resource.first_id), NO_STREAM
        else:  # a natural id (a number) names one stream across its lives: a new life goes on from the last
            new_id, expected = id_, store.stream_version(conn, _stream(resource, id_))
        data = {"id": new_id, "customer_id": customer_id, "body": build(new_id)}
        return [NewEvent(stream=_stream(resource, new_id), type=f"{resource.kind}.created", data=data,
                         expected_version=expected)]  # fmt: skip

    return decide


def update(resource: Resource, customer_id: int, changes: dict[Any, dict]) -> Decide:
    """Changes keyed by id; every id must be the customer's, or nothing is changed."""

    def decide(conn: sqlite3.Connection) -> list[NewEvent]:
        _require(conn, resource, list(changes), customer_id)
        return [NewEvent(stream=_stream(resource, id_), type=f"{resource.kind}.updated",
                         data={"id": id_, "changes": fields}) for id_, fields in changes.items()]  # fmt: skip

    return decide


def delete(resource: Resource, customer_id: int, ids: list[Any]) -> Decide:
    def decide(conn: sqlite3.Connection) -> list[NewEvent]:
        _require(conn, resource, ids, customer_id)
        return [NewEvent(stream=_stream(resource, id_), type=f"{resource.kind}.deleted", data={"id": id_})
                for id_ in dict.fromkeys(ids)]  # fmt: skip

    return decide


def clear(resource: Resource, customer_id: int) -> Decide:
    """Delete the whole collection of a customer as one event."""

    def decide(conn: sqlite3.Connection) -> list[NewEvent]:
        return [NewEvent(stream=f"{resource.kind}s-of-{customer_id}", type=f"{resource.kind}.cleared",
                         data={"customer_id": customer_id})]  # fmt: skip

    return decide
