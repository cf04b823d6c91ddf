"""The catalogue of event types as people read it (`telephony events [--json]`): the audit contract.

Each type the log stores, by its tag: its schema version, its description (the Struct's docstring),
and its fields with their types, whether each is required or its default, and its docstring (the
string under the field in the Struct's source). Then the values the fields are made of (a call's
parties, its plan, its records, a mail's attachments), described the same way. Fields at their
default are left out of the stored data.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types
import typing
from collections.abc import Iterator
from typing import Any

import msgspec

from .domain.events import EVENTS, Catalogue, Event, tag_of


class Field(msgspec.Struct, kw_only=True, omit_defaults=True):
    name: str
    type: str
    required: bool
    default: Any = None
    doc: str = ""


class Described(msgspec.Struct, kw_only=True, omit_defaults=True):
    """An event type (`type`, `schema`) or a value its fields are made of (`name`)."""

    name: str
    doc: str
    fields: list[Field]
    type: str | None = None
    schema: int | None = None


class Contract(msgspec.Struct, kw_only=True):
    events: list[Described]
    values: list[Described]


def described(catalogue: Catalogue = EVENTS) -> Contract:
    """Every event type of `catalogue`, by tag, and every value type their fields hold, by name."""
    events = [_described(cls, type=tag_of(cls), schema=cls.schema) for cls in sorted(catalogue, key=tag_of)]
    values = {cls.__name__: cls for event in catalogue for cls in _values_of(event)}
    return Contract(events=events, values=[_described(values[name]) for name in sorted(values)])


def _described(cls: type, **more: Any) -> Described:
    if typing.is_typeddict(cls):  # a record's changes: any of its fields, as the record documents them
        docs, required = _field_docs(cls.record), cls.__required_keys__  # type: ignore[attr-defined]
        names = {info.encode_name: info.name for info in msgspec.structs.fields(cls.record)}  # type: ignore[attr-defined]
        fields = [Field(name=name, type=_type_name(hint), required=name in required, doc=docs.get(names[name], ""))
                  for name, hint in typing.get_type_hints(cls, include_extras=True).items()]  # fmt: skip
    else:
        docs = _field_docs(cls)
        fields = [_field(info, docs.get(info.name, "")) for info in msgspec.structs.fields(cls)]
    return Described(name=cls.__name__, doc=_doc(cls), fields=fields, **more)


def _doc(cls: type) -> str:
    """The class's own docstring, or its base's (a record kind's events are made from one declaration)."""
    own = (c.__doc__ for c in cls.__mro__ if c.__doc__ and c not in (msgspec.Struct, object, dict))
    return inspect.cleandoc(next(own, ""))


def _field(info: msgspec.structs.FieldInfo, doc: str) -> Field:
    required = info.required
    if info.default is not msgspec.NODEFAULT:
        default = None if info.default is msgspec.UNSET else msgspec.to_builtins(info.default)
    elif info.default_factory is not msgspec.NODEFAULT:
        default = msgspec.to_builtins(info.default_factory())
    else:
        default = None
    return Field(name=info.encode_name, type=_type_name(info.type), required=required, default=default, doc=doc)


def _field_docs(cls: type) -> dict[str, str]:
    """The docstrings of a class's fields (the string under each in its source), its bases' too."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not isinstance(klass, msgspec.StructMeta) or klass is msgspec.Struct:
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError):  # made from a declaration: no source of its own
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for field, after in zip(body, body[1:], strict=False):
            if isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name) and _is_text(after):
                docs[field.target.id] = inspect.cleandoc(after.value.value)  # type: ignore[attr-defined]
    return docs


def _is_text(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _type_name(annotation: Any) -> str:
    """A field's type as it is written (`int | None`, `dict[str, int]`, `Party`), a constrained one with
    its constraints (`int (0 to 86400)`)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        said = [_constraints(meta) for meta in annotation.__metadata__ if isinstance(meta, msgspec.Meta)]
        return " ".join([_type_name(args[0]), *(f"({text})" for text in said if text)])
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_type_name(arg) for arg in args)
    if origin is not None:
        shown = ", ".join("..." if arg is Ellipsis else _type_name(arg) for arg in args)
        return f"{getattr(origin, '__name__', str(origin))}[{shown}]"
    if annotation is type(None):
        return "None"
    if annotation is msgspec.UnsetType:
        return "unset"
    return annotation.__name__ if isinstance(annotation, type) else str(annotation).replace("typing.", "")


def _constraints(meta: msgspec.Meta) -> str:
    """A `Meta`'s constraints as words: its description, or its bounds."""
    if meta.description:
        return meta.description
    low, high = (meta.ge if meta.ge is not None else meta.gt), (meta.le if meta.le is not None else meta.lt)
    bounds = [
        f"{low} to {high}"
        if low is not None and high is not None
        else f"at least {low}"
        if low is not None
        else f"at most {high}"
        if high is not None
        else ""
    ]
    shortest, longest = meta.min_length or 0, meta.max_length
    if shortest or longest is not None:
        bounds.append(f"at least {shortest} long" if longest is None else f"at most {longest} long" if not shortest
                      else f"{shortest} to {longest} long")  # fmt: skip
    if meta.pattern is not None:
        bounds.append(f"matching {meta.pattern}")
    return ", ".join(bound for bound in bounds if bound)


def _values_of(cls: type) -> Iterator[type]:
    """The Struct and TypedDict types (other than events) a type's fields hold, however deep."""
    hints = typing.get_type_hints(cls, include_extras=True).values() if typing.is_typeddict(cls) else (
        info.type for info in msgspec.structs.fields(cls))  # fmt: skip
    for hint in hints:
        yield from _values_in(hint)


def _values_in(annotation: Any) -> Iterator[type]:
    for arg in typing.get_args(annotation):
        yield from _values_in(arg)
    if typing.is_typeddict(annotation) or (
        isinstance(annotation, type) and issubclass(annotation, msgspec.Struct) and not issubclass(annotation, Event)
    ):
        yield annotation
        yield from _values_of(annotation)


def as_text(contract: Contract) -> str:
    """The catalogue for a person: each type, its fields and their docs."""
    lines = []
    for entry in (*contract.events, *contract.values):
        head = f"{entry.type} (schema {entry.schema}, {entry.name})" if entry.type else f"{entry.name} (a value)"
        lines += [head, *(f"    {line}" for line in entry.doc.splitlines())]
        for field in entry.fields:
            default = "" if field.required else f" = {msgspec.json.encode(field.default).decode()}"
            lines.append(f"  {field.name}: {field.type}{default}")
            lines += [f"      {line}" for line in field.doc.splitlines()]
        lines.append("")
    return "\n".join(lines)
