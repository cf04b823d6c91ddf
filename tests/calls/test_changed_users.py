"""A user's settings changed by the operator (`PATCH /_telephony/users/{id}`) steer the very next call:
its extension, do-not-disturb and recording are read when a call is routed, not when the user was made."""

from __future__ import annotations

from typing import Any

from tests.accounts.helpers import CONTROL, create_user
from tests.calls.conftest import ANSWERS
from tests.calls.helpers import advance, cdrs_of, get, place
from tests.calls.test_inbound import HOME, provision, ring


async def change(client, user_id: int, **attributes: Any) -> dict:
    response = await client.patch(f"/_telephony/users/{user_id}", json=attributes, headers=CONTROL)
    answer = await response.json()
    assert response.status == 200, answer
    return answer["data"]


async def test_a_changed_extension_is_dialled_at_once_and_the_old_one_rings_nobody(client, root):
    callee = await create_user(client, HOME, "moved@example.com", ext="601", first_name="Mo")
    assert (await change(client, callee, ext="602"))["ext"] == "602"
    reached = (await place(client, root, to="602"))["data"]
    assert (reached["context"], reached["dst_id"], reached["dst_name"]) == ("USER_LOCAL", str(callee), "Mo")
    old = (await place(client, root, to="601"))["data"]
    await advance(client, 5)
    (cdr,) = await cdrs_of(client, root, old["id"])
    assert (cdr["t_cause"], cdr["disposition"], cdr["dst_id"]) == ("unallocated number", "FAILED", None)


async def test_do_not_disturb_switched_on_sends_the_next_caller_to_the_final_destination(client, root):
    user_id = await create_user(client, HOME, "busy@example.com", ext="611")
    await provision(client, target_type="U", target_id=user_id)
    first = (await ring(client, answer={str(user_id): 2}, hangup_after=10))["data"]
    assert (first["context"], first["dst_id"]) == ("PSTN_CALL", str(user_id))
    await advance(client, 10)
    await change(client, user_id, dnd=True)
    second = (await ring(client, hangup_after=10))["data"]
    assert (second["context"], second["dst_id"]) == ("VOICEMAIL", f"voicemail:{user_id}")


async def test_a_recording_setting_changed_records_the_next_call(client, root):
    assert (await get(client, root, f"/users/{root.user_id}"))["data"]["monitor"] == "N"
    await change(client, root.user_id, monitor="all")
    call = (await place(client, root, to=ANSWERS + "1"))["data"]
    await advance(client, 6)
    assert (await get(client, root, f"/calls/{call['id']}"))["data"]["monitor_state"] == 1
    await advance(client, 60)
    (recording,) = (await get(client, root, f"/calls/{call['id']}/monitors"))["data"]
    assert recording["live_id"] == call["id"] and recording["duration"] == 60
