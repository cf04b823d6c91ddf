"""Event types: declared once, frozen, tagged; stored as their Struct encodes them without the tag; read
back as the Struct, upcast from an older schema; the four of every kind of record made from one declaration."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import ClassVar

import msgspec
import pytest

from telephony.domain.calls.call import Party, Plan
from telephony.domain.events import EVENTS, RESOURCES, Catalogue, Event, UnreadableEvent, tag_of
from telephony.domain.events.base import Upcaster
from telephony.domain.events.calls import CallPlaced, CallRouted
from telephony.domain.events.resources import ResourceCreated, resource_events
from telephony.domain.schemas import Cdr, Contact, QueueMember


def test_every_type_is_a_frozen_keyword_only_struct_stored_under_a_dotted_tag():
    for cls in EVENTS:
        config, parameters = cls.__struct_config__, inspect.signature(cls).parameters.values()
        assert config.frozen and config.omit_defaults and all(p.kind is p.KEYWORD_ONLY for p in parameters), cls
        assert "." in tag_of(cls) and EVENTS.types[tag_of(cls)] is cls


def test_two_types_of_one_tag_are_refused():
    class Again(Event, frozen=True, tag="call.placed"):
        pass

    with pytest.raises(ValueError, match="two event types are tagged 'call.placed'"):
        EVENTS.with_types(Again)


def test_an_event_is_stored_without_its_tag_and_its_fields_at_their_default_and_reads_back_equal():
    placed = CallPlaced(id=7, at=1.5, customer_id=1, user_id=None, kind="click", first="src", src=Party(number="201"),
                        dst=Party(number="+447700900123"), dialled="+447700900123", clid=None, context="PSTN_CALL",
                        destination="out", record=False, plan=Plan(), claims={"call": [7]})  # fmt: skip
    tag, schema, data = EVENTS.written(placed)
    stored = msgspec.json.decode(data)
    assert (tag, schema) == ("call.placed", 1) and "type" not in stored
    assert stored["user_id"] is None and "parent_id" not in stored and "webcall_id" not in stored
    assert EVENTS.read(tag, schema, data) == placed


def test_an_unset_field_is_left_out_and_reads_back_unset():
    routed = CallRouted(id=1, at=2.0, dst=Party(number="220"), context="PSTN_CALL", plan=Plan(), fallback=None)
    _, _, data = EVENTS.written(routed)
    assert "user_id" not in msgspec.json.decode(data)
    assert EVENTS.read("call.routed", 1, data).user_id is msgspec.UNSET  # type: ignore[attr-defined]


class Renamed(Event, frozen=True, tag="thing.renamed"):
    """Schema 3: `label` was `title` (schema 1), then `name` (schema 2)."""

    schema: ClassVar[int] = 3
    upcasters: ClassVar[Mapping[int, Upcaster]] = {1: lambda d: {"name": d["title"]}, 2: lambda d: {"label": d["name"]}}
    label: str


def test_stored_data_of_an_older_schema_is_upcast_step_by_step_and_a_newer_one_is_refused():
    catalogue = Catalogue([Renamed])
    assert catalogue.read("thing.renamed", 1, b'{"title":"a"}') == Renamed(label="a")
    assert catalogue.read("thing.renamed", 2, b'{"name":"b"}') == Renamed(label="b")
    assert catalogue.changes("thing.renamed") and not EVENTS.changes("call.placed")
    with pytest.raises(UnreadableEvent, match="newer than this build reads"):
        catalogue.read("thing.renamed", 4, b"{}")
    with pytest.raises(UnreadableEvent, match="unknown event type 'nothing.known'"):
        catalogue.read("nothing.known", 1, b"{}")
    with pytest.raises(UnreadableEvent, match="does not read as Renamed"):
        catalogue.read("thing.renamed", 3, b'{"name":"c"}')


def test_an_event_of_a_type_the_catalogue_does_not_hold_is_not_written():
    with pytest.raises(UnreadableEvent, match="not in the catalogue"):
        Catalogue([]).written(Renamed(label="x"))


def test_each_kind_of_record_has_its_four_events_from_one_declaration():
    contact = RESOURCES["contact"]
    assert [tag_of(cls) for cls in contact.all] == ["contact.created", "contact.updated", "contact.deleted",
                                                    "contact.cleared"]  # fmt: skip
    assert issubclass(contact.created, ResourceCreated) and contact.created.kind == "contact"
    made = contact.made(1, 2, {"id": 1, "first_name": "Ann"})
    assert made.body == Contact(id=1, first_name="Ann") and EVENTS.read(*EVENTS.written(made)) == made
    changed = contact.updated(id=1, changes={"first_name": "Bo", "labels": None})
    assert EVENTS.read(*EVENTS.written(changed)) == changed
    assert RESOURCES["user"].created.__name__ == "UserCreated"  # a kind's own creation, with its credentials


def test_a_change_is_stored_with_its_fields_in_the_order_it_set_them():
    """As the log has always held them: a number's target is set type first, while its record (and a
    change of its own declaration's order) puts the id first."""
    moved = RESOURCES["ddi"].updated(id="+442000000001", changes={"target_type": 4, "target_id": 1})
    stored = EVENTS.written(moved)[2]
    assert stored == b'{"id":"+442000000001","changes":{"target_type":4,"target_id":1}}'
    assert (
        EVENTS.read("ddi.updated", 1, stored) == moved
        and EVENTS.written(EVENTS.read("ddi.updated", 1, stored))[2] == stored
    )


def test_a_record_is_checked_against_its_types_as_its_event_is_made():
    with pytest.raises(msgspec.ValidationError, match=r"\$.first_name"):
        RESOURCES["contact"].made(1, 2, {"id": 1, "first_name": 5})
    made = RESOURCES["queue"].made(1, 2, {"id": 1, "users": [{"id": 7, "status": False}]})
    assert made.body.users == [QueueMember(id=7, status=False)]


def test_a_record_or_a_change_its_types_refuse_is_read_as_stored_and_written_the_same():
    """What a log written before records were typed may hold (a record imported before imports were
    checked): its values as stored, unchecked; a field its record lacks is not read."""
    stored = b'{"id":1,"customer_id":2,"body":{"id":1,"duration":1.5,"calldate":12345,"src":null,"lost":true}}'
    made = EVENTS.read("cdr.created", 1, stored)
    assert isinstance(made.body, Cdr) and (made.body.duration, made.body.calldate) == (1.5, 12345)
    assert b'"duration":1.5' in EVENTS.written(made)[2] and b"lost" not in EVENTS.written(made)[2]
    changed = b'{"id":1,"changes":{"first_name":["Ann"],"email":5}}'
    assert EVENTS.written(EVENTS.read("contact.updated", 1, changed))[2] == changed


def test_a_record_without_a_field_its_type_requires_is_not_read():
    with pytest.raises(UnreadableEvent, match="does not read as UserCreated"):
        EVENTS.read("user.created", 1, b'{"id":1,"customer_id":2,"body":{"email":5},"password_hash":"h"}')
    with pytest.raises(UnreadableEvent, match="does not read as CallPlaced"):
        EVENTS.read("call.placed", 1, b'{"id":"one"}')


def test_a_kinds_own_creation_must_carry_its_tag():
    with pytest.raises(ValueError, match="is not tagged note.created"):
        resource_events("note", created=RESOURCES["contact"].created)
