"""Every resource of the catalogue, through every operation it declares, on both versions: the
statuses and envelopes of the spec, round trips, ownership, validation, authentication, ACL and 405.

The cases are generated from `telephony.registry.catalogue.RESOURCES`: a new resource is tested by
declaring it.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from telephony import wiring
from telephony.api.route_table import template
from telephony.domain.dictionaries import DICTIONARIES
from telephony.registry.catalogue import RESOURCES
from telephony.registry.resource import Op, Resource
from telephony.registry.views import VIEWS
from tests.registry.conftest import (
    LOOP,
    SERVICE,
    VERSIONS,
    WRITES,
    a_change,
    every_op,
    example_body,
    first_required,
    ids_of,
    item_path,
    make,
    make_many,
    request_of,
    scalar_fields,
    shown,
    unknown_id,
    with_op,
    with_op_and_version,
    wrong_field,
)

pytestmark = LOOP


def self_link(version: str, resource: Resource, id_: Any) -> str:
    return f"/{version}/{SERVICE}/{resource.path}/{id_}"


# --- success: statuses, envelopes, round trips ---------------------------------------------------


@pytest.mark.parametrize(("resource", "version"), with_op_and_version(Op.LIST))
async def test_a_list_answers_data_and_a_numeric_total_of_the_callers_records_only(api, home, other, resource, version):
    mine, theirs = await make(api, resource, home), await make(api, resource, other)
    body = await api.ok("GET", f"/{resource.path}", home, version=version, params={"limit": 5000})
    assert set(body) == {"data", "total"}
    assert isinstance(body["total"], int) and body["total"] == len(body["data"])
    assert mine["id"] in ids_of(body["data"])
    assert theirs["id"] not in ids_of(body["data"])


@pytest.mark.parametrize(("resource", "version"), with_op_and_version(Op.CREATE))
async def test_create_answers_201_with_the_record_and_its_url(api, home, resource, version):
    sent = example_body(resource, home)
    reply = await api.call("POST", f"/{resource.path}", home, version=version, json=sent)
    assert reply.status == 201, reply
    assert set(reply.body) == {"data", "links"}
    assert reply.body["links"]["self"] == self_link(version, resource, reply.data["id"])
    assert {name: reply.data[name] for name, _ in scalar_fields(resource)} == {
        name: sent[name] for name, _ in scalar_fields(resource)
    }


@pytest.mark.parametrize("resource", with_op(Op.CREATE))
async def test_a_created_record_reads_back_as_created(api, home, resource):
    created = await make(api, resource, home)
    assert await shown(api, resource, home, created["id"]) == created


@pytest.mark.parametrize(("resource", "version"), with_op_and_version(Op.GET))
async def test_get_answers_the_record_and_its_url(api, home, resource, version):
    record = await make(api, resource, home)
    body = await api.ok("GET", item_path(resource, record["id"]), home, version=version)
    assert set(body) == {"data", "links"}
    assert body["data"] == record
    assert body["links"]["self"] == self_link(version, resource, record["id"])


@pytest.mark.parametrize(("resource", "version"), with_op_and_version(Op.UPDATE))
async def test_patch_changes_only_the_fields_it_sends(api, home, resource, version):
    record = await make(api, resource, home)
    before = await shown(api, resource, home, record["id"])
    name, value = a_change(resource, before)
    body = await api.ok("PATCH", item_path(resource, record["id"]), home, version=version, json={name: value})
    assert set(body) == {"data", "links"}
    assert body["links"]["self"] == self_link(version, resource, record["id"])
    assert body["data"] == {**before, name: value}
    assert await shown(api, resource, home, record["id"]) == body["data"]


@pytest.mark.parametrize("resource", with_op(Op.UPDATE))
async def test_an_empty_patch_changes_nothing(api, home, resource):
    record = await make(api, resource, home)
    before = await shown(api, resource, home, record["id"])
    body = await api.ok("PATCH", item_path(resource, record["id"]), home, json={})
    assert body["data"] == before


@pytest.mark.parametrize(
    "resource", [pytest.param(r, id=r.path) for r in RESOURCES if r.fixed and Op.UPDATE in r.all_ops]
)
async def test_a_field_fixed_at_creation_cannot_be_changed_by_patch_but_may_be_sent_back(api, home, resource):
    record = await make(api, resource, home)
    path = item_path(resource, record["id"])
    for name in sorted(resource.fixed):
        other = next(code for code in DICTIONARIES[resource.coded[name]].codes if code != record[name])
        assert (await api.call("PATCH", path, home, json={name: other})).field_error() == name
        assert (await api.ok("PATCH", path, home, json={name: record[name]}))["data"] == record
    assert await shown(api, resource, home, record["id"]) == record


@pytest.mark.parametrize(("resource", "version"), with_op_and_version(Op.BULK_PATCH))
async def test_a_bulk_patch_changes_only_the_fields_each_item_sends(api, home, resource, version):
    records = [await shown(api, resource, home, r["id"]) for r in await make_many(api, resource, home, 2)]
    name, value = a_change(resource, records[0], resource.bulk_item)
    items = [{"id": r["id"], name: value} for r in records]
    body = await api.ok("PATCH", f"/{resource.path}", home, version=version, json=items)
    assert body == {"data": [{**r, name: value} for r in records], "total": 2}
    assert [await shown(api, resource, home, r["id"]) for r in records] == body["data"]


@pytest.mark.parametrize(("resource", "version"), with_op_and_version(Op.DELETE))
async def test_delete_answers_its_declared_status_and_the_record_is_gone(api, home, resource, version):
    record = await make(api, resource, home)
    reply = await api.call("DELETE", item_path(resource, record["id"]), home, version=version)
    assert (reply.status, reply.body) == (resource.delete_status, b"")
    assert await shown(api, resource, home, record["id"]) is None
    (await api.call("DELETE", item_path(resource, record["id"]), home)).error(404)


@pytest.mark.parametrize(("resource", "version"), with_op_and_version(Op.DELETE_MANY))
async def test_deleting_a_list_of_ids_answers_its_declared_status_and_removes_them_all(api, home, resource, version):
    records = await make_many(api, resource, home, 3)
    ids = ",".join(str(r["id"]) for r in records[:2])
    reply = await api.call("DELETE", f"/{resource.path}/{ids}", home, version=version)
    assert (reply.status, reply.body) == (resource.delete_many_status, b"")
    assert [await shown(api, resource, home, r["id"]) is None for r in records] == [True, True, False]
    (await api.call("DELETE", f"/{resource.path}/{ids}", home)).error(404)


@pytest.mark.parametrize(("resource", "version"), with_op_and_version(Op.DELETE_ALL))
async def test_deleting_the_collection_empties_it_for_the_caller_only(api, home, other, resource, version):
    mine, theirs = await make_many(api, resource, home, 2), await make(api, resource, other)
    reply = await api.call("DELETE", f"/{resource.path}", home, version=version)
    assert (reply.status, reply.body) == (resource.delete_all_status, b"")
    assert [await shown(api, resource, home, r["id"]) for r in mine] == [None, None]
    assert await shown(api, resource, other, theirs["id"]) is not None
    if Op.LIST in resource.all_ops:
        assert await api.ok("GET", f"/{resource.path}", home) == {"data": [], "total": 0}


@pytest.mark.parametrize(("resource", "version"), with_op_and_version(Op.DICTIONARIES))
async def test_dictionaries_list_the_codes_of_the_resources_properties(api, home, resource, version):
    body = await api.ok("GET", f"/{resource.path}/dictionaries", home, version=version)
    assert set(body) == {"data", "total"} and body["total"] == len(body["data"]) > 0
    for entry in body["data"]:
        assert entry["property"].partition(".")[0] in resource.model_fields
        assert entry["values"] and all(set(value) == {"code", "name"} for value in entry["values"])


async def test_queues_and_ivrs_list_the_codes_of_their_coded_fields_as_the_readme_cites_them(api, home):
    queues = {e["property"]: e["values"] for e in (await api.ok("GET", "/queues/dictionaries", home))["data"]}
    assert set(queues) == {"language", "ring_strategy", "final_dst_type", "monitor"}
    strategies = ["ringall", "leastrecent", "fewestcalls", "random", "rrmemory", "linear"]
    assert [(v["code"], v["name"]) for v in queues["ring_strategy"]] == list(enumerate(strategies, 1))
    ivrs = {e["property"]: e["values"] for e in (await api.ok("GET", "/ivrs/dictionaries", home))["data"]}
    assert set(ivrs) == {"language", "final_dst_type"}
    assert {"code": 5, "name": "queue"} in ivrs["final_dst_type"]


@pytest.mark.parametrize("resource", [pytest.param(r, id=r.path) for r in RESOURCES if r.text_ids])
async def test_a_number_is_found_with_or_without_its_leading_plus(api, home, resource):
    record = await make(api, resource, home)
    digits = record["id"].lstrip("+")
    for spelled in (digits, f"+{digits}", f"%2B{digits}"):
        assert (await api.ok("GET", f"/{resource.path}/{spelled}", home))["data"] == record


# --- failures ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("resource", "op"), every_op({Op.GET, Op.UPDATE, Op.DELETE, Op.DELETE_MANY, Op.BULK_PATCH}))
async def test_an_unknown_id_is_a_404(api, home, resource, op):
    method, path, body = request_of(resource, op, unknown_id(resource))
    (await api.call(method, path, home, json=body)).error(404)


NOUNS = {
    "contacts": "Contact", "conferences": "Conference", "ddis": "Number", "queues": "Queue", "ringgroups": "Ring group",
    "pickupgroups": "Pickup group", "routingrules": "Routing rule", "ivrs": "IVR", "queuegroups": "Queue group",
    "usergroups": "User group", "usergrouppolicies": "User group policy", "sms": "SMS",
    "vmannouncements": "Announcement", "sms/cannedresponses": "Canned response", "chats": "Chat",
    "chatmsgs": "Chat message", "cdrs": "CDR", "monitors": "Recording", "msdrs": "MSDR",
    "voicemessages": "Voicemail message", "calllabels": "Call label", "mediasessions": "Media session",
    "callmeback/settings": "Call Me Back setting", "callmeback/buttons": "Call Me Back button",
    "transactions": "Transaction", "conversations": "Conversation", "reportschedules": "Report schedule",
}  # fmt: skip
"""How a 404 names a record of each resource: in words, the same on every route."""


@pytest.mark.parametrize(("resource", "op"), every_op({Op.GET, Op.UPDATE, Op.DELETE, Op.DELETE_MANY, Op.BULK_PATCH}))
async def test_an_unknown_id_is_a_404_naming_the_record_in_words(api, home, resource, op):
    method, path, body = request_of(resource, op, unknown_id(resource))
    error = (await api.call(method, path, home, json=body)).error(404)
    assert error["message"] == f"{NOUNS[resource.path]} {unknown_id(resource)} not found"
    assert error["errors"] == [{"field": None, "message": error["message"]}]


@pytest.mark.parametrize(("resource", "op"), every_op({Op.GET, Op.UPDATE, Op.DELETE, Op.DELETE_MANY, Op.BULK_PATCH}))
async def test_another_customers_record_is_a_404_and_stays_as_it_was(api, home, other, resource, op):
    theirs = await make(api, resource, other)
    before = await shown(api, resource, other, theirs["id"])
    method, path, body = request_of(resource, op, theirs["id"])
    if op is Op.UPDATE:
        body = dict([a_change(resource, before)])
    (await api.call(method, path, home, json=body)).error(404)
    assert await shown(api, resource, other, theirs["id"]) == before


@pytest.mark.parametrize("resource", with_op(Op.DELETE_MANY))
async def test_deleting_a_list_with_one_foreign_id_deletes_nothing(api, home, other, resource):
    mine, theirs = await make(api, resource, home), await make(api, resource, other)
    (await api.call("DELETE", f"/{resource.path}/{mine['id']},{theirs['id']}", home)).error(404)
    assert await shown(api, resource, home, mine["id"]) is not None


async def test_a_report_schedule_with_six_bad_fields_names_all_six_in_one_400_and_stores_nothing(api, home):
    before = await api.rows("/reportschedules", home)
    body = {"report_id": "weekly_totals", "name": "", "emails": ["boss@example.com", "not-an-address"],
            "frequency": {"type": "hourly"}, "timezone": "Mars/Olympus_Mons", "start_at": "2026-02-30"}  # fmt: skip
    error = (await api.call("POST", "/reportschedules", home, json=body)).error(400)
    assert [e["field"] for e in error["errors"]] == ["report_id", "name", "emails[1]", "frequency.type", "timezone",
                                                     "start_at"]  # fmt: skip
    assert error["message"] == "; ".join(f"{e['field']}: {e['message']}" for e in error["errors"])
    assert await api.rows("/reportschedules", home) == before


@pytest.mark.parametrize(("resource", "version"), with_op_and_version(Op.CREATE))
async def test_a_wrong_typed_create_field_is_a_400_naming_it(api, home, resource, version):
    name, value = wrong_field(resource.create)
    reply = await api.call("POST", f"/{resource.path}", home, version=version,
                           json={**example_body(resource, home), name: value})  # fmt: skip
    assert reply.field_error() == name


@pytest.mark.parametrize("resource", [p for p in with_op(Op.CREATE) if first_required(p.values[0])])
async def test_a_missing_required_field_is_a_400_naming_it(api, home, resource):
    name = first_required(resource)
    body = {k: v for k, v in example_body(resource, home).items() if k != name}
    assert (await api.call("POST", f"/{resource.path}", home, json=body)).field_error() == name


@pytest.mark.parametrize("resource", with_op(Op.CREATE))
async def test_a_body_that_is_not_a_json_object_is_a_400(api, home, resource):
    for data in (b"{not json", b"[1, 2]", b'"text"'):
        reply = await api.call("POST", f"/{resource.path}", home, data=data,
                               headers={"Content-Type": "application/json"})  # fmt: skip
        reply.error(400)


@pytest.mark.parametrize(("resource", "version"), with_op_and_version(Op.UPDATE))
async def test_a_wrong_typed_patch_field_is_a_400_naming_it_and_changes_nothing(api, home, resource, version):
    record = await make(api, resource, home)
    before = await shown(api, resource, home, record["id"])
    name, value = wrong_field(resource.create)
    reply = await api.call("PATCH", item_path(resource, record["id"]), home, version=version, json={name: value})
    assert reply.field_error() == name
    assert await shown(api, resource, home, record["id"]) == before


@pytest.mark.parametrize("resource", [p for p in with_op(Op.UPDATE) if first_required(p.values[0])])
async def test_a_patch_may_not_null_a_field_create_requires(api, home, resource):
    record = await make(api, resource, home)
    before = await shown(api, resource, home, record["id"])
    name = first_required(resource)
    reply = await api.call("PATCH", item_path(resource, record["id"]), home, json={name: None})
    assert reply.field_error() == name
    assert await shown(api, resource, home, record["id"]) == before


@pytest.mark.parametrize("resource", with_op(Op.BULK_PATCH))
async def test_a_wrong_typed_bulk_item_field_is_a_400_naming_it(api, home, resource):
    record = await make(api, resource, home)
    name, value = wrong_field(resource.bulk_item)
    reply = await api.call("PATCH", f"/{resource.path}", home, json=[{"id": record["id"], name: value}])
    assert reply.field_error() == name


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(("resource", "op"), every_op())
async def test_every_operation_without_a_token_is_a_401(api, home, resource, op, version):
    method, path, body = request_of(resource, op, unknown_id(resource))
    (await api.call(method, path, version=version, json=body)).error(401)


@pytest.mark.parametrize(("resource", "op"), every_op(set(WRITES)))
async def test_a_read_only_user_may_not_write_and_nothing_changes(api, home, reader, resource, op):
    record = await make(api, resource, home)
    before = await shown(api, resource, home, record["id"])
    method, path, body = request_of(resource, op, record["id"])
    if op is Op.UPDATE:
        body = dict([a_change(resource, before)])
    (await api.call(method, path, reader, json=body)).error(403)
    assert await shown(api, resource, home, record["id"]) == before


@pytest.mark.parametrize(("resource", "op"), every_op({Op.LIST, Op.GET, Op.DICTIONARIES}))
async def test_a_read_only_user_may_read(api, home, reader, resource, op):
    record = await make(api, resource, home)
    method, path, _ = request_of(resource, op, record["id"])
    assert (await api.call(method, path, reader)).status == 200


def undeclared_methods() -> list[Any]:
    """(path, method, declared methods) for each method a resource's path answers 405 to. Declared are
    the methods of every API route on that path, the registry's and any other module's (POST /sms)."""
    routes: dict[str, set[str]] = {}
    for route in wiring.api_routes():
        routes.setdefault(template(route.path), set()).add(route.method)
    cases = []
    for resource in RESOURCES:
        item = ("/{" + resource.id_name + "}", "/{ids}")
        for suffixes, path in ((("",), f"/{resource.path}"), (item, item_path(resource, unknown_id(resource)))):
            declared = set().union(*(routes.get(f"/{resource.path}{suffix}", set()) for suffix in suffixes))
            for method in sorted({"GET", "POST", "PUT", "PATCH", "DELETE"} - declared if declared else ()):
                cases.append(pytest.param(path, method, declared, id=f"{method} {path}"))
    return cases


@pytest.mark.parametrize(("path", "method", "declared"), undeclared_methods())
async def test_an_undeclared_method_is_a_405_with_the_json_error_body(api, home, path, method, declared):
    reply = await api.call(method, path, home, json={} if method in ("POST", "PUT", "PATCH") else None)
    reply.error(405)
    allowed = {m.strip() for m in reply.headers["Allow"].split(",")}
    assert declared <= allowed and method not in allowed


# --- nested and narrowed lists -------------------------------------------------------------------

PLACEHOLDER = re.compile(r"\{(\w+)\}")


@pytest.mark.parametrize("view", [pytest.param(v, id=v.path) for v in VIEWS])
async def test_every_narrowed_list_answers_the_list_envelope(api, home, view):
    parent = home.user_id if view.parent is None or view.parent.kind == "user" else None
    if parent is None:
        parent = (await make(api, next(r for r in RESOURCES if r.kind == view.parent.kind), home))["id"]
    values = {"id": parent, "from": "+447700900123", "to": "447700900456"}
    path = PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), template("/" + view.path))
    body = await api.ok("GET", path, home)
    assert set(body) == {"data", "total"} and body["total"] == len(body["data"])
