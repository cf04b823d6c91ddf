"""The events of stored records (resources), the same four for every kind, made from one declaration.

On the stream `<kind>-<id>` (a clear on `<kind>s-of-<customer>`):
    `<kind>.created`  {id, customer_id, body}   the whole record: the kind's Struct (`Contact`)
    `<kind>.updated`  {id, changes}             the fields that changed: `<Thing>Changes`
    `<kind>.deleted`  {id}
    `<kind>.cleared`  {customer_id}             every record of the kind of one customer
`resource_events(kind, record)` makes a kind's four classes (subclasses of the four below, tagged
`<kind>.<action>`, `body` typed as `record`); a kind whose creation carries more (a user's password
hash) names its own `created` class, its `body` typed the same. Read models match on the four base
classes, whatever the kind, or on a kind's own. Every kind of the app has its record (`records`);
a kind without one (a test's own) keeps free-form bodies and changes (`dict[str, Any]`).

A body is a whole record, every field present, so the record's Struct writes it in the order the
record declares. A change is a partial record (`changes_of`: a TypedDict of the record's fields, each
optional): only the fields that changed, each of its record's type, kept in the order the change set
them, which is the order the log has always stored them in (a Struct would write its declared order,
and one kind's changes set their fields in more than one order). A record is checked against its
types as its event is made (`ResourceEvents.made`); a log written before records were typed may hold
one its types refuse (imported before imports were checked): it is read as stored (`as_stored`), its
values unchecked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypedDict

import msgspec

from ..nouns import noun
from .base import Event


def _as_stored(cls: type[Event], data: dict[str, Any]) -> Event:
    """A kind's event of stored data whose values its types refuse (a record imported before imports
    were checked): the values as stored, unchecked, of the fields its record has."""
    values = {}
    for info in msgspec.structs.fields(cls):
        if info.encode_name not in data:
            continue
        value = data[info.encode_name]
        record = info.type
        if isinstance(record, type) and issubclass(record, msgspec.Struct) and isinstance(value, dict):
            names = {field.encode_name: field.name for field in msgspec.structs.fields(record)}
            value = record(**{names[name]: one for name, one in value.items() if name in names})
        values[info.name] = value
    return cls(**values)


class ResourceCreated(Event, frozen=True, kw_only=True):
    """A record was made."""

    kind: ClassVar[str] = ""
    """The record's kind (`user`, ...); the four base classes have none."""
    id: int | str
    """The record's id (a number's is its E.164 text)."""
    customer_id: int
    """The customer the record belongs to."""
    body: msgspec.Struct
    """The whole record, as the API shows it (its kind's Struct)."""

    @classmethod
    def as_stored(cls, data: dict[str, Any]) -> Event | None:
        return _as_stored(cls, data)


class ResourceUpdated(Event, frozen=True, kw_only=True):
    """Fields of a record changed."""

    kind: ClassVar[str] = ""
    id: int | str
    """The record's id."""
    changes: dict[str, Any]
    """Only the fields that changed, with their new values (its kind's `<Thing>Changes`)."""

    @classmethod
    def as_stored(cls, data: dict[str, Any]) -> Event | None:
        return _as_stored(cls, data)


class ResourceDeleted(Event, frozen=True, kw_only=True):
    """A record was deleted."""

    kind: ClassVar[str] = ""
    id: int | str
    """The record's id."""


class ResourceCleared(Event, frozen=True, kw_only=True):
    """Every record of the kind of one customer was deleted."""

    kind: ClassVar[str] = ""
    customer_id: int
    """The customer whose records of the kind went."""


_TYPED_DICT: Any = TypedDict
"""`TypedDict`, called with a name made at run time (which the type checker's own reading of it refuses)."""
FREE_FORM = dict[str, Any]
"""The body and changes of a kind without a record."""


def changes_of(record: type[msgspec.Struct]) -> type[Mapping[str, Any]]:
    """`<Thing>Changes`: any fields of `record`, by their stored names, each of its type."""
    fields = {info.encode_name: info.type for info in msgspec.structs.fields(record)}
    changes = _TYPED_DICT(f"{record.__name__.removesuffix('Record')}Changes", fields, total=False)
    changes.__doc__ = f"Fields of a {record.__name__} that changed: any of its fields, each of its type."
    changes.record = record
    return changes


@dataclass(frozen=True)
class ResourceEvents:
    """The four event classes of one kind of record, and the Structs they carry."""

    kind: str
    record: Any
    """The whole record: what `created` carries (its Struct, or `FREE_FORM`)."""
    changes: Any
    """Any of the record's fields: what `updated` carries (`<Thing>Changes`, or `FREE_FORM`)."""
    created: type[ResourceCreated]
    updated: type[ResourceUpdated]
    deleted: type[ResourceDeleted]
    cleared: type[ResourceCleared]

    @property
    def all(self) -> tuple[type[Event], ...]:
        return self.created, self.updated, self.deleted, self.cleared

    def body(self, document: Mapping[str, Any]) -> Any:
        """The record of a whole document (its fields by their stored names), its values checked
        against the record's types (`msgspec.ValidationError` names a wrong one)."""
        return dict(document) if self.record is FREE_FORM else msgspec.convert(document, self.record)

    def made(self, id_: int | str, customer_id: int, document: Mapping[str, Any]) -> ResourceCreated:
        """The `created` event of a whole document."""
        return self.created(id=id_, customer_id=customer_id, body=self.body(document))


def resource_events(kind: str, record: type[msgspec.Struct] | None = None,
                    created: type[ResourceCreated] | None = None) -> ResourceEvents:  # fmt: skip
    """A kind's four event classes, their bodies `record` (None: free-form); `created`: its own, already
    tagged `<kind>.created`."""
    name, word = "".join(part.capitalize() for part in kind.split("_")), noun(kind)
    body: Any = FREE_FORM if record is None else record
    changes = FREE_FORM if record is None else changes_of(record)
    docs = {"created": f"{word} made: the whole record.", "updated": f"Fields of a {word} changed.",
            "deleted": f"{word} deleted.", "cleared": f"Every {word} of a customer deleted."}  # fmt: skip
    typed = {"created": [("body", body)], "updated": [("changes", changes)], "deleted": [], "cleared": []}

    def made(action: str, base: type[Event]) -> Any:
        namespace = {"kind": kind, "__doc__": docs[action]}
        return msgspec.defstruct(f"{name}{action.capitalize()}", typed[action], bases=(base,), module=__name__,
                                 tag=f"{kind}.{action}", namespace=namespace, frozen=True, kw_only=True)  # fmt: skip

    if created is not None:
        if created.__struct_config__.tag != f"{kind}.created":
            raise ValueError(f"{created.__qualname__} is not tagged {kind}.created")
        if next(info.type for info in msgspec.structs.fields(created) if info.name == "body") is not body:
            raise ValueError(f"{created.__qualname__}'s body is not {body}")
    return ResourceEvents(kind, body, changes, created or made("created", ResourceCreated),
                          made("updated", ResourceUpdated), made("deleted", ResourceDeleted),
                          made("cleared", ResourceCleared))  # fmt: skip
