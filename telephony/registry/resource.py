"""How a resource is declared: its schemas, operations, statuses, scope and ACL module.

A resource is data. One `Resource(...)` line gives the generic handlers everything they need; the
PATCH body is derived from the create body (every field optional, `UNSET` when absent, so an
explicit `null` is told apart from an absent field; a required field may not be nulled). PATCH and
bulk bodies also take back the model's other fields, read-only (`bodies.echoing`: copy and edit).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import msgspec

from ..collections import Kind, properties
from ..documents.conditions import Condition
from ..domain.bodies import echoing
from ..domain.references import Reference
from ..domain.types import dictionary_fields
from ..eventlog import NewEvent
from ..eventlog.connection import Connection


class Op(enum.Enum):
    LIST = "list"
    CREATE = "create"
    GET = "get"
    UPDATE = "update"
    DELETE = "delete"
    DELETE_MANY = "delete_many"
    DELETE_ALL = "delete_all"
    BULK_PATCH = "bulk_patch"
    DICTIONARIES = "dictionaries"


CRUD = frozenset({Op.LIST, Op.CREATE, Op.GET, Op.UPDATE, Op.DELETE})
READ = frozenset({Op.LIST, Op.GET})
Validator = Callable[[Any], list[tuple[str | None, str]]]
Prepare = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]
Scope = Callable[[Any, int], Condition]
"""A view's narrowing of a customer's rows by the request's path (`views`): the request and the customer."""
"""A nested list's narrowing of its rows, from the request: (SQL condition, parameters)."""
Fold = Callable[[dict[str, Any] | None, dict[str, Any]], dict[str, Any]]
"""A change as it applies to the stored document (None when creating), run inside the transaction."""
Computed = Callable[[dict[str, Any], float], dict[str, Any]]
"""Fields drawn from the whole document and the clock's time (epoch seconds), run inside the transaction."""
Effects = Callable[[Connection, str, int, dict[str, Any] | None, dict[str, Any]], list[NewEvent]]
"""The events a change brings on other records: (conn, kind, customer id, document before (None when
creating), document after), run inside the transaction."""


@dataclass(frozen=True)
class Parent:
    """The record a nested list hangs from (`/users/{id}/cdrs`: a user), named by the path parameter
    `param`. It must be one of the caller's customer's documents of `kind` whose `key` is that value,
    or the list is a 404 naming `path` (the parent's collection)."""

    kind: str
    path: str
    key: str = "id"
    param: str = "id"


def derive_patch(create: type[msgspec.Struct]) -> type[msgspec.Struct]:
    """`<Thing>Patch`: every field of `create`, optional, `UNSET` when absent; nullable unless `create`
    requires it (a PATCH may clear an optional field, never a required one)."""
    fields = []
    for f in msgspec.structs.fields(create):
        type_ = f.type | msgspec.UnsetType if f.required else f.type | None | msgspec.UnsetType
        fields.append((f.name, type_, msgspec.field(default=msgspec.UNSET, name=f.encode_name)))
    name = create.__name__.removesuffix("Create") + "Patch"
    return msgspec.defstruct(name, fields, kw_only=True, forbid_unknown_fields=True, module=create.__module__)


@dataclass(frozen=True)
class Resource:
    """One collection of the API.

    path: the collection's path after the version prefix (`contacts`, `sms/cannedresponses`).
    kind: the stored kind, naming its events (`contact.created`) and its documents' read model.
    ops / added_ops / own_ops: operations the spec lists / that real-platform.md adds / that this
        server adds beside both (marked `[telephony]`); any other is 405.
    attachment: a body field carrying a base64 audio file, stored once and served back.
    scope: set on views (`/users/{id}/cdrs`): narrows the rows by the request's path.
    refs: the fields naming other records (`domain/references.py`), checked on every write and
        unlinked when those records go.
    fold: a change as it applies to the stored document (queue members keep their login state).
    effects: the events a change brings on other records (a number listed by one destination leaves another).
    drawn_from: the kinds of the records a derived read model (conversations) is drawn from, in order
        (documents.DerivedTable): it is never exported nor imported, since those records make it again, and
        an export lists them in the order they made it, so an import gives its ids in the same order.
    computed: fields the server draws from the document and the clock at each create and change (a report
        schedule's `next_run_at`), so the answer and a GET after it show them.
    one_per_customer: a customer's one record (its balance), whose id is the customer's: no ids are allocated.
    parent: set on nested views: the record the path names, which the caller must be able to see.
    """

    path: str
    kind: str
    model: type[msgspec.Struct]
    module: str
    ops: frozenset[Op]
    create: type[msgspec.Struct] | None = None
    added_ops: frozenset[Op] = frozenset()
    own_ops: frozenset[Op] = frozenset()
    delete_status: int = 204
    delete_many_status: int = 204
    delete_all_status: int = 204
    bulk_item: type[msgspec.Struct] | None = None
    immutable: frozenset[str] = frozenset()
    indexed: tuple[str | tuple[str, ...], ...] = ()
    """Properties the table keeps an index of (a tuple: one index over several), after the customer and
    before the id: lists filtered or sorted by them read the index (`documents.listing`)."""
    searched: tuple[str, ...] = ()
    """Text properties kept in a substring index, so `like` on them is read from it (the store's own:
    `documents.sqlite.search`, or PostgreSQL's trigrams)."""
    validate: Validator | None = None
    prepare: Prepare | None = None
    includes: tuple[str, ...] = ()
    attachment: str | None = None
    id_pattern: str = r"\d+"
    id_name: str = "id"
    text_ids: bool = False
    first_id: int = 1
    scope: Scope | None = None
    refs: tuple[Reference, ...] = ()
    fold: Fold | None = None
    effects: Effects | None = None
    computed: Computed | None = None
    parent: Parent | None = None
    drawn_from: tuple[str, ...] = ()
    one_per_customer: bool = False
    """The record's id is its customer's (a balance): no sequence hands its ids out."""

    @property
    def all_ops(self) -> frozenset[Op]:
        return self.ops | self.added_ops | self.own_ops

    @property
    def derived(self) -> bool:
        """A read model drawn from other records (`drawn_from`)."""
        return bool(self.drawn_from)

    @cached_property
    def patch(self) -> type[msgspec.Struct] | None:
        """The body of `PATCH /<path>/{id}`: any create field, and the model's others read-only."""
        return echoing(derive_patch(self.create), self.model) if self.create is not None else None

    @cached_property
    def bulk_body(self) -> type[msgspec.Struct] | None:
        """An item of `PATCH /<path>`: the fields a bulk change sets, and the model's others read-only."""
        return echoing(self.bulk_item, self.model) if self.bulk_item is not None else None

    @cached_property
    def props(self) -> dict[str, Kind]:
        return properties(self.model)

    @cached_property
    def model_fields(self) -> frozenset[str]:
        return frozenset(self.props)

    @cached_property
    def time_props(self) -> tuple[str, ...]:
        """The properties holding a time or a date."""
        return tuple(name for name, kind in self.props.items() if kind is Kind.TIME)

    @cached_property
    def coded(self) -> Mapping[str, str]:
        """Dictionary-backed fields of the create body: wire name -> dictionary name."""
        return dictionary_fields(self.create) if self.create is not None else {}

    @cached_property
    def ref_fields(self) -> frozenset[str]:
        """Stored names of the fields that name other records (some only sent, never stored)."""
        return frozenset(f for ref in self.refs for f in ref.fields)

    @cached_property
    def wire_names(self) -> dict[str, str]:
        """Stored field name -> the request's name, where they differ (`extension` <- `extension_id`)."""
        return {stored: sent for sent, stored in getattr(self.create, "stored_as", {}).items()}

    @cached_property
    def fixed(self) -> frozenset[str]:
        """Fields set on create that PATCH may not change."""
        return self.immutable | getattr(self.create, "fixed_after_create", frozenset())
