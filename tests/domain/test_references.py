"""Reference fields: what a document names through each, and the change that drops a removed record."""

from __future__ import annotations

import pytest

from telephony.domain.references import Destination, Ref, codes_of

MEMBERS = Ref("users", "user", many=True, member="id")
NUMBERS = Ref("ddis", "ddi", many=True, number=True)


def gone(kind: str, *ids):
    return lambda k, i: k == kind and i in ids


def test_a_single_reference_names_its_record_and_is_nulled_when_it_goes():
    ref, contact = Ref("user_id", "user"), {"id": 1, "user_id": 7}
    assert ref.named(contact) == [("user", 7)]
    assert ref.without(contact, gone("user", 7)) == {"user_id": None}
    assert ref.without(contact, gone("user", 8)) == {}
    assert ref.without(contact, gone("queue", 7)) == {}
    assert ref.named({"user_id": None}) == []


def test_a_list_of_members_loses_only_the_removed_one_and_keeps_the_others_state():
    queue = {"users": [{"id": 7, "status": False}, {"id": 8, "status": True}]}
    assert MEMBERS.named(queue) == [("user", 7), ("user", 8)]
    assert MEMBERS.without(queue, gone("user", 7)) == {"users": [{"id": 8, "status": True}]}


def test_a_number_is_named_by_its_id_however_it_is_spelled():
    assert NUMBERS.named({"ddis": ["+442071234567", "442071234568"]}) == [("ddi", "+442071234567"),
                                                                          ("ddi", "+442071234568")]  # fmt: skip
    assert Ref("ddi", "ddi", number=True).named({"ddi": 442071234567}) == [("ddi", "+442071234567")]
    assert NUMBERS.normal(["442071234567", "+442071234568"]) == ["+442071234567", "+442071234568"]
    assert NUMBERS.without({"ddis": ["442071234567"]}, gone("ddi", "+442071234567")) == {"ddis": []}


@pytest.mark.parametrize(
    ("type_", "kind"),
    [("U", "user"), ("V", "user"), (1, "user"), (2, "user"), ("Q", "queue"), (5, "queue"), ("R", "ringgroup"),
     (4, "ivr"), ("C", "conference")],
)  # fmt: skip
def test_a_final_destination_names_the_kind_its_type_says(type_, kind):
    assert Destination().named({"final_dst_type": type_, "final_dst_id": 9}) == [(kind, 9)]
    assert type_ in codes_of(kind)


@pytest.mark.parametrize("document", [{"final_dst_type": "H", "final_dst_id": 9},
                                      {"final_dst_type": "U", "final_dst_id": None},
                                      {"final_dst_type": None, "final_dst_id": 9}])  # fmt: skip
def test_a_hang_up_or_a_destination_without_id_or_type_names_nothing(document):
    assert Destination().named(document) == []


def test_a_destination_whose_target_goes_takes_its_default():
    user = {"fm_final_dst_type": "Q", "fm_final_dst_id": 5}
    forwarding = Destination("fm_final_dst_type", "fm_final_dst_id", cleared=("H", None))
    assert forwarding.without(user, gone("queue", 5)) == {"fm_final_dst_type": "H", "fm_final_dst_id": None}
    assert forwarding.without(user, gone("user", 5)) == {}
