"""References inside the writer's transaction: check the ones a change sets, unlink removed records
(the declarations are `domain/references.py`'s)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from ..domain.errors import Problems
from ..domain.events import events_of
from ..domain.nouns import not_found
from ..domain.references import Destination, Reference, codes_of, number_id
from ..eventlog import NewEvent
from ..eventlog.connection import Connection
from . import reads

Table = Mapping[str, Sequence[Reference]]
"""Every kind's reference fields, by the kind of the documents holding them."""


def problems(conn: Connection, refs: Iterable[Reference], customer_id: int, document: Mapping[str, Any],
             changed: Collection[str], names: Mapping[str, str] | None = None) -> Problems:  # fmt: skip
    """Every record `document` names through a field in `changed` must be one of the customer's: a
    problem naming the field (by its name in `names`, the request's) for each that is not."""
    out: Problems = []
    for ref in refs:
        if not any(f in changed for f in ref.fields):
            continue
        named = ref.named(document)
        wanted: dict[str, list[Any]] = {}
        for kind, id_ in named:
            wanted.setdefault(kind, []).append(id_)
        found = {kind: reads.owned(conn, kind, ids, customer_id) for kind, ids in wanted.items()}
        field = (names or {}).get(ref.blamed, ref.blamed)
        for kind, id_ in named:
            if id_ not in found[kind]:
                out.append((field, not_found(kind, id_)))
    return out


def _holders(conn: Connection, holder: str, ref: Reference, customer_id: int, kind: str,
             ids: list[Any]) -> list[dict]:  # fmt: skip
    """The customer's documents of `holder` that may name one of `ids` of `kind` through `ref`."""
    if isinstance(ref, Destination):
        return reads.holding(conn, holder, customer_id, {ref.id_field: ids, ref.type_field: codes_of(kind)})
    values = ids
    if ref.number:  # stored with or without `+`, or as an integer
        digits = [number_id(i)[1:] for i in ids]
        values = [*(f"+{d}" for d in digits), *digits, *(int(d) for d in digits if d.isdigit())]
    if ref.many:
        return reads.listing_any(conn, holder, customer_id, ref.field, values, ref.member)
    return reads.holding(conn, holder, customer_id, {ref.field: values})


def unlink(conn: Connection, table: Table, customer_id: int, kind: str, ids: Iterable[Any]) -> list[NewEvent]:
    """The update events, one per document, that drop removed records (`ids` of `kind`) from the customer's
    documents naming them (but those removed with them): a list loses the id, a single reference becomes
    null, a final destination its resource's default."""
    removed = list(dict.fromkeys(ids))
    if not removed:
        return []
    gone_ids = set(removed)

    def gone(target_kind: str, id_: Any) -> bool:
        return target_kind == kind and id_ in gone_ids

    pending: dict[tuple[str, Any], tuple[dict, dict]] = {}
    for holder, refs in table.items():
        for ref in refs:
            if kind not in ref.kinds:
                continue
            for document in _holders(conn, holder, ref, customer_id, kind, removed):
                key = (holder, document["id"])
                if holder == kind and document["id"] in gone_ids:
                    continue
                current, changes = pending.get(key, (document, {}))
                change = ref.without({**current, **changes}, gone)
                if change:
                    pending[key] = (current, {**changes, **change})
    return [NewEvent(stream=f"{holder}-{id_}", event=events_of(holder).updated(id=id_, changes=changes))
            for (holder, id_), (_, changes) in pending.items()]  # fmt: skip
