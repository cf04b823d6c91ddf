"""References: a record names only records of its own customer, and a removed record is named no more.

Generated from the declarations (`wiring.references()`: the registry's `refs` and the users'): every
reference field refuses a missing id and another customer's id with a 400 naming the field, on
create and on PATCH, and stores nothing; and deleting what a field names removes it from every
record naming it, as update events of the deletion's own request.
"""

from __future__ import annotations

from typing import Any

import pytest

from telephony import wiring
from telephony.accounts import User
from telephony.accounts.models import USER_FIELDS
from telephony.domain.dictionaries import TARGET_TYPE
from telephony.domain.references import Ref, Reference
from telephony.keys import EVENT_LOG
from telephony.registry import decisions
from telephony.registry.catalogue import BY_PATH, RESOURCES
from telephony.registry.resource import Op, Resource
from tests.registry.conftest import (
    BY_KIND,
    CONTROL,
    LOOP,
    PASSWORD,
    Caller,
    a_record,
    absent_id,
    destination_code,
    example_body,
    fresh_number,
    item_path,
    linked_body,
    make,
    naming,
    seed,
    shown,
    target_kind,
)

pytestmark = LOOP
TABLE = wiring.references()
USER_NAMES: dict[str, str] = {}


def declared(*ops: Op) -> list[Any]:
    """(resource, reference) for every reference of every resource with any of `ops`."""
    return [
        pytest.param(r, ref, id=f"{r.path} {blamed(r, ref)}")
        for r in RESOURCES
        if r.all_ops & set(ops)
        for ref in r.refs
        if r.create is not None and r.wire_names.get(ref.blamed, ref.blamed) in {f for f in r.create.__struct_fields__}
    ]


async def wrong_ids(api, kind: str, other: Caller) -> dict[str, Any]:
    """An id of another customer's record of `kind`, and an id no record has."""
    return {"foreign": await a_record(api, kind, other), "missing": absent_id(kind)}


def blamed(resource: Resource, ref: Reference) -> str:
    return resource.wire_names.get(ref.blamed, ref.blamed)


# --- checks --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("resource", "ref"), declared(Op.CREATE))
async def test_a_create_naming_a_missing_or_foreign_record_is_a_400_naming_the_field(api, home, other, resource, ref):
    assert resource.create is not None
    for which, wrong in (await wrong_ids(api, target_kind(ref), other)).items():
        body = {**example_body(resource, home), **naming(resource.create, resource.wire_names, ref, wrong)}
        reply = await api.call("POST", f"/{resource.path}", home, json=body)
        assert reply.field_error() == blamed(resource, ref), which
    created = await api.ok("POST", f"/{resource.path}", home, status=201, json=await linked_body(api, resource, home))
    assert created["data"]["id"]


@pytest.mark.parametrize(("resource", "ref"), declared(Op.UPDATE))
async def test_a_patch_naming_a_missing_or_foreign_record_is_a_400_naming_the_field(api, home, other, resource, ref):
    assert resource.create is not None
    record = await make(api, resource, home)
    before = await shown(api, resource, home, record["id"])
    for which, wrong in (await wrong_ids(api, target_kind(ref), other)).items():
        body = naming(resource.create, resource.wire_names, ref, wrong)
        reply = await api.call("PATCH", item_path(resource, record["id"]), home, json=body)
        assert reply.field_error() == blamed(resource, ref), which
    assert await shown(api, resource, home, record["id"]) == before


async def test_a_patch_of_one_half_of_a_final_destination_is_checked_with_the_stored_other_half(api, home, other):
    queues = BY_PATH["queues"]
    mine, theirs = await make(api, queues, home), await make(api, queues, other)
    body = {"name": "Overflow", "final_dst_type": "Q", "final_dst_id": mine["id"]}
    group = (await api.ok("POST", "/ringgroups", home, status=201, json=body))["data"]
    reply = await api.call("PATCH", f"/ringgroups/{group['id']}", home, json={"final_dst_id": theirs["id"]})
    assert reply.field_error() == "final_dst_id"
    hangup = await api.ok("PATCH", f"/ringgroups/{group['id']}", home, json={"final_dst_type": "H"})
    assert (hangup["data"]["final_dst_type"], hangup["data"]["final_dst_id"]) == (7, mine["id"])


async def test_a_number_is_stored_as_its_id_however_it_was_sent(api, home):
    number = (await a_record(api, "ddi", home)).lstrip("+")
    group = await api.ok("POST", "/ringgroups", home, status=201, json={"name": "Plain", "ddis": [number]})
    assert group["data"]["ddis"] == [f"+{number}"]


async def test_queues_ivrs_and_conferences_show_the_numbers_they_list_and_a_queue_not_its_groups(api, home):
    group = (await api.ok("POST", "/queuegroups", home, status=201, json={"name": "Listed"}))["data"]["id"]
    for path in ("/queues", "/ivrs", "/conferences"):
        number = await a_record(api, "ddi", home)
        body = {"name": "Listing", "ddis": [number], **({"groups": [group]} if path == "/queues" else {})}
        made = (await api.ok("POST", path, home, status=201, json=body))["data"]
        listed = [r for r in await api.rows(path, home) if r["id"] == made["id"]]
        assert made["ddis"] == listed[0]["ddis"] == [number] and "groups" not in made


async def test_a_call_tracking_campaign_of_another_customer_is_a_400_naming_it(api, home, other):
    number = await a_record(api, "ddi", home)
    for wrong in (await wrong_ids(api, "campaign", other)).values():
        reply = await api.call("PATCH", "/calltracking/ddis", home, json=[{"e164": number, "campaign_id": wrong}])
        assert reply.field_error() == "campaign_id"
    campaign = await a_record(api, "campaign", home)
    body = await api.ok("PATCH", "/calltracking/ddis", home, json=[{"e164": number, "campaign_id": campaign}])
    assert [(d["e164"], d["campaign_id"]) for d in body["data"]] == [(number, campaign)]


def user_refs() -> list[Any]:
    return [pytest.param(ref, id=ref.blamed) for ref in TABLE["user"]]


@pytest.mark.parametrize("ref", user_refs())
async def test_a_user_naming_a_missing_or_foreign_record_is_a_400_naming_the_field(api, home, other, ref):
    for which, wrong in (await wrong_ids(api, target_kind(ref), other)).items():
        body = {"email": f"refused-{ref.blamed}-{which}@example.com", "password": PASSWORD,
                "attributes": naming(User, USER_NAMES, ref, wrong)}  # fmt: skip
        reply = await api.call("POST", f"/_telephony/customers/{home.customer_id}/users", json=body, headers=CONTROL)
        assert reply.field_error() == ref.blamed, which
    target = await a_record(api, target_kind(ref), home)
    attributes = naming(User, USER_NAMES, ref, target)
    made = await api.new_user(home.customer_id, f"linked-{ref.blamed}@example.com", attributes=attributes)
    assert {name: made[name] for name in attributes} == attributes


async def test_a_bulk_patch_of_users_with_another_customers_group_is_a_400_and_changes_nothing(api, home, other):
    user = await api.new_user(home.customer_id, "grouped@example.com")
    mine = await a_record(api, "usergroup", home)
    for wrong in (await wrong_ids(api, "usergroup", other)).values():
        items = [{"id": user["id"], "location_id": "2"}, {"id": home.user_id, "groups": [mine, wrong]}]
        assert (await api.call("PATCH", "/users", home, json=items)).field_error() == "groups"
    assert (await api.ok("GET", f"/users/{user['id']}", home))["data"] == user


# --- unlinking on removal ------------------------------------------------------------------------


def holders() -> list[Any]:
    """(holder kind, reference) for every declared reference its holder stores (a queue's `groups` are
    checked, not kept)."""
    stored = {"user": set(USER_FIELDS), **{r.kind: r.model_fields for r in RESOURCES}}
    return [pytest.param(kind, ref, id=f"{kind} {ref.blamed}")
            for kind, refs in TABLE.items() for ref in refs if set(ref.fields) <= stored[kind]]  # fmt: skip


async def a_holder(api, kind: str, ref: Reference, target: Any, caller: Caller) -> Any:
    """A record of `kind` of `caller`'s customer naming `target` through `ref`; its id."""
    if kind == "user":
        email = f"holder-{len(USER_NAMES)}-{fresh_number()}@example.com"
        return (await api.new_user(caller.customer_id, email, attributes=naming(User, USER_NAMES, ref, target)))["id"]
    resource = BY_KIND[kind]
    if Op.CREATE in resource.all_ops:
        assert resource.create is not None
        body = {**example_body(resource, caller), **naming(resource.create, resource.wire_names, ref, target)}
        return (await api.ok("POST", f"/{resource.path}", caller, status=201, json=body))["data"]["id"]
    fields = {ref.field: target} if isinstance(ref, Ref) else \
        {ref.type_field: TARGET_TYPE.to_code(destination_code(target_kind(ref))), ref.id_field: target}  # fmt: skip
    return (await seed(api, resource, caller.customer_id, e164=fresh_number(), **fields))["id"]


async def remove(api, kind: str, id_: Any, caller: Caller) -> str | None:
    """Delete the record as a client does (its request id), or through the registry's decision when no
    endpoint deletes it (numbers, campaigns)."""
    if kind == "user":
        return (await api.call("DELETE", f"/users/{id_}", caller)).headers["X-Request-Id"]
    resource = BY_KIND[kind]
    if Op.DELETE in resource.all_ops:
        reply = await api.call("DELETE", item_path(resource, id_), caller)
        assert reply.status == resource.delete_status, reply
        return reply.headers["X-Request-Id"]
    await api.app[EVENT_LOG].transact(decisions.delete(resource, caller.customer_id, [id_], TABLE))
    return None


async def document(api, kind: str, id_: Any, caller: Caller) -> dict:
    if kind == "user":
        return (await api.ok("GET", f"/users/{id_}", caller))["data"]
    return await shown(api, BY_KIND[kind], caller, id_)  # type: ignore[return-value]


@pytest.mark.parametrize(("kind", "ref"), holders())
async def test_deleting_a_named_record_removes_it_from_the_record_naming_it_in_the_same_request(api, home, kind, ref):
    target_of = target_kind(ref)
    target, kept = await a_record(api, target_of, home), await a_record(api, target_of, home)
    holder = await a_holder(api, kind, ref, target, home)
    other_holder = await a_holder(api, kind, ref, kept, home)
    before = await api.app[EVENT_LOG].read_stream(f"{kind}-{holder}")
    request_id = await remove(api, target_of, target, home)
    events = (await api.app[EVENT_LOG].read_stream(f"{kind}-{holder}"))[len(before) :]
    assert [e.type for e in events] == [f"{kind}.updated"]
    assert set(events[0].event.changes) <= set(ref.fields)
    if request_id is not None:
        assert events[0].meta.request_id == request_id
    assert (target_of, target) not in ref.named(await document(api, kind, holder, home))
    assert (target_of, kept) in ref.named(await document(api, kind, other_holder, home))


async def test_deleting_a_user_removes_it_everywhere_in_the_transaction_of_its_deletion(api, home):
    agent, colleague = [await a_record(api, "user", home) for _ in range(2)]
    queue = {"name": "Sales", "users": [{"id": agent, "status": False}, {"id": colleague, "status": False}],
             "final_dst_type": "U", "final_dst_id": agent}  # fmt: skip
    queue_id = (await api.ok("POST", "/queues", home, status=201, json=queue))["data"]["id"]
    group = {"name": "Desk", "users": [agent, colleague], "final_dst_type": "V", "final_dst_id": agent}
    group_id = (await api.ok("POST", "/ringgroups", home, status=201, json=group))["data"]["id"]
    contact_id = (await api.ok("POST", "/contacts", home, status=201, json={"user_id": agent}))["data"]["id"]
    forwarding = await api.new_user(home.customer_id, "forwards@example.com",
                                    attributes={"final_dst_type": "U", "final_dst_id": agent})  # fmt: skip
    head = api.app[EVENT_LOG].position
    deleted = await api.call("DELETE", f"/users/{agent}", home)
    assert deleted.status == 204
    events = await api.app[EVENT_LOG].read(after=head)
    assert {e.meta.request_id for e in events} == {deleted.headers["X-Request-Id"]}
    assert [e.position for e in events] == list(range(head + 1, head + 1 + len(events)))
    assert events[0].type == "user.deleted"
    assert {(e.stream, e.type) for e in events if e.type.endswith(".updated")} == {
        (f"user-{forwarding['id']}", "user.updated"), (f"contact-{contact_id}", "contact.updated"),
        (f"queue-{queue_id}", "queue.updated"), (f"ringgroup-{group_id}", "ringgroup.updated"),
    }  # fmt: skip
    members = (await api.ok("GET", f"/queues/{queue_id}", home, params={"include": "users"}))["data"]
    assert [(m["id"], m["status"]) for m in members["users"]] == [(colleague, False)]
    assert (members["final_dst_type"], members["final_dst_id"]) == (None, None)
    ring = (await api.ok("GET", f"/ringgroups/{group_id}", home))["data"]
    assert (ring["users"], ring["final_dst_type"], ring["final_dst_id"]) == ([colleague], None, None)
    assert (await api.ok("GET", f"/contacts/{contact_id}", home))["data"]["user_id"] is None
    user = (await api.ok("GET", f"/users/{forwarding['id']}", home))["data"]
    assert (user["final_dst_type"], user["final_dst_id"]) == ("V", None)


async def test_deleting_a_queue_clears_the_final_destinations_and_numbers_routed_to_it(api, home):
    queue_id = (await make(api, BY_PATH["queues"], home))["id"]
    body = {"name": "Spill", "final_dst_type": "Q", "final_dst_id": queue_id}
    ivr_id = (await api.ok("POST", "/ivrs", home, status=201, json=body))["data"]["id"]
    number = (await seed(api, BY_PATH["ddis"], home.customer_id, e164=fresh_number(), target_type=5,
                         target_id=queue_id))["e164"]  # fmt: skip
    assert (await api.call("DELETE", f"/queues/{queue_id}", home)).status == 204
    ivr = (await api.ok("GET", f"/ivrs/{ivr_id}", home))["data"]
    assert (ivr["final_dst_type"], ivr["final_dst_id"]) == (None, None)
    ddi = (await api.ok("GET", f"/ddis/{number}", home))["data"]
    assert (ddi["target_type"], ddi["target_id"]) == (None, None)
