"""A number belongs to one target at a time: the destination listing it, or the operator's choice.

A ring group, IVR, queue or conference takes a number by listing it in its `ddis`, the spec's way;
the number's `target_type`/`target_id` then name it. Moving a number is an event on both sides: the
number's target changes, and the destination that listed it before drops it from its `ddis`. A
destination that drops a number from its list leaves the number without a target, and the operator
pointing a number somewhere (`PATCH /_telephony/ddis/{e164}`, or a target given when provisioning)
takes it from any other list (and adds it to the list of a destination it names).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..documents import reads
from ..domain.dictionaries import TARGET_TYPE
from ..domain.events import events_of
from ..domain.references import number_id
from ..eventlog import NewEvent
from ..eventlog.connection import Connection

HOLDERS = ("ringgroup", "ivr", "queue", "conference")
"""The kinds that take numbers through their `ddis` (each a `target_type` name)."""
Holder = tuple[str, int]


def _numbers(values: Iterable[Any] | None) -> list[str]:
    return list(dict.fromkeys(number_id(v) for v in values or ()))


def _update(kind: str, id_: Any, changes: dict[str, Any]) -> NewEvent:
    return NewEvent(stream=f"{kind}-{id_}", event=events_of(kind).updated(id=id_, changes=changes))


def _listing(conn: Connection, customer_id: int, number: str) -> list[tuple[str, dict]]:
    digits = number.lstrip("+")
    values: list[Any] = [number, digits, *([int(digits)] if digits.isdigit() else [])]
    return [(kind, doc) for kind in HOLDERS for doc in reads.listing_any(conn, kind, customer_id, "ddis", values)]


def _taken(conn: Connection, customer_id: int, numbers: list[str], keeper: Holder | None) -> list[NewEvent]:
    """Every destination but `keeper` that lists one of `numbers` drops it: one event per destination."""
    dropped: dict[Holder, tuple[dict, set[str]]] = {}
    for number in numbers:
        for kind, doc in _listing(conn, customer_id, number):
            if (kind, doc["id"]) != keeper:
                dropped.setdefault((kind, doc["id"]), (doc, set()))[1].add(number)
    return [_update(kind, id_, {"ddis": [n for n in doc.get("ddis") or () if number_id(n) not in gone]})
            for (kind, id_), (doc, gone) in dropped.items()]  # fmt: skip


def listed(conn: Connection, kind: str, customer_id: int, before: dict[str, Any] | None,
           after: dict[str, Any]) -> list[NewEvent]:  # fmt: skip
    """A destination's `ddis` changed from `before` to `after`: numbers it now lists point at it (and
    leave any other list), numbers it no longer lists and that pointed at it have no target."""
    if kind not in HOLDERS:
        return []
    code, holder_id = TARGET_TYPE.to_code(kind), after["id"]
    old, new = _numbers((before or {}).get("ddis")), _numbers(after.get("ddis"))
    added, removed = [n for n in new if n not in old], [n for n in old if n not in new]
    events = [_update("ddi", n, {"target_type": code, "target_id": holder_id}) for n in added]
    events += _taken(conn, customer_id, added, (kind, holder_id))
    ddis = reads.documents(conn, "ddi", removed, customer_id)
    return events + [_update("ddi", n, {"target_type": None, "target_id": None}) for n, ddi in ddis.items()
                     if (ddi.get("target_type"), ddi.get("target_id")) == (code, holder_id)]  # fmt: skip


def pointed(conn: Connection, customer_id: int, number: str, code: Any, target_id: Any) -> list[NewEvent]:
    """The operator points a number at (`code`, `target_id`): any other destination listing it drops
    it, and a destination it names lists it."""
    name = TARGET_TYPE.to_name(code) if code is not None else None
    keeper = (name, target_id) if name in HOLDERS and isinstance(target_id, int) else None
    events = _taken(conn, customer_id, [number], keeper)
    if keeper is not None:
        doc = reads.documents(conn, keeper[0], [target_id], customer_id).get(target_id)
        if doc is not None and number not in _numbers(doc.get("ddis")):
            events.append(_update(keeper[0], target_id, {"ddis": [*(doc.get("ddis") or ()), number]}))
    return events
