"""Each resource's model is the record its kind's events carry, and a record the registry makes is
stored in the bytes its document was stored in before typed events (`{id, customer_id, body}` with the
document as a dict), whatever fields its create body sets, and read back it is written the same."""

from __future__ import annotations

import msgspec
import pytest

from telephony.domain.events import EVENTS, RESOURCES, events_of
from telephony.domain.events.records import RECORDS
from telephony.registry.catalogue import RESOURCES as REGISTRY
from telephony.registry.coercion import fields_of, new_document
from telephony.registry.resource import Resource
from tests.registry.conftest import example_body

NOW = "2026-07-01 12:00:00"


def test_every_resource_of_the_registry_keeps_the_record_of_its_kind():
    assert {resource.kind: resource.model for resource in REGISTRY} == {
        resource.kind: RECORDS[resource.kind] for resource in REGISTRY
    }
    assert set(RECORDS) == set(RESOURCES)


@pytest.mark.parametrize("resource", REGISTRY, ids=lambda resource: resource.kind)
def test_a_record_the_registry_makes_is_stored_as_its_document_was(resource: Resource):
    sent = msgspec.convert(example_body(resource), resource.create) if resource.create is not None else None
    fields = fields_of(resource, sent, creating=True) if sent is not None else {}
    id_ = "+442000000001" if resource.text_ids else 7
    document = new_document(resource, fields, id_, 100001, NOW)
    stored = EVENTS.written(events_of(resource.kind).made(id_, 100001, document))
    assert stored[2] == msgspec.json.encode({"id": id_, "customer_id": 100001, "body": document})
    assert EVENTS.written(EVENTS.read(*stored))[2] == stored[2]  # as a read model writes it again
