"""Shared wire types: number, email and time formats, and dictionary-backed fields."""

from typing import Annotated

import msgspec
import pytest

from telephony.domain.phone import normalised, numbers_normalised
from telephony.domain.types import E164, Body, Code, Email, Resource, WireDate, WireTime, coded, dictionary_fields

FORMATS = [
    (E164, "+447700900123", True),
    (E164, "447700900123", True),
    (E164, "+1234567", True),
    (E164, "123456789012345", True),
    (E164, "abc", False),
    (E164, "+0123", False),
    (E164, "+0447700900123", False),
    (E164, "123456", False),
    (E164, "1234567890123456", False),
    (E164, "+44 7700 900123", True),  # as people write them: separators between the digits
    (E164, "+1 (415) 555-0123", True),
    (E164, "44.7700.900.123", True),
    (E164, "+44 (0)20 7123 4567", True),
    (E164, "+44 7700 9001ab", False),
    (E164, "+44 --- 7700 900123", False),
    (E164, "+44 7700 900123 ", False),
    (E164, "- 447700900123", False),
    (E164, "12-34-5", False),
    (E164, "", False),
    (Email, "ann@example.com", True),
    (Email, "ann@example", False),
    (Email, "ann example.com", False),
    (WireTime, "2026-07-01 09:30:00", True),
    (WireTime, "2026-07-01T09:30:00", False),
    (WireTime, "2026-07-01", False),
    (WireTime, "٢٠٢٦-٠٧-٠١ ٠٩:٣٠:٠٠", False),  # digits, but not ASCII ones
    (WireDate, "2026-07-01", True),
    (WireDate, "01/07/2026", False),
    (WireDate, "２０２６-０７-０１", False),
]


@pytest.mark.parametrize(("annotation", "value", "valid"), FORMATS)
def test_a_formatted_string_is_accepted_only_in_its_format(annotation, value, valid):
    if valid:
        assert msgspec.convert(value, annotation) == value
    else:
        with pytest.raises(msgspec.ValidationError):
            msgspec.convert(value, annotation)


class Widget(Body):
    language: Annotated[Code, coded("language")]
    culture: Annotated[Code, coded("culture")] | None = None
    name: str | None = None


def test_dictionary_fields_are_found_through_optional_and_unset():
    patch = msgspec.defstruct(
        "WidgetPatch",
        [(f.name, f.type | msgspec.UnsetType, msgspec.UNSET) for f in msgspec.structs.fields(Widget)],
        kw_only=True,
    )
    expected = {"language": "language", "culture": "culture"}
    assert dictionary_fields(Widget) == expected
    assert dictionary_fields(patch) == expected


def test_a_coded_field_takes_a_code_or_a_name_but_not_other_types():
    assert msgspec.convert({"language": "en"}, Widget).language == "en"
    assert msgspec.convert({"language": 1}, Widget).language == 1
    with pytest.raises(msgspec.ValidationError, match=r"\$\.language"):
        msgspec.convert({"language": 1.5}, Widget)


def test_an_unknown_dictionary_is_refused_when_the_schema_is_declared():
    with pytest.raises(ValueError, match="unknown dictionary 'nope'"):
        coded("nope")


class Thing(Resource):
    id: int = 0
    from_: str | None = msgspec.field(default=None, name="from")
    count: int | None = None


def test_a_resource_decodes_a_partial_document_and_writes_every_field():
    thing = msgspec.json.decode(b'{"id": 7}', type=Thing)
    assert msgspec.json.decode(msgspec.json.encode(thing)) == {"id": 7, "from": None, "count": None}


def test_a_body_refuses_a_field_it_does_not_have():
    with pytest.raises(msgspec.ValidationError, match="unknown field `extra`"):
        msgspec.convert({"language": "en", "extra": 1}, Widget)


@pytest.mark.parametrize(
    ("written", "number"),
    [
        ("+44 7700 900123", "+447700900123"),
        ("447700900123", "447700900123"),
        ("+1 (415) 555-0123", "+14155550123"),
        ("44.7700.900.123", "447700900123"),
        ("+44 (0)20 7123 4567", "+442071234567"),  # the trunk prefix after the country code is not dialled
    ],
)
def test_a_number_is_normalised_to_its_digits_and_its_plus_as_given(written, number):
    assert normalised(written) == number


class Numbered(Body):
    to: E164
    ddis: list[E164] | None = None
    name: str | None = None


def test_every_number_field_of_a_decoded_body_is_normalised_however_deep():
    class Outer(Body):
        inner: list[Numbered]
        note: str = "+44 7700 900123"

    body = msgspec.convert({"inner": [{"to": "+44 7700 900123", "ddis": ["44-20-7123-0000"], "name": "a b.c"}]},
                           Outer)  # fmt: skip
    (inner,) = numbers_normalised(body, Outer).inner
    assert (inner.to, inner.ddis, inner.name) == ("+447700900123", ["442071230000"], "a b.c")
    assert numbers_normalised(body, Outer).note == "+44 7700 900123"  # not a number field: left as written
