"""Copy and edit: a client that GETs a record and PATCHes the same body back succeeds, and the record
stays as it was. Fields the GET shows that a PATCH cannot set (ids, times, what the server derives)
are read-only: taken back unchanged, a 400 naming them when changed; a field fixed at creation may be
sent back unchanged. Nothing a body sends is dropped without a word.

Generated over every resource with a single or bulk PATCH, each record naming real records where its
resource has references (queue members, ring group numbers, final destinations, ...).
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from telephony.domain.bodies import READ_ONLY
from telephony.registry.catalogue import BY_PATH
from telephony.registry.resource import Op, Resource
from tests.registry.conftest import LOOP, item_path, linked_body, make, shown, with_op

pytestmark = LOOP


@pytest.mark.parametrize("resource", with_op(Op.UPDATE, Op.BULK_PATCH))
async def test_a_records_own_get_body_patched_back_is_accepted_and_changes_nothing(api, home, resource):
    if Op.CREATE in resource.all_ops:
        body = await linked_body(api, resource, home)
        record = (await api.ok("POST", f"/{resource.path}", home, status=201, json=body))["data"]
    else:
        record = await make(api, resource, home)
    got = await shown(api, resource, home, record["id"])
    assert got is not None
    if Op.UPDATE in resource.all_ops:
        assert (await api.ok("PATCH", item_path(resource, record["id"]), home, json=got))["data"] == got
    if Op.BULK_PATCH in resource.all_ops:
        assert await api.ok("PATCH", f"/{resource.path}", home, json=[got]) == {"data": [got], "total": 1}
    assert await shown(api, resource, home, record["id"]) == got


async def test_a_users_own_get_body_patched_back_in_bulk_is_accepted_and_changes_nothing(api, home):
    got = (await api.ok("GET", f"/users/{home.user_id}", home))["data"]
    assert await api.ok("PATCH", "/users", home, json=[got]) == {"data": [got], "total": 1}
    assert (await api.ok("GET", f"/users/{home.user_id}", home))["data"] == got


# --- nothing sent is dropped without a word -----------------------------------------------------------


def changed_value(value: Any, type_: Any) -> Any:
    """A value a field of `type_` takes that differs from `value`."""
    for candidate in ("changed", 12345, not value if isinstance(value, bool) else True, [1], {"a": 1}):
        try:
            msgspec.convert(candidate, type_)
        except msgspec.ValidationError:
            continue
        if candidate != value:
            return candidate
    raise AssertionError(f"no other value for {type_}")


def read_only_field(resource: Resource, body: type[msgspec.Struct], record: dict) -> tuple[str, Any]:
    """A field the record shows that `body` (its PATCH or bulk item) cannot set, other than its id when it
    has another, and a changed value of it."""
    echoed = getattr(body, "echoed", {})
    fields = {f.encode_name: f.type for f in msgspec.structs.fields(body) if f.encode_name in echoed.values()}
    name = next((n for n in sorted(fields) if n != "id"), "id")
    return name, changed_value(record[name], fields[name])


@pytest.mark.parametrize("resource", with_op(Op.UPDATE, Op.BULK_PATCH))
async def test_a_read_only_field_sent_changed_is_a_400_naming_it_and_changes_nothing(api, home, resource):
    record = await make(api, resource, home)
    got = await shown(api, resource, home, record["id"])
    assert got is not None
    if Op.UPDATE in resource.all_ops:
        assert resource.patch is not None
        name, value = read_only_field(resource, resource.patch, got)
        reply = await api.call("PATCH", item_path(resource, record["id"]), home, json={**got, name: value})
        assert reply.error(400)["errors"] == [{"field": name, "message": READ_ONLY}]
    if Op.BULK_PATCH in resource.all_ops:
        assert resource.bulk_body is not None
        name, value = read_only_field(resource, resource.bulk_body, got)
        reply = await api.call("PATCH", f"/{resource.path}", home, json=[{**got, name: value}])
        assert reply.error(400)["errors"] == [{"field": name, "message": READ_ONLY}]
    assert await shown(api, resource, home, record["id"]) == got


@pytest.mark.parametrize("resource", with_op(Op.CREATE))
async def test_every_field_a_create_body_takes_is_kept_or_checked_never_dropped(resource):
    assert resource.create is not None
    stored_as = getattr(resource.create, "stored_as", {})
    taken = {stored_as.get(f.encode_name, f.encode_name) for f in msgspec.structs.fields(resource.create)}
    assert taken - resource.model_fields - resource.ref_fields - {resource.attachment} == set()


async def test_a_contact_keeps_its_speed_dials_labels_groups_and_transfer_flag(api, home):
    sent = {"first_name": "Ann", "speed_dial_phone": "11", "speed_dial_mobile_2": "12", "labels": ["vip"],
            "groups": [3], "transfer_list": True}  # fmt: skip
    made = (await api.ok("POST", "/contacts", home, status=201, json=sent))["data"]
    assert {k: made[k] for k in sent} == sent
    again = await shown(api, BY_PATH["contacts"], home, made["id"]) or {}
    assert {k: again[k] for k in sent} == sent


async def test_every_problem_against_the_stored_records_is_named_at_once(api, home):
    queue = (await api.ok("POST", "/queues", home, status=201, json={"name": "Sales"}))["data"]
    reply = await api.call("PATCH", f"/queues/{queue['id']}", home,
                           json={"id": queue["id"] + 1, "users": [999999999], "final_dst_type": "Q",
                                 "final_dst_id": 999999999})  # fmt: skip
    assert reply.error(400)["errors"] == [
        {"field": "id", "message": READ_ONLY}, {"field": "users", "message": "User 999999999 not found"},
        {"field": "final_dst_id", "message": "Queue 999999999 not found"}]  # fmt: skip
