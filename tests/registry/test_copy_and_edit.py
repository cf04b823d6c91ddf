"""Copy and edit: a client that GETs a record and PATCHes the same body back succeeds, and the record
stays as it was. Fields the GET shows that a PATCH cannot set (ids, times, what the server derives)
are ignored; a field fixed at creation may be sent back unchanged.

Generated over every resource with a single or bulk PATCH, each record naming real records where its
resource has references (queue members, ring group numbers, final destinations, ...).
"""

from __future__ import annotations

import pytest

from telephony.registry.resource import Op
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
