"""Validation problems in plain words: what msgspec reports, said to the person who sent the value.

msgspec words its errors for programmers (``Expected `str` matching regex '^\\+?[1-9][0-9]{6,14}$' -
at `$.to` ``). `problem` turns one into the field it names and a sentence saying what was expected:
a pattern is told by the description declared with it (`Meta(pattern=..., description="an E.164
number ...")`), a type by its everyday name, a bound by its number.
"""

from __future__ import annotations

import ast
import functools
import re
from typing import Any

import msgspec
from msgspec import inspect as mi

_AT = re.compile(r" - at `\$(?P<path>[^`]*)`$")
_ROOT = re.compile(r"^\$(?:\.|\[\d+\]\.?)?")
"""What a field's name leaves out of its path: the body itself, and the item of a list body (`[0].id` is `id`)."""
_NAMED = re.compile(r"Object (?:missing required|contains unknown) field `([^`]*)`")
_NOUNS = {
    "str": "a string", "int": "an integer", "float": "a number", "bool": "true or false", "null": "null",
    "array": "an array", "object": "an object", "bytes": "base64 text", "datetime": "a date and time",
}  # fmt: skip
_BOUNDS = {">=": "at least", "<=": "at most", ">": "greater than", "<": "less than"}
_SIZED = {"str": ("a string of", "characters"), "array": ("an array of", "items"), "object": ("an object of", "fields")}


def problem(exc: msgspec.ValidationError | ValueError, type_: Any = None) -> tuple[str | None, str]:
    """The field a validation error names (`users[0].id`; None for the whole body) and its plain message.
    `type_` is what was being decoded: its patterns' descriptions say what a pattern expects."""
    return said_at(exc, type_, "$")


def said_at(exc: msgspec.ValidationError | ValueError, type_: Any, path: str) -> tuple[str | None, str]:
    """`problem` of an error met reading the value at `path` (`$.frequency`) of a body."""
    text = str(exc)
    match = _AT.search(text)
    message = text[: match.start()] if match else text
    path += match.group("path").removeprefix("$") if match else ""
    named = _NAMED.match(message)
    if named:
        path += f".{named.group(1)}"
    return field_at(path), plain(message, patterns_of(type_) if type_ is not None else {})


def field_at(path: str) -> str | None:
    """The field a path names (`$.items[0].id` is `items[0].id`); None for the body itself."""
    return _ROOT.sub("", path, count=1) or None


def plain(message: str, patterns: dict[str, str | None] | None = None) -> str:
    """One msgspec message (without its location) in plain words; unknown wordings lose their backticks."""
    if message.startswith("Object missing required field"):
        return "This field is required"
    if message.startswith("Object contains unknown field"):
        return "This field is not allowed here"
    regex = re.fullmatch(r"Expected `str` matching regex (['\"].*['\"])", message, re.DOTALL)
    if regex:
        described = (patterns or {}).get(ast.literal_eval(regex.group(1)))
        return f"Expected {described}" if described else "This value is not in the expected format"
    for rule, say in _rules():
        found = rule.fullmatch(message)
        if found:
            return say(*found.groups())
    return message.replace("`", "")


def _noun(types: str) -> str:
    return " or ".join(_NOUNS.get(t.strip(), t.strip()) for t in types.split("|"))


@functools.cache
def _rules() -> list[tuple[re.Pattern[str], Any]]:
    def sized(type_: str, op: str, n: str) -> str:
        what, unit = _SIZED.get(type_, (_noun(type_) + " of", "items"))
        return f"Expected {what} {_BOUNDS[op]} {n} {unit.removesuffix('s') if n == '1' else unit}"

    return [
        (re.compile(r"Expected `([^`]+)`, got `([^`]+)`"), lambda a, b: f"Expected {_noun(a)}, got {_noun(b)}"),
        (re.compile(r"Expected `([^`]+)` of length (>=|<=|>|<) (\d+)"), sized),
        (re.compile(r"Expected `([^`]+)` of length (\d+)"), lambda t, n: f"Expected {_noun(t)} of exactly {n} items"),
        (
            re.compile(r"Expected `([^`]+)` (>=|<=|>|<) (\S+)"),
            lambda t, op, n: f"Expected {_noun(t)} {_BOUNDS[op]} {n}",
        ),
        (re.compile(r"Expected `([^`]+)` that's a multiple of (\S+)"), lambda t, n: f"Expected a multiple of {n}"),
        (re.compile(r"Invalid enum value (.*)"), lambda v: f"{v} is not one of the allowed values"),
        (re.compile(r"Expected `([^`]+)`"), lambda t: f"Expected {_noun(t)}"),
    ]


@functools.cache
def patterns_of(type_: Any) -> dict[str, str | None]:
    """Every string pattern within `type_` (its fields, items, nested structs) and the description
    declared with it (None if it has none: every pattern of the API has one, as a test checks)."""
    found: dict[str, str | None] = {}
    seen: set[Any] = set()

    def walk(info: mi.Type, description: str | None = None) -> None:
        if isinstance(info, mi.Metadata):
            extra = info.extra_json_schema or {}
            walk(info.type, extra.get("description", description))
        elif isinstance(info, mi.StrType):
            if info.pattern is not None:
                found[info.pattern] = found.get(info.pattern) or description
        elif isinstance(info, mi.StructType):
            if info.cls not in seen:
                seen.add(info.cls)
                for f in info.fields:
                    walk(f.type)
        elif isinstance(info, mi.UnionType):
            for member in info.types:
                walk(member, description)
        elif isinstance(info, mi.ListType | mi.SetType | mi.FrozenSetType | mi.VarTupleType):
            walk(info.item_type)
        elif isinstance(info, mi.DictType):
            walk(info.value_type)

    walk(mi.type_info(type_))
    return found
