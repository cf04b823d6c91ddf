"""Validation problems in plain words: every msgspec wording the API can meet becomes a sentence
that names what was expected, never a regular expression or a type in backticks."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
import pytest

from telephony.domain import phone
from telephony.domain.types import E164, Email, WireTime
from telephony.domain.validation import patterns_of, plain, problem


class Inner(msgspec.Struct, kw_only=True):
    id: int


class Body(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    to: E164 | None = None
    email: Email | None = None
    at: WireTime | None = None
    count: Annotated[int, msgspec.Meta(ge=1, le=10)] = 1
    ratio: Annotated[float, msgspec.Meta(gt=0, lt=1, multiple_of=0.25)] = 0.5
    name: Annotated[str, msgspec.Meta(min_length=2, max_length=4)] = "ab"
    tags: Annotated[list[str], msgspec.Meta(max_length=1)] = []
    kind: Literal["a", "b"] = "a"
    flag: bool = False
    items: list[Inner] = []
    code: Annotated[str, msgspec.Meta(pattern="^[A-Z]{2}$")] = "AB"


CASES = [  # body, field named, words the message must hold
    ({"to": "abc"}, "to", "an E.164 number"),
    ({"email": "nope"}, "email", "an email address"),
    ({"at": "٢٠٢٦-٠٧-٠١ ٠٩:٣٠:٠٠"}, "at", "YYYY-MM-DD HH:MM:SS"),
    ({"count": 0}, "count", "at least 1"),
    ({"count": 11}, "count", "at most 10"),
    ({"count": "1"}, "count", "Expected an integer, got a string"),
    ({"ratio": 0}, "ratio", "greater than 0"),
    ({"ratio": 0.3}, "ratio", "multiple of 0.25"),
    ({"name": "a"}, "name", "at least 2 characters"),
    ({"name": "abcde"}, "name", "at most 4 characters"),
    ({"tags": ["a", "b"]}, "tags", "at most 1 item"),
    ({"kind": "c"}, "kind", "'c' is not one of the allowed values"),
    ({"flag": "yes"}, "flag", "Expected true or false, got a string"),
    ({"items": [{}]}, "items[0].id", "This field is required"),
    ({"items": [{"id": None}]}, "items[0].id", "Expected an integer, got null"),
    ({"surprise": 1}, "surprise", "This field is not allowed here"),
    ({"to": 5}, "to", "Expected a string or null, got an integer"),
    ({"code": "abc"}, "code", "not in the expected format"),
]


@pytest.mark.parametrize(("body", "field", "words"), CASES, ids=[c[1] + ":" + c[2] for c in CASES])
def test_a_problem_names_its_field_and_what_was_expected_in_plain_words(body, field, words):
    with pytest.raises(msgspec.ValidationError) as raised:
        msgspec.convert(body, Body)
    named, message = problem(raised.value, Body)
    assert named == field
    assert words in message
    assert not any(mark in message for mark in ("`", "regex", "$.", "^", "Object "))


def test_patterns_are_found_with_their_descriptions_in_nested_types():
    found = patterns_of(list[Body])
    assert found[f"^{phone.NUMBER}$"].startswith("an E.164 number")
    assert found["^[A-Z]{2}$"] is None  # undescribed: the API's own patterns never are


@pytest.mark.parametrize("wording", ["Expected `str`", "Expected `int | null`", "Something `odd` happened"])
def test_other_wordings_lose_their_backticks(wording: Any):
    assert "`" not in plain(wording)
