"""Phone numbers as people write them: the one type number fields take, and the one normalisation.

Clients paste numbers as they print them: `+44 7700 900123`, `+1 (415) 555-0123`, `44.7700.900123`,
`+44 (0)20 7123 4567`. A number field accepts spaces, dashes, dots and parentheses
between the digits (at most two together) and the trunk prefix `(0)` after the country code; what
is stored, compared and dialled is the number without them (`normalised`), its leading `+` kept as
given. Anything else (letters, too few or too many digits, a run of punctuation) is refused by the
field's pattern with a message naming the field.

A field is marked as a number by its annotation (`E164`, or `Meta(..., extra=NUMBER_FIELD)` beside
another pattern, as the calls' "number or extension"); `numbers_normalised` rewrites every marked
field of a decoded body, however deep (lists, nested objects), once for all the API's bodies.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import msgspec
from msgspec import inspect as mi

SEPARATORS = frozenset(" ().-")
_MARK = "phone_number"
NUMBER_FIELD = {_MARK: True}
"""The `extra` of a field's `Meta` that marks its strings as phone numbers to normalise."""
NUMBER = r"\+?\(?[1-9](?:[ ().-]{0,2}[0-9]){6,14}"
"""A number as written: 7 to 15 digits, a leading `+` or not, separators between the digits."""
DESCRIPTION = (
    "an E.164 number: 7 to 15 digits, with or without a leading '+' (spaces, dashes, dots and "
    "parentheses between them are ignored)"
)
E164 = Annotated[
    str,
    msgspec.Meta(
        pattern=f"^{NUMBER}$",
        description=DESCRIPTION,
        examples=["+447700900123", "447700900123", "+44 7700 900123"],
        extra=NUMBER_FIELD,
    ),
]
EMERGENCY_NUMBERS = frozenset({"112", "911", "999", "000", "110", "118", "119"})
"""Numbers of the emergency services the platform will not call through the API, whatever the
customer's extensions: 112 (Europe and GSM phones everywhere), 911 (North America), 999 (the UK,
Ireland, Hong Kong), 000 (Australia), 110 (police in Germany, Japan, China), 118 and 119 (ambulance
and fire in Italy, Japan, Korea). Dialled from a desk phone they would reach real services; an API
call never may."""
EMERGENCY = "Emergency numbers cannot be called through the API"
T = TypeVar("T")
Fix = Callable[[Any], Any]


def normalised(text: str) -> str:
    """`text` without its separators (and without the trunk prefix `(0)` written after a country
    code), its leading `+` kept as given: `+44 (0)20 7123 4567` is `+442071234567`."""
    if text.startswith("+"):
        text = text.replace("(0)", "", 1)
    return "".join(ch for ch in text if ch not in SEPARATORS)


def e164(number: str) -> str:
    """A number as numbers are stored, compared and named: with its leading `+` (`447700900123` is
    `+447700900123`); its separators already gone (`normalised`)."""
    return "+" + number.lstrip("+")


def digits(text: str) -> str:
    """A number's digits alone: the same number with or without `+` or separators gives the same digits."""
    return normalised(text).lstrip("+")


def emergency(number: str) -> bool:
    """Whether a dialled number is one of the emergency services' (`EMERGENCY_NUMBERS`)."""
    return digits(number) in EMERGENCY_NUMBERS


def numbers_normalised(value: T, type_: Any) -> T:
    """`value`, decoded as `type_`, with every string of a number field normalised."""
    fix = _fix(type_)
    return value if fix is None else fix(value)


@functools.cache
def _fix(type_: Any) -> Fix | None:
    return _fix_of(mi.type_info(type_), frozenset())


def _fix_of(info: mi.Type, seen: frozenset[type]) -> Fix | None:
    """What rewrites a value of the type `info` describes (None: it holds no number field). Each fix
    leaves a value of another kind alone, so the members of a union are tried in turn."""
    if isinstance(info, mi.Metadata):
        if (info.extra or {}).get(_MARK):
            return lambda v: normalised(v) if isinstance(v, str) else v
        return _fix_of(info.type, seen)
    if isinstance(info, mi.UnionType):
        fixes = [fix for member in info.types if (fix := _fix_of(member, seen)) is not None]
        return functools.reduce(lambda f, g: lambda v: g(f(v)), fixes) if fixes else None
    if isinstance(info, mi.ListType | mi.VarTupleType | mi.SetType | mi.FrozenSetType):
        item = _fix_of(info.item_type, seen)
        kinds = (list, tuple, set, frozenset)
        return None if item is None else lambda v: type(v)(map(item, v)) if isinstance(v, kinds) else v
    if isinstance(info, mi.DictType):
        entry = _fix_of(info.value_type, seen)
        return None if entry is None else lambda v: {k: entry(x) for k, x in v.items()} if isinstance(v, dict) else v
    if isinstance(info, mi.StructType) and info.cls not in seen:
        fields = [(f.name, fix) for f in info.fields if (fix := _fix_of(f.type, seen | {info.cls})) is not None]
        if not fields:
            return None
        cls = info.cls

        def struct(v: Any) -> Any:
            if not isinstance(v, cls):
                return v
            return msgspec.structs.replace(v, **{name: fix(getattr(v, name)) for name, fix in fields})

        return struct
    return None
