"""A write answers what its decision committed, never a read after it: a PATCH racing a DELETE of the
same record answers 200 with the patched record (what was committed) or 404 (nothing was), never 500.

Both requests are issued together against the real app and meet in one batch of the writer, in one
order and then the other: the writer is held while they queue, each seen submitted before the next is
sent. Generated over every resource with a single or bulk PATCH.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any

import pytest

from telephony.keys import EVENT_LOG
from telephony.registry.catalogue import RESOURCES
from telephony.registry.resource import Op, Resource
from tests.registry.conftest import LOOP, Reply, a_change, item_path, make, shown

pytestmark = LOOP


def deletion(resource: Resource, id_: Any) -> tuple[str, set[int]]:
    """The path of a request that deletes the record, and the statuses it may answer."""
    if Op.DELETE in resource.all_ops:
        return item_path(resource, id_), {resource.delete_status}
    if Op.DELETE_MANY in resource.all_ops:
        return item_path(resource, id_), {resource.delete_many_status}
    return f"/{resource.path}", {resource.delete_all_status}


def races() -> list[Any]:
    cases = []
    for resource in RESOURCES:
        if not resource.all_ops & {Op.DELETE, Op.DELETE_MANY, Op.DELETE_ALL}:
            continue
        for op in (Op.UPDATE, Op.BULK_PATCH):
            if op in resource.all_ops:
                for first in ("patch", "delete"):
                    cases.append(pytest.param(resource, op, first, id=f"{op.value} {resource.path} {first} first"))
    return cases


async def committed_changes(api, resource: Resource, id_: Any) -> list[dict]:
    """The changes of every update event of the record's stream."""
    events = await api.app[EVENT_LOG].read_stream(f"{resource.kind}-{id_}")
    return [event.event.changes for event in events if event.type == f"{resource.kind}.updated"]


async def in_one_batch(api, monkeypatch, *requests: Coroutine[Any, Any, Reply]) -> list[Reply]:
    """Run the requests with the writer held until each has submitted its decision, in order, so the
    writer decides them together, in that order; their replies, in the same order."""
    log = api.app[EVENT_LOG]
    submitted: asyncio.Queue[None] = asyncio.Queue()
    transact = log.transact

    async def observed(decide, meta=None, **kwargs):
        if meta is not None:  # a request's write, not a token's touch
            submitted.put_nowait(None)
        return await transact(decide, meta, **kwargs)

    holding, release = threading.Event(), threading.Event()

    def hold(_conn):
        holding.set()
        release.wait(10)
        return []

    held = asyncio.ensure_future(transact(hold))
    await asyncio.to_thread(holding.wait, 10)
    monkeypatch.setattr(log, "transact", observed)
    tasks = []
    for request in requests:
        tasks.append(asyncio.ensure_future(request))
        await asyncio.wait_for(submitted.get(), 10)
    release.set()
    await held
    return list(await asyncio.gather(*tasks))


@pytest.mark.parametrize(("resource", "op", "first"), races())
async def test_a_patch_racing_a_delete_answers_what_it_committed_or_404(api, home, monkeypatch, resource, op, first):
    record = await make(api, resource, home)
    before = await shown(api, resource, home, record["id"])
    name, value = a_change(resource, before, resource.bulk_item if op is Op.BULK_PATCH else None)
    if op is Op.UPDATE:
        patch = api.call("PATCH", item_path(resource, record["id"]), home, json={name: value})
    else:
        patch = api.call("PATCH", f"/{resource.path}", home, json=[{"id": record["id"], name: value}])
    path, deleted_statuses = deletion(resource, record["id"])
    delete = api.call("DELETE", path, home)
    if first == "patch":
        patched, deleted = await in_one_batch(api, monkeypatch, patch, delete)
    else:
        deleted, patched = await in_one_batch(api, monkeypatch, delete, patch)
    assert deleted.status in deleted_statuses, deleted
    committed = await committed_changes(api, resource, record["id"])
    if first == "delete":
        patched.error(404)
        assert committed == []
        return
    assert patched.status == 200, patched
    answered = patched.data if op is Op.UPDATE else patched.data[0]
    assert answered == {**before, name: value}
    assert committed == [{name: value}]
    assert await shown(api, resource, home, record["id"]) is None


@pytest.mark.parametrize("first", ["patch", "delete"])
async def test_a_bulk_patch_of_users_racing_a_users_deletion_answers_what_it_committed_or_404(
    api, home, monkeypatch, first
):
    user = await api.new_user(home.customer_id, f"racing-{first}@example.com")
    before = (await api.ok("GET", f"/users/{user['id']}", home))["data"]
    patch = api.call("PATCH", "/users", home, json=[{"id": user["id"], "location_id": "7"}])
    delete = api.call("DELETE", f"/users/{user['id']}", home)
    if first == "patch":
        patched, deleted = await in_one_batch(api, monkeypatch, patch, delete)
    else:
        deleted, patched = await in_one_batch(api, monkeypatch, delete, patch)
    assert deleted.status == 204, deleted
    events = await api.app[EVENT_LOG].read_stream(f"user-{user['id']}")
    committed = [event.event.changes for event in events if event.type == "user.updated"]
    if first == "delete":
        patched.error(404)
        assert committed == []
    else:
        assert patched.status == 200, patched
        assert patched.body == {"data": [{**before, "location_id": "7"}], "total": 1}
        assert committed == [{"location_id": "7"}]
