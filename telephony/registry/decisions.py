"""Generic decisions over documents, run inside the writer's transaction.

Each checks ownership against the projection (a record of another customer does not exist for
the caller) and returns the events of the change. Creates and updates are `Decision`s that also
keep the documents the change leaves, which the handler answers: what was committed, whatever the
next request does to it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from ..documents import reads
from ..domain.errors import Unknown
from ..eventlog import NO_STREAM, Decision, NewEvent
from ..projections.sequences import next_id
from .coercion import new_document
from .resource import Resource

Decide = Callable[[sqlite3.Connection], list[NewEvent]]


def _stream(resource: Resource, id_: Any) -> str:
    return f"{resource.kind}-{id_}"


def _missing(resource: Resource, missing: list[Any]) -> None:
    if missing:
        raise Unknown(f"{resource.path} {', '.join(map(str, missing))} not found")


def _require(conn: sqlite3.Connection, resource: Resource, ids: list[Any], customer_id: int) -> None:
    found = reads.owned(conn, resource.kind, ids, customer_id)
    _missing(resource, [i for i in ids if i not in found])


def create(resource: Resource, customer_id: int, sent: dict[str, Any], now: str, id_: Any = None) -> Decision[dict]:
    """A new document of the sent fields (its id allocated unless given); the decision keeps it."""

    def decide(conn: sqlite3.Connection) -> tuple[list[NewEvent], dict]:
        new_id = id_ if id_ is not None else next_id(conn, resource.kind, resource.first_id)
        document = new_document(resource, sent, new_id, customer_id, now)
        data = {"id": new_id, "customer_id": customer_id, "body": document}
        event = NewEvent(stream=_stream(resource, new_id), type=f"{resource.kind}.created", data=data,
                         expected_version=NO_STREAM)  # fmt: skip
        return [event], document

    return Decision(decide)


def update(resource: Resource, customer_id: int, changes: dict[Any, dict]) -> Decision[list[dict]]:
    """Changes keyed by id; every id must be the customer's, or nothing is changed. The decision keeps
    the changed documents, in the order of `changes`."""

    def decide(conn: sqlite3.Connection) -> tuple[list[NewEvent], list[dict]]:
        current = reads.documents(conn, resource.kind, list(changes), customer_id)
        _missing(resource, [id_ for id_ in changes if id_ not in current])
        events, documents = [], []
        for id_, fields in changes.items():
            events.append(NewEvent(stream=_stream(resource, id_), type=f"{resource.kind}.updated",
                                   data={"id": id_, "changes": fields}))  # fmt: skip
            documents.append({**current[id_], **fields})
        return events, documents

    return Decision(decide)


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
