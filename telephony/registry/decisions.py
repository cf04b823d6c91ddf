"""Generic decisions over documents, run inside the writer's transaction.

Each checks ownership against the projection (a record of another customer does not exist for
the caller), checks the references the change sets (`documents/references.py`) and the fields it
cannot change (fixed at creation, or read-only fields sent back), all of them before refusing, and
returns the events of the change. Creates and updates are `Decision`s that also keep the documents
the change leaves, which the handler answers: what was committed, whatever the next request does to it.
A removal also unlinks the removed records from every document naming them, as update events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from ..clock import parse_wire_time
from ..documents import reads, references
from ..documents.references import Table
from ..domain.bodies import changed
from ..domain.errors import Invalid, Problems, Unknown
from ..domain.events import events_of
from ..domain.nouns import missing as missing_ids
from ..domain.references import normal
from ..eventlog import NO_STREAM, Decision, NewEvent, store
from ..eventlog.connection import Connection
from ..projections.sequences import next_id
from .coercion import new_document, stored
from .resource import Resource

Decide = Callable[[Connection], list[NewEvent]]


def _stream(resource: Resource, id_: Any) -> str:
    return f"{resource.kind}-{id_}"


def _missing(resource: Resource, missing: list[Any]) -> None:
    if missing:
        raise Unknown.of(missing_ids(resource.kind, missing))


def _require(conn: Connection, resource: Resource, ids: list[Any], customer_id: int) -> None:
    found = reads.owned(conn, resource.kind, ids, customer_id)
    _missing(resource, [i for i in ids if i not in found])


def _settled(conn: Connection, resource: Resource, customer_id: int, current: dict[str, Any] | None,
             sent: dict[str, Any], echoed: dict[str, Any]) -> tuple[dict[str, Any], Problems]:  # fmt: skip
    """The sent fields as they apply to the stored document, and every problem with them: a field fixed
    at creation, or a read-only one (`echoed`), may be sent back unchanged (copy and edit), never
    changed; references are normalised and must name the customer's records; the resource folds."""
    fields, problems = dict(sent), changed(echoed, current or {})
    if current is not None:
        for name in resource.fixed & fields.keys():
            if fields.pop(name) != current.get(name):
                problems.append((resource.wire_names.get(name, name), "This value cannot be changed."))
    fields = normal(resource.refs, fields)
    try:
        fields = resource.fold(current, fields) if resource.fold is not None else fields
    except Invalid as exc:
        problems += exc.problems
    if resource.refs:
        merged = {**(current if current is not None else msgspec.to_builtins(resource.model())), **fields}
        problems += references.problems(conn, resource.refs, customer_id, merged, fields.keys(), resource.wire_names)
    return fields, problems


def _effects(conn: Connection, resource: Resource, customer_id: int, before: dict[str, Any] | None,
             after: dict[str, Any]) -> list[NewEvent]:  # fmt: skip
    return resource.effects(conn, resource.kind, customer_id, before, after) if resource.effects else []


def _computed(resource: Resource, document: dict[str, Any], now: str) -> dict[str, Any]:
    return resource.computed(document, parse_wire_time(now).timestamp()) if resource.computed is not None else {}


def create(resource: Resource, customer_id: int, sent: dict[str, Any], now: str, id_: Any = None) -> Decision[dict]:
    """A new document of the sent fields (its id allocated unless given); the decision keeps it. A
    given id is a natural one (a number) whose record the caller found absent: it names one stream
    across its lives, so a new life goes on from the last."""

    def decide(conn: Connection) -> tuple[list[NewEvent], dict]:
        if id_ is None:
            new_id, expected = next_id(conn, resource.kind, resource.first_id), NO_STREAM
        else:
            new_id, expected = id_, store.stream_version(conn, _stream(resource, id_))
        fields, problems = _settled(conn, resource, customer_id, None, sent, {})
        if problems:
            raise Invalid.of(problems)
        document = new_document(resource, fields, new_id, customer_id, now)
        document.update(_computed(resource, document, now))
        made = events_of(resource.kind).made(new_id, customer_id, document)
        event = NewEvent(stream=_stream(resource, new_id), event=made, expected_version=expected)
        return [event, *_effects(conn, resource, customer_id, None, document)], document

    return Decision(decide)


def update(resource: Resource, customer_id: int, changes: dict[Any, dict], echoed: dict[Any, dict] | None = None,
           now: str | None = None) -> Decision[list[dict]]:  # fmt: skip
    """Changes keyed by id (and the read-only fields sent back, by id); every id must be the customer's
    and every change allowed, or nothing is changed. The decision keeps the changed documents, in the
    order of `changes`. `now` (wire time) is given to the resource's `computed` fields."""

    def decide(conn: Connection) -> tuple[list[NewEvent], list[dict]]:
        current = reads.documents(conn, resource.kind, list(changes), customer_id)
        _missing(resource, [id_ for id_ in changes if id_ not in current])
        settled, problems = {}, []
        for id_, sent in changes.items():
            settled[id_], found = _settled(conn, resource, customer_id, current[id_], sent, (echoed or {}).get(id_, {}))
            problems += found
        if problems:
            raise Invalid.of(problems)
        events, documents = [], []
        for id_, fields in settled.items():
            kept = stored(resource, fields)
            if now is not None:
                drawn = _computed(resource, {**current[id_], **kept}, now)
                kept.update({name: value for name, value in drawn.items() if current[id_].get(name) != value})
            changed = events_of(resource.kind).updated(id=id_, changes=kept)
            events.append(NewEvent(stream=_stream(resource, id_), event=changed))
            documents.append({**current[id_], **kept})
            events += _effects(conn, resource, customer_id, current[id_], documents[-1])
        return events, documents

    return Decision(decide)


def delete(resource: Resource, customer_id: int, ids: list[Any], table: Table) -> Decide:
    """The records go, and every document naming one of them drops it (`table`: who names what)."""

    def decide(conn: Connection) -> list[NewEvent]:
        _require(conn, resource, ids, customer_id)
        unique = list(dict.fromkeys(ids))
        gone = events_of(resource.kind).deleted
        removed = [NewEvent(stream=_stream(resource, id_), event=gone(id=id_)) for id_ in unique]
        return removed + references.unlink(conn, table, customer_id, resource.kind, unique)

    return decide


def clear(resource: Resource, customer_id: int, table: Table) -> Decide:
    """Delete the whole collection of a customer as one event (and unlink it where it is named)."""

    def decide(conn: Connection) -> list[NewEvent]:
        cleared = NewEvent(stream=f"{resource.kind}s-of-{customer_id}",
                           event=events_of(resource.kind).cleared(customer_id=customer_id))  # fmt: skip
        named = any(resource.kind in ref.kinds for refs in table.values() for ref in refs)
        unlinked = references.unlink(conn, table, customer_id, resource.kind,
                                     reads.ids_of(conn, resource.kind, customer_id)) if named else []  # fmt: skip
        return [cleared, *unlinked]

    return decide
