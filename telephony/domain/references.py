"""Reference fields: which records a document names, and what a document loses when they go.

Each field that holds the id of another record is declared once, beside its resource (the
registry's `Resource(refs=...)`, the accounts' `USER_REFERENCES`):

    Ref("user_id", "user")                      one id of a user, or null
    Ref("users", "user", many=True)             a list of user ids
    Ref("users", "user", many=True, member="id")  a list of objects holding the id under `id`
    Ref("ddis", "ddi", many=True, number=True)  E.164 numbers; a number's id is its E.164 with `+`
    Destination()                               `final_dst_type` + `final_dst_id`: the type's letter
                                                or code (`U`/1 user, `Q`/5 queue, ...) says the kind

These rules are pure: the I/O that checks a change's references and finds the documents naming a
removed record lives with the document reads (`documents/references.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from . import phone
from .dictionaries import TARGET_TYPE

Gone = Callable[[str, Any], bool]
"""Whether the record of (kind, id) is being removed."""

DESTINATION_KINDS: Mapping[str, str | None] = {
    "user": "user", "voicemail": "user", "ringgroup": "ringgroup", "ivr": "ivr", "queue": "queue",
    "conference": "conference", "hangup": None,
}  # fmt: skip
"""What a final destination type (by its dictionary name) points to: a voicemail is its user's."""


def number_id(value: Any) -> str:
    """The id of the number a reference names, whether it was sent with `+`, without, or as an integer."""
    return phone.e164(str(value))


@dataclass(frozen=True)
class Ref:
    """A stored field holding the id of a record of `kind` (or a list of them, `many`)."""

    field: str
    kind: str
    many: bool = False
    member: str | None = None
    number: bool = False

    @property
    def fields(self) -> tuple[str, ...]:
        return (self.field,)

    @property
    def blamed(self) -> str:
        """The stored field a refusal names."""
        return self.field

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset({self.kind})

    def _id(self, item: Any) -> Any:
        value = item.get(self.member) if self.member and isinstance(item, dict) else item
        return number_id(value) if self.number and value is not None else value

    def _items(self, document: Mapping[str, Any]) -> list[Any]:
        value = document.get(self.field)
        if value is None:
            return []
        return list(value) if self.many and isinstance(value, list) else [value]

    def named(self, document: Mapping[str, Any]) -> list[tuple[str, Any]]:
        """(kind, id) of every record the document names through this field."""
        return [(self.kind, id_) for item in self._items(document) if (id_ := self._id(item)) is not None]

    def normal(self, value: Any) -> Any:
        """The value as stored: numbers sent as text keep their `+` (the number's id)."""
        if not self.number or value is None:
            return value
        if self.many and isinstance(value, list):
            return [number_id(v) if isinstance(v, str) else v for v in value]
        return number_id(value) if isinstance(value, str) else value

    def without(self, document: Mapping[str, Any], gone: Gone) -> dict[str, Any]:
        """The change that drops the removed records from the document ({} when it names none)."""
        items = self._items(document)
        kept = [item for item in items if not gone(self.kind, self._id(item))]
        if len(kept) == len(items):
            return {}
        return {self.field: kept if self.many else None}


@dataclass(frozen=True)
class Destination:
    """A final destination: the type field's letter or code names the kind the id field points to.
    A type without a target (hang up), or no id, names nothing. When the target goes, the pair
    takes the `cleared` values (the resource's default)."""

    type_field: str = "final_dst_type"
    id_field: str = "final_dst_id"
    cleared: tuple[Any, Any] = (None, None)

    @property
    def fields(self) -> tuple[str, ...]:
        return (self.type_field, self.id_field)

    @property
    def blamed(self) -> str:
        return self.id_field

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset(kind for kind in DESTINATION_KINDS.values() if kind is not None)

    def target(self, document: Mapping[str, Any]) -> tuple[str, Any] | None:
        id_, type_ = document.get(self.id_field), document.get(self.type_field)
        if id_ is None or type_ is None:
            return None
        try:
            kind = DESTINATION_KINDS.get(TARGET_TYPE.to_name(type_))
        except ValueError:
            return None
        return None if kind is None else (kind, id_)

    def named(self, document: Mapping[str, Any]) -> list[tuple[str, Any]]:
        target = self.target(document)
        return [] if target is None else [target]

    def normal(self, value: Any) -> Any:
        return value

    def without(self, document: Mapping[str, Any], gone: Gone) -> dict[str, Any]:
        target = self.target(document)
        if target is None or not gone(*target):
            return {}
        return dict(zip(self.fields, self.cleared, strict=True))


Reference = Ref | Destination


def normal(refs: Iterable[Reference], fields: Mapping[str, Any]) -> dict[str, Any]:
    """`fields` with each reference as stored (numbers as their ids, with `+`)."""
    out = dict(fields)
    for ref in refs:
        if isinstance(ref, Ref) and ref.field in out:
            out[ref.field] = ref.normal(out[ref.field])
    return out


def codes_of(kind: str) -> list[Any]:
    """Every spelling of the destination types that point to `kind` (letters and integer codes)."""
    names = [name for name, target in DESTINATION_KINDS.items() if target == kind]
    found: list[Any] = []
    for code, name in TARGET_TYPE.entries.items():
        if name in names:
            found.append(code)
            found.extend(alias for alias, target in TARGET_TYPE.aliases.items() if target == code)
    return found
