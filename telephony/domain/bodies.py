"""Reading a body: what a type makes of JSON, and every problem on the way, not only the first.

msgspec stops at the first problem it meets. `read` converts a body whole (a valid body costs one
conversion) and walks it beside its type for what msgspec lets through: a field the type does not
have (never silently dropped), a coded field's value outside its dictionary, an integer beyond 64
bits. When the conversion fails, the walk converts field by field and item by item, so every bad
field is named, each once, in plain words (`validation`). A `check` of the caller (rules across
fields) then sees what could be read: a struct whose bad fields are `UNSET`.

A write may take back what a read showed (copy and edit): `echoing` makes a body that also takes the
fields of the record's model it cannot set, and the write refuses each one sent with another value
than the record's (`changed`), naming it. So no field is ever dropped without a word.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any

import msgspec

from .dictionaries import DICTIONARIES
from .errors import Problems
from .phone import numbers_normalised
from .types import dictionary_fields
from .validation import field_at, said_at

Check = Callable[[Any], Problems]
"""Rules msgspec cannot express, over a read body: a problem per broken rule."""
INT64 = (-(2**63), 2**63 - 1)
"""What an integer must fit in: what SQLite stores, and what an export carries back."""
NOT_HERE = "This field is not allowed here"
READ_ONLY = "This field is read-only: send it unchanged, or leave it out."
_ECHOED = msgspec.Meta(description="read-only: taken only with the record's own value (copy and edit)")
_UNIONS = (typing.Union, types.UnionType)
_SEQUENCES = (list, set, frozenset)
_WALKED = frozenset({int, dict, list})
"""The kinds of JSON value that may hold a problem msgspec lets through (an integer's size, what is inside)."""


def read(raw: Any, type_: Any, check: Check | None = None) -> tuple[Any, Problems]:
    """`raw` (JSON as Python values) as `type_`, and every problem found: each field's type and bounds,
    each unknown field, each coded value, each integer, then what `check` finds in what could be read.
    With problems, the value is what could be read (None when nothing could)."""
    try:
        value = msgspec.convert(raw, type_)
    except msgspec.ValidationError as exc:
        problems = _walk(raw, type_, "$", converted=False) or [said_at(exc, type_, "$")]
        value = _partial(raw, type_)
    else:
        problems = _walk(raw, type_, "$", converted=True)
        value = numbers_normalised(value, type_)
    if check is not None and value is not None:
        problems += check(value)
    return value, list(dict.fromkeys(problems))


def _walk(raw: Any, type_: Any, path: str, *, converted: bool) -> Problems:
    """The problems of `raw` as `type_` at `path`; `converted`: msgspec took it, only its own rules remain."""
    kind = type(raw)
    if kind is int and not INT64[0] <= raw <= INT64[1]:
        return [(field_at(path), f"{raw} does not fit in a 64-bit integer.")]
    found = _inside(type_, raw) if kind is dict or kind is list else None
    if found is None:
        if converted or type_ is Any:
            return []
        try:
            msgspec.convert(raw, type_)
        except msgspec.ValidationError as exc:
            return [said_at(exc, type_, path)]
        return []
    into, inner, metas = found
    problems = [] if converted else _bounds(raw, metas, path)
    if into == "struct":
        return problems + _struct(raw, inner, path, converted=converted)
    if into == "list":
        for index, item in enumerate(raw):
            problems += _walk(item, inner, f"{path}[{index}]", converted=converted)
        return problems
    for key, item in raw.items():
        problems += _walk(item, inner, f"{path}.{key}", converted=converted)
    return problems


def _struct(raw: dict, cls: type[msgspec.Struct], path: str, *, converted: bool) -> Problems:
    """The problems of an object's fields in the order sent, then of those missing."""
    problems: Problems = []
    fields = _fields(cls)
    for key, value in raw.items():
        entry = fields.get(key)
        if entry is None:
            problems.append((field_at(f"{path}.{key}"), NOT_HERE))
            continue
        type_, _required, dictionary = entry
        if converted and dictionary is None and type(value) not in _WALKED:
            continue  # a string, number or boolean msgspec took: nothing of ours to check
        at = f"{path}.{key}"
        found = _walk(value, type_, at, converted=converted)
        if not found and dictionary is not None and value is not None:
            try:
                DICTIONARIES[dictionary].to_code(value)
            except ValueError as exc:
                found = [(field_at(at), str(exc))]
        problems += found
    if not converted:
        problems += [(field_at(f"{path}.{sent}"), "This field is required")
                     for sent, (_, required, _) in fields.items() if required and sent not in raw]  # fmt: skip
    return problems


def _bounds(raw: list | dict, metas: tuple[msgspec.Meta, ...], path: str) -> Problems:
    """A list's or an object's own length bounds, checked on a stand-in of the same length (its items
    are checked one by one)."""
    stand_in: Any = [0] * len(raw) if isinstance(raw, list) else {str(n): 0 for n in range(len(raw))}
    for meta in metas:
        if meta.min_length is None and meta.max_length is None:
            continue
        bounded: Any = Annotated[type(stand_in), msgspec.Meta(min_length=meta.min_length, max_length=meta.max_length)]
        try:
            msgspec.convert(stand_in, bounded)
        except msgspec.ValidationError as exc:
            return [said_at(exc, bounded, path)]
    return []


def _partial(raw: Any, type_: Any) -> msgspec.Struct | None:
    """A struct of the fields of `raw` that could be read, the others `UNSET`; None when `type_` is no struct."""
    found = _inside(type_, raw)
    if found is None or found[0] != "struct":
        return None
    given: dict[str, Any] = {}
    for field in msgspec.structs.fields(found[1]):
        if field.encode_name in raw:
            try:
                given[field.name] = msgspec.convert(raw[field.encode_name], field.type)
            except msgspec.ValidationError:
                given[field.name] = msgspec.UNSET
        elif field.required:
            given[field.name] = msgspec.UNSET
    try:
        return found[1](**given)
    except (TypeError, ValueError):
        return None


@functools.cache
def _fields(cls: type[msgspec.Struct]) -> dict[str, tuple[Any, bool, str | None]]:
    """Each field of a struct by the name sent: (type, required, dictionary)."""
    coded = dictionary_fields(cls)
    return {f.encode_name: (f.type, f.required, coded.get(f.encode_name)) for f in msgspec.structs.fields(cls)}


def _inside(type_: Any, raw: dict | list) -> tuple[str, Any, tuple[msgspec.Meta, ...]] | None:
    """What to walk into for an object or a list `raw`: a struct of its fields ("struct", cls), the
    items of a list ("list", item type) or the values of an object ("dict", value type), with the
    bounds declared on it; None for a value read whole (no member of a union, or two, would walk in)."""
    return _shapes(type_)[0 if isinstance(raw, dict) else 1]


@functools.cache
def _shapes(type_: Any) -> tuple[tuple[str, Any, tuple[msgspec.Meta, ...]] | None, ...]:
    """`_inside` of `type_` for an object and for a list, worked out once per type."""
    metas: tuple[msgspec.Meta, ...] = ()
    while typing.get_origin(type_) is Annotated:
        metas += tuple(m for m in type_.__metadata__ if isinstance(m, msgspec.Meta))
        type_ = type_.__origin__
    origin, args = typing.get_origin(type_), typing.get_args(type_)
    if origin in _UNIONS:
        shapes = []
        for n in (0, 1):
            members = [found for member in args if (found := _shapes(member)[n]) is not None]
            shapes.append((members[0][0], members[0][1], metas + members[0][2]) if len(members) == 1 else None)
        return tuple(shapes)
    of_object: tuple[str, Any, tuple[msgspec.Meta, ...]] | None = None
    if isinstance(type_, type) and issubclass(type_, msgspec.Struct):
        of_object = "struct", type_, metas
    elif type_ is Any or type_ is dict or origin is dict:
        of_object = "dict", args[1] if len(args) == 2 else Any, metas
    of_list: tuple[str, Any, tuple[msgspec.Meta, ...]] | None = None
    if type_ is Any or type_ in _SEQUENCES or origin in _SEQUENCES:
        of_list = "list", args[0] if args else Any, metas
    elif origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        of_list = "list", args[0], metas
    return of_object, of_list


def echoing(body: type[msgspec.Struct], model: type[msgspec.Struct], name: str | None = None) -> type[msgspec.Struct]:
    """`body` (named `name`, or as `body` is), also taking every field of `model` it lacks (`UNSET` when
    absent): a record's own GET body may be sent back. These fields (its `echoed`, attribute -> name
    sent) set nothing; see `changed`."""
    own = {f.encode_name for f in msgspec.structs.fields(body)} | set(body.__struct_fields__)
    extra = [f for f in msgspec.structs.fields(model) if f.encode_name not in own and f.name not in own]
    fields = [(f.name, Annotated[f.type | msgspec.UnsetType, _ECHOED],
               msgspec.field(default=msgspec.UNSET, name=f.encode_name)) for f in extra]  # fmt: skip
    echoed = {**getattr(body, "echoed", {}), **{f.name: f.encode_name for f in extra}}
    return msgspec.defstruct(name or body.__name__, fields, bases=(body,), kw_only=True, module=body.__module__,
                             namespace={"echoed": echoed})  # fmt: skip


def echoes(body: msgspec.Struct) -> dict[str, Any]:
    """The read-only fields a body echoing its record's model holds, by the name sent."""
    echoed: Mapping[str, str] = getattr(type(body), "echoed", {})
    return {sent: value for name, sent in echoed.items() if (value := getattr(body, name)) is not msgspec.UNSET}


def changed(sent: Mapping[str, Any], record: Mapping[str, Any]) -> Problems:
    """A problem per read-only field sent with another value than the record holds."""
    return [(name, READ_ONLY) for name, value in sent.items() if value != record.get(name)]
