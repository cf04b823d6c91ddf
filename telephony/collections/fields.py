"""The filterable properties of a resource and how each compares, read off its msgspec Struct."""

from __future__ import annotations

from enum import Enum

import msgspec
from msgspec import inspect as mi

# Text properties holding a time. Not every `*_time` is one: a user's `ring_time` is seconds.
TIME_NAMES = ("_at", "date", "timestamp", "origtime")


class Kind(Enum):
    INT = "integer"
    FLOAT = "number"
    BOOL = "boolean"
    TEXT = "string"
    TIME = "time"
    ARRAY = "array"
    OBJECT = "object"


def _kind_of(name: str, info: mi.Type) -> Kind:
    if isinstance(info, mi.Metadata):
        return _kind_of(name, info.type)
    if isinstance(info, mi.UnionType):
        kinds = {_kind_of(name, t) for t in info.types if not isinstance(t, mi.NoneType)}
        return kinds.pop() if len(kinds) == 1 else Kind.TEXT
    if isinstance(info, mi.BoolType):
        return Kind.BOOL
    if isinstance(info, mi.IntType):
        return Kind.INT
    if isinstance(info, mi.FloatType):
        return Kind.FLOAT
    if isinstance(info, mi.StrType):
        return Kind.TIME if name.endswith(TIME_NAMES) else Kind.TEXT
    if isinstance(info, mi.ListType | mi.TupleType | mi.VarTupleType | mi.SetType):
        return Kind.ARRAY
    if isinstance(info, mi.StructType | mi.DictType | mi.TypedDictType | mi.DataclassType):
        return Kind.OBJECT
    return Kind.TEXT


def properties(struct: type[msgspec.Struct]) -> dict[str, Kind]:
    """Every wire property of `struct` with its comparison kind."""
    info = mi.type_info(struct)
    assert isinstance(info, mi.StructType)
    return {field.encode_name: _kind_of(field.encode_name, field.type) for field in info.fields}
