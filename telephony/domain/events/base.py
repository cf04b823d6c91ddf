"""What an event is, and the one shape of an event to record.

Every event type is a frozen, keyword-only msgspec Struct subclassing `Event`, tagged with the type it
is stored under (`class CallPlaced(Event, frozen=True, kw_only=True, tag="call.placed")`: `kw_only`
again since msgspec applies it to a class's own fields only, `frozen` again for the type checker).
The tag is the log's `type` column and is never renamed. The log stores what the Struct encodes
without its tag (fields at their default are left out), and reading the log gives the Struct back. A
type's `schema` is the version of its shape: when a shape changes (msgspec's evolution rules: a new
field gets a default, nothing is renamed or retyped), `schema` goes up and `upcasters[old]` turns
stored data of schema `old` into the shape of `old + 1`, so a log of any age replays. The docstrings
of a type and of its fields are its entry in the catalogue (`telephony events`): the audit contract.

`NewEvent` is an event to record: the typed event, the stream it goes on and the version that
stream must be at (optimistic concurrency).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

import msgspec

TAG_FIELD = "type"
"""The field an event's tag takes when an event is encoded whole (`{"type": "call.placed", ...}`)."""
ANY_VERSION = -1
"""`expected_version` meaning: append whatever the stream's current version is."""
NO_STREAM = 0
"""`expected_version` meaning: the stream must not exist yet."""
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
"""Stored data of one schema -> the data of the next."""
S = TypeVar("S")
Claims = dict[str, list[int]]
"""Ids an event takes, by kind (`{"cdr": [7]}`): no record of that kind gets them again (`sequences`)."""


class Event(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, tag_field=TAG_FIELD):
    """Something that happened, as the log keeps it. Subclasses name their stored tag."""

    schema: ClassVar[int] = 1
    """The version of the type's shape; data stored under an older one is upcast on read."""
    upcasters: ClassVar[Mapping[int, Upcaster]] = MappingProxyType({})
    """Schema -> what turns data stored under it into the next schema's shape."""

    @classmethod
    def as_stored(cls, data: dict[str, Any]) -> Event | None:
        """The event of stored data whose values this type's fields refuse, their values as stored, for
        a type whose log may hold such data (a record imported before imports were checked); None for
        the others, whose data must read as their Struct."""
        return None


def tag_of(cls: type[Event]) -> str:
    """The type an event class is stored under."""
    tag = cls.__struct_config__.tag
    if not isinstance(tag, str) or "." not in tag:
        raise TypeError(f"{cls.__qualname__} is not a stored event type (tag {tag!r})")
    return tag


def data_of(event: Event) -> dict[str, Any]:
    """An event's data as plain JSON values, without its tag: what the log stores of it, decoded."""
    data = msgspec.json.decode(msgspec.json.encode(event))
    del data[TAG_FIELD]
    return data


@functools.cache  # a pure function of a few dozen sets, asked on every commit
def tags_of(classes: frozenset[type[Event]] | None) -> frozenset[str] | None:
    """The stored types of event classes (None stays None: every type)."""
    return None if classes is None else frozenset(tag_of(cls) for cls in classes)


class NewEvent(msgspec.Struct, frozen=True, kw_only=True):
    """An event about to be appended: `expected_version` guards its stream (optimistic concurrency)."""

    stream: str
    event: Event
    expected_version: int = ANY_VERSION


def fold(evolve: Callable[[S, Event], S], state: S, events: Iterable[Event]) -> S:
    """The state after `events`, from `state`: what a decision folds a stream into."""
    for event in events:
        state = evolve(state, event)
    return state
