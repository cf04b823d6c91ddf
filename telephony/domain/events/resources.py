"""The events of stored records (resources), the same four for every kind, made from one declaration.

On the stream `<kind>-<id>` (a clear on `<kind>s-of-<customer>`):
    `<kind>.created`  {id, customer_id, body}   the whole record, as the API shows it
    `<kind>.updated`  {id, changes}             only the fields that changed
    `<kind>.deleted`  {id}
    `<kind>.cleared`  {customer_id}             every record of the kind of one customer
`resource_events(kind)` makes a kind's four classes (subclasses of the four below, tagged
`<kind>.<action>`); a kind whose creation carries more (a user's password hash) names its own
`created` class. Read models match on the four base classes, whatever the kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import msgspec

from ..nouns import noun
from .base import Event


class ResourceCreated(Event, frozen=True, kw_only=True):
    """A record was made."""

    kind: ClassVar[str] = ""
    """The record's kind (`user`, ...); the four base classes have none."""
    action: ClassVar[str] = "created"
    """What the event does to its record: its tag's last word."""
    id: int | str
    """The record's id (a number's is its E.164 text)."""
    customer_id: int
    body: dict[str, Any]
    """The whole record, as the API shows it."""


class ResourceUpdated(Event, frozen=True, kw_only=True):
    """Fields of a record changed."""

    kind: ClassVar[str] = ""
    action: ClassVar[str] = "updated"
    id: int | str
    changes: dict[str, Any]
    """Only the fields that changed, with their new values."""


class ResourceDeleted(Event, frozen=True, kw_only=True):
    """A record was deleted."""

    kind: ClassVar[str] = ""
    action: ClassVar[str] = "deleted"
    id: int | str


class ResourceCleared(Event, frozen=True, kw_only=True):
    """Every record of the kind of one customer was deleted."""

    kind: ClassVar[str] = ""
    action: ClassVar[str] = "cleared"
    customer_id: int
    where: dict[str, Any] = msgspec.field(default_factory=dict)
    """Only the records whose fields have these values (a read model's own clear; never stored)."""


@dataclass(frozen=True)
class ResourceEvents:
    """The four event classes of one kind of record."""

    kind: str
    created: type[ResourceCreated]
    updated: type[ResourceUpdated]
    deleted: type[ResourceDeleted]
    cleared: type[ResourceCleared]

    @property
    def all(self) -> tuple[type[Event], ...]:
        return self.created, self.updated, self.deleted, self.cleared


def resource_events(kind: str, created: type[ResourceCreated] | None = None) -> ResourceEvents:
    """A kind's four event classes; `created`: its own, already tagged `<kind>.created`."""
    name, word = "".join(part.capitalize() for part in kind.split("_")), noun(kind)
    docs = {"created": f"{word} made: the whole record.", "updated": f"Fields of a {word} changed.",
            "deleted": f"{word} deleted.", "cleared": f"Every {word} of a customer deleted."}  # fmt: skip

    def made(action: str, base: type[Event]) -> Any:
        namespace = {"kind": kind, "__doc__": docs[action]}
        return msgspec.defstruct(f"{name}{action.capitalize()}", [], bases=(base,), tag=f"{kind}.{action}",
                                 module=__name__, namespace=namespace, frozen=True, kw_only=True)  # fmt: skip

    if created is not None and created.__struct_config__.tag != f"{kind}.created":
        raise ValueError(f"{created.__qualname__} is not tagged {kind}.created")
    return ResourceEvents(kind, created or made("created", ResourceCreated), made("updated", ResourceUpdated),
                          made("deleted", ResourceDeleted), made("cleared", ResourceCleared))  # fmt: skip
