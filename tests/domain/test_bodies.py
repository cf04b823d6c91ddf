"""Reading a body names every problem at once: each bad field (nested, in lists), each field the body does
not take, each coded value outside its dictionary, each integer beyond 64 bits, then what the caller's
check finds in what could be read; and a body sent back with read-only fields is told apart."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from telephony.domain.bodies import NOT_HERE, READ_ONLY, changed, echoes, echoing, read
from telephony.domain.types import Code, Email, coded


class Slot(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    hour: Annotated[int, msgspec.Meta(ge=0, le=23)]
    kind: Annotated[Code, coded("frequency_type")] = "daily"


class Plan(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    name: Annotated[str, msgspec.Meta(min_length=1)]
    emails: Annotated[list[Email], msgspec.Meta(min_length=1, max_length=2)]
    slot: Slot | None = None
    count: int = 0
    notes: dict[str, Any] = {}


def fields_of(problems: list[tuple[str | None, str]]) -> list[str | None]:
    return [field for field, _ in problems]


def test_a_valid_body_is_read_whole_without_a_problem():
    value, problems = read({"name": "a", "emails": ["x@example.com"], "slot": {"hour": 9, "kind": "weekly"}}, Plan)
    assert problems == [] and value == Plan(name="a", emails=["x@example.com"], slot=Slot(hour=9, kind="weekly"))


def test_every_bad_field_is_named_once_in_the_order_sent_and_missing_ones_last():
    raw = {"count": "two", "slot": {"hour": 24, "kind": "hourly", "extra": 1}, "emails": ["x", "y@example.com", "z"],
           "surprise": True}  # fmt: skip
    value, problems = read(raw, Plan)
    assert fields_of(problems) == ["count", "slot.hour", "slot.kind", "slot.extra", "emails", "emails[0]",
                                   "emails[2]", "surprise", "name"]  # fmt: skip
    said = dict(problems)
    assert said["slot.hour"] == "Expected an integer at most 23"
    assert said["slot.kind"].startswith("'hourly' is not a valid frequency_type")
    assert said["emails"] == "Expected an array of at most 2 items"
    assert said["surprise"] == NOT_HERE and said["name"] == "This field is required"
    assert value is not None and value.count is msgspec.UNSET and value.name is msgspec.UNSET


def test_an_integer_beyond_64_bits_is_named_wherever_it_is():
    _, problems = read({"name": "a", "emails": ["x@example.com"], "count": 2**63, "notes": {"deep": [1, -(2**64)]}},
                       Plan)  # fmt: skip
    assert fields_of(problems) == ["count", "notes.deep[1]"]
    assert all("does not fit in a 64-bit integer" in message for _, message in problems)


def test_the_check_sees_what_could_be_read_and_its_problems_join_the_others():
    seen = []

    def check(plan: Plan) -> list[tuple[str | None, str]]:
        seen.append(plan)
        return [("count", "too many")] if plan.count == 7 else []

    _, problems = read({"name": "", "emails": ["x@example.com"], "count": 7}, Plan, check)
    assert problems == [("name", "Expected a string of at least 1 character"), ("count", "too many")]
    assert seen[0].name is msgspec.UNSET and seen[0].emails == ["x@example.com"]


def test_a_list_body_names_the_fields_of_its_items():
    _, problems = read([{"hour": 1}, {"hour": "one"}, {"kind": "weekly"}], list[Slot])
    assert problems == [("hour", "Expected an integer, got a string"), ("hour", "This field is required")]


class Thing(msgspec.Struct, kw_only=True):
    id: int = 0
    name: str | None = None
    created_at: str | None = None


class ThingPatch(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    name: str | None | msgspec.UnsetType = msgspec.UNSET


def test_a_body_echoing_its_model_takes_the_records_other_fields_read_only():
    patch = echoing(ThingPatch, Thing)
    value, problems = read({"id": 3, "name": "new", "created_at": "2026-01-01 00:00:00"}, patch)
    assert problems == [] and value.name == "new"
    assert echoes(value) == {"id": 3, "created_at": "2026-01-01 00:00:00"}
    record = {"id": 3, "name": "old", "created_at": "2025-12-31 00:00:00"}
    assert changed(echoes(value), record) == [("created_at", READ_ONLY)]
    assert read({"id": "three"}, patch)[1] == [("id", "Expected an integer, got a string")]  # as the model types it
