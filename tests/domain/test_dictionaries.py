"""Dictionaries: lenient lookup of codes and names, strict rejection, one declaration per dictionary."""

import dataclasses

import pytest

from telephony.domain import dictionaries as d
from telephony.domain.dictionaries import DICTIONARIES, RESOURCE_DICTIONARIES, Dictionary, resource_dictionaries

ACCEPTED = [
    (d.CDR_TYPE, "O", "O"),
    (d.CDR_TYPE, "outbound", "O"),
    (d.CDR_TYPE, "Inbound", "I"),
    (d.CDR_TYPE, "m", "M"),
    (d.DISPOSITION, "connected", "CONNECTED"),
    (d.DESTINATION, "callmeback", "callmeback"),
    (d.CALL_STATE, "HANGUP", 5),
    (d.CALL_STATE, 0, 0),
    (d.TARGET_TYPE, "U", 1),
    (d.TARGET_TYPE, "queue", 5),
    (d.TARGET_TYPE, "5", 5),
    (d.RINGGROUP_STRATEGY, "A", 1),
    (d.RINGGROUP_STRATEGY, "memoryhunt", 3),
    (d.LANGUAGE, "EN", 1),
    (d.CULTURE, "en-us", 2),
    (d.ROUTING_DIRECTION, "in", 1),
    (d.ROUTING_DIRECTION, "outbound", 2),
    (d.QUEUE_MONITOR, "N", 0),
    (d.SENTIMENT, "negative", -1),
    (d.SENTIMENT, "-1", -1),
    (d.VOICEMESSAGE_FOLDER, "old", 1),
    (d.REPORT_FORMAT, " pdf ", 1),
]

REJECTED = [
    (d.CDR_TYPE, "X"),
    (d.CDR_TYPE, 1),
    (d.TARGET_TYPE, 99),
    (d.TARGET_TYPE, "Z"),
    (d.LANGUAGE, True),
    (d.LANGUAGE, None),
    (d.LANGUAGE, 1.0),
    (d.CONTEXT, ""),
]


@pytest.mark.parametrize(("dictionary", "value", "code"), ACCEPTED)
def test_a_code_or_a_name_gives_the_code(dictionary, value, code):
    assert dictionary.to_code(value) == code


@pytest.mark.parametrize(("dictionary", "value"), REJECTED)
def test_an_unknown_value_is_refused_with_the_allowed_values(dictionary, value):
    with pytest.raises(ValueError, match=f"not a valid {dictionary.name}; allowed values: ") as caught:
        dictionary.to_code(value)
    assert str(next(iter(dictionary.entries))) in str(caught.value)


@pytest.mark.parametrize("dictionary", DICTIONARIES.values(), ids=list(DICTIONARIES))
def test_every_code_round_trips_through_its_name(dictionary):
    for code, name in dictionary.entries.items():
        assert dictionary.to_code(code) == code
        assert dictionary.to_name(code) == name
        assert dictionary.to_code(name) == code


@pytest.mark.parametrize("dictionary", DICTIONARIES.values(), ids=list(DICTIONARIES))
def test_the_wire_form_lists_the_entries_in_order(dictionary):
    wire = dictionary.as_wire()
    assert [(item["code"], item["name"]) for item in wire] == list(dictionary.entries.items())


def test_every_declared_dictionary_is_registered_under_its_name():
    declared = {value.name: value for value in vars(d).values() if isinstance(value, Dictionary)}
    assert declared == dict(DICTIONARIES)


def test_every_resource_field_names_a_known_dictionary():
    for resource, fields in RESOURCE_DICTIONARIES.items():
        for field, name in fields.items():
            assert name in DICTIONARIES, f"{resource}.{field} names unknown dictionary {name!r}"


def test_a_resource_answers_its_dictionaries_by_field():
    answer = resource_dictionaries("cdrs")
    assert set(answer) == {"type", "disposition", "destination", "context"}
    assert {"code": "M", "name": "missed"} in answer["type"]
    assert resource_dictionaries("no-such-resource") == {}


def test_a_spelling_that_names_two_codes_is_refused_when_declared():
    with pytest.raises(ValueError, match="names two codes"):
        Dictionary.parse("clash", "A:b B:a")


def test_a_dictionary_cannot_be_changed():
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.CDR_TYPE.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        d.CDR_TYPE.entries["X"] = "extra"  # type: ignore[index]
