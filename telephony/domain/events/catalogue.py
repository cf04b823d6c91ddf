"""The catalogue of event types: every type the log holds, and how each is written and read back.

`EVENTS` is this app's: the call, account, billing, webhook, mail, report and upkeep events, and the
four of every kind of record (`RESOURCES`, made from one declaration: `records.RECORDS`). A `Catalogue` writes an event
as its stored data (the Struct's encoding without its tag) and reads stored data back as the type's
Struct, upcast first when it was stored under an older schema.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType

import msgspec

from .accounts import ACCOUNT_EVENTS, USER
from .base import TAG_FIELD, Event, tag_of
from .billing import BILLING_EVENTS
from .calls import CALL_EVENTS
from .faults import FAULT_EVENTS
from .log import LOG_EVENTS
from .mail import MAIL_EVENTS
from .messaging import CHAT, SMS
from .records import RECORDS
from .reports import REPORT_EVENTS
from .resources import ResourceEvents, resource_events
from .webhooks import WEBHOOK_EVENTS

_encode = msgspec.json.encode
_decode = msgspec.json.decode


class UnreadableEvent(ValueError):
    """Stored data that no type of the catalogue reads (an unknown type, a newer schema, a bad shape)."""


class Catalogue:
    """A set of event types by the tag each is stored under."""

    def __init__(self, types: Iterable[type[Event]]) -> None:
        by_tag: dict[str, type[Event]] = {}
        for cls in types:
            tag = tag_of(cls)
            if by_tag.setdefault(tag, cls) is not cls:
                raise ValueError(f"two event types are tagged {tag!r}: {by_tag[tag].__qualname__}, {cls.__qualname__}")
        self.types: Mapping[str, type[Event]] = MappingProxyType(by_tag)
        self._decoders = {tag: (cls.schema, msgspec.json.Decoder(cls).decode) for tag, cls in by_tag.items()}
        """Each type's current schema, and what decodes data stored under it."""
        self._heads = {tag: _encode({TAG_FIELD: tag})[:-1] for tag in by_tag}
        """Each type's encoding starts with its tag field: `{"type":"call.placed"`."""

    def __iter__(self) -> Iterator[type[Event]]:
        return iter(self.types.values())

    def __contains__(self, tag: object) -> bool:
        return tag in self.types

    def with_types(self, *types: type[Event]) -> Catalogue:
        """This catalogue and `types` (a test's own events)."""
        return Catalogue([*self, *types])

    def written(self, event: Event) -> tuple[str, int, bytes]:
        """The type, schema and stored data of an event: what its Struct encodes, without the tag."""
        tag = tag_of(type(event))
        if tag not in self.types:
            raise UnreadableEvent(f"event type {tag!r} is not in the catalogue: the log could not read it back")
        encoded, head = _encode(event), self._heads[tag]
        rest = encoded[len(head) :]
        return tag, type(event).schema, b"{" + rest[1:] if rest[:1] == b"," else b"{}"

    def read(self, tag: str, schema: int, data: bytes) -> Event:
        """The event stored as `data` under `tag` and `schema`, in its type's current shape."""
        current, decode = self._decoders.get(tag, (None, None))
        if decode is None:
            raise UnreadableEvent(f"unknown event type {tag!r}")
        try:
            if schema == current:
                return decode(data)
            cls = self.types[tag]
            if schema > cls.schema:
                raise UnreadableEvent(f"{tag} of schema {schema} is newer than this build reads ({cls.schema})")
            upcast = _decode(data)
            for old in range(schema, cls.schema):
                upcast = cls.upcasters[old](upcast)
            return msgspec.convert(upcast, cls)
        except msgspec.ValidationError as exc:
            if (stored := self._as_stored(tag, schema, data)) is not None:
                return stored
            raise UnreadableEvent(f"{tag} of schema {schema} does not read as {self.types[tag].__qualname__}: {exc}"
                                  ) from exc  # fmt: skip
        except (msgspec.DecodeError, KeyError) as exc:
            name = self.types[tag].__qualname__
            raise UnreadableEvent(f"{tag} of schema {schema} does not read as {name}: {exc}") from exc

    def _as_stored(self, tag: str, schema: int, data: bytes) -> Event | None:
        """Data its type's fields refuse, read as stored when the type reads such data (`Event.as_stored`)."""
        cls = self.types[tag]
        if schema != cls.schema:
            return None
        try:
            return cls.as_stored(_decode(data))
        except (TypeError, msgspec.DecodeError):  # a field missing, or not an object
            return None

    def changes(self, tag: str) -> bool:
        """Whether stored data of this type may be upcast (written under an older schema)."""
        cls = self.types.get(tag)
        return cls is not None and cls.schema > 1


OWN_CREATIONS = (USER, SMS, CHAT)
"""The kinds whose creation carries more than the record (declared with their capability's events)."""
RESOURCES: Mapping[str, ResourceEvents] = MappingProxyType({
    kind: next((own for own in OWN_CREATIONS if own.kind == kind), None) or resource_events(kind, record)
    for kind, record in RECORDS.items()
})  # fmt: skip
"""The events of each kind of record, by kind."""
EVENTS = Catalogue([*CALL_EVENTS, *ACCOUNT_EVENTS, *BILLING_EVENTS, *WEBHOOK_EVENTS, *MAIL_EVENTS, *REPORT_EVENTS,
                    *FAULT_EVENTS, *LOG_EVENTS,
                    *(cls for events in RESOURCES.values() for cls in events.all)])  # fmt: skip
"""The catalogue of this app's log."""


def events_of(kind: str) -> ResourceEvents:
    """A kind's four events: the declared ones, or free-form ones for a kind the app does not keep (tests)."""
    return RESOURCES.get(kind) or resource_events(kind)
