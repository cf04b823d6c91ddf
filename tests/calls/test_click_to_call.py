"""A click-to-call lives through its states in clock time and leaves its history."""

from __future__ import annotations

from tests.calls.conftest import ANSWERS
from tests.calls.helpers import advance, by_live_id, call_events, get, place


async def test_a_click_to_call_rings_connects_and_hangs_up_leaving_a_cdr(client, root):
    placed = (await place(client, root, to=ANSWERS + "1"))["data"]
    assert placed["state"] == "RINGING" and isinstance(placed["start_time"], int)
    call_id = placed["id"]
    await advance(client, 1)  # the user's own client answers; the destination rings
    assert (await get(client, root, f"/calls/{call_id}"))["data"]["state"] == "RINGING"
    await advance(client, 5)
    live = (await get(client, root, f"/calls/{call_id}"))["data"]
    assert live["state"] == "CONNECTED"
    await advance(client, 60)
    await get(client, root, f"/calls/{call_id}", status=404)
    types = [t for t, _ in await call_events(client, call_id)]
    assert types == ["call.placed", "call.accepted", "call.ringing", "call.answered", "call.ringing",
                     "call.answered", "call.ended"]  # fmt: skip
    cdrs = (await get(client, root, "/cdrs" + by_live_id(call_id)))["data"]
    assert len(cdrs) == 1
    cdr = cdrs[0]
    assert cdr["disposition"] == "CONNECTED" and cdr["t_cause"] == "normal clearing"
    assert cdr["billsec"] == 60 and cdr["duration"] == 66 and cdr["type"] == "O"
    msdrs = (await get(client, root, "/msdrs"))["data"]
    assert len(msdrs) == 2
