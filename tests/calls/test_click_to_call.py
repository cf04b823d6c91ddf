"""A click-to-call lives through its states in clock time and leaves its history."""

from __future__ import annotations

from telephony.domain.calls.call import Call
from telephony.domain.calls.fold import evolve
from tests.accounts.helpers import create_user, login
from tests.calls.conftest import ANSWERS
from tests.calls.helpers import advance, by_live_id, call_events, get, place, typed_events


async def test_a_click_to_call_goes_through_every_state_and_ends_as_linked_history(client, root):
    await create_user(client, 100001, "rec@example.com", monitor="A", ext="210")
    caller = await login(client, "v1.2", "rec@example.com", "correct-horse-battery-staple")
    placed = (await place(client, caller, to=ANSWERS + "1"))["data"]
    assert placed["state"] == "RINGING" and isinstance(placed["start_time"], int)
    call_id = placed["id"]
    await advance(client, 1)  # the user's own client answers; the destination rings
    assert (await get(client, caller, f"/calls/{call_id}"))["data"]["state"] == "RINGING"
    await advance(client, 5)
    live = (await get(client, caller, f"/calls/{call_id}"))["data"]
    assert live["state"] == "CONNECTED" and live["monitor_state"] == 1
    assert [c["id"] for c in (await get(client, caller, "/calls"))["data"]] == [call_id]
    await advance(client, 60)
    await get(client, caller, f"/calls/{call_id}", status=404)
    assert (await get(client, caller, "/calls"))["total"] == 0

    events = await call_events(client, call_id)
    states, call = [], Call(id=call_id)
    for event in await typed_events(client, call_id):
        call = evolve(call, event)
        states.append(call.state)
    assert [t for t, _ in events] == ["call.placed", "call.accepted", "call.ringing", "call.answered", "call.ringing",
                                      "call.answered", "call.recording_started", "call.ended"]  # fmt: skip
    assert states == ["INITIAL", "ACCEPTED", "RINGING", "RINGING", "RINGING", "CONNECTED", "CONNECTED", "HANGUP"]
    assert [round(d["at"] - events[0][1]["at"]) for _, d in events] == [0, 0, 0, 1, 1, 6, 6, 66]

    (cdr,) = (await get(client, caller, "/cdrs" + by_live_id(call_id)))["data"]
    assert (cdr["disposition"], cdr["t_cause"], cdr["type"], cdr["destination"]) == (
        "CONNECTED", "normal clearing", "O", "out")  # fmt: skip
    assert (cdr["billsec"], cdr["duration"], cdr["src"], cdr["dst"]) == (60, 66, "210", ANSWERS + "1")
    assert cdr["user_id"] == caller.user_id and cdr["context"] == "PSTN_CALL"
    (monitor,) = (await get(client, caller, "/monitors" + by_live_id(call_id)))["data"]
    assert monitor["live_id"] == call_id and monitor["duration"] == 60
    msdrs = (await get(client, caller, "/msdrs"))["data"]
    assert sorted(m["call_id"] for m in msdrs) == [f"{call_id}-dst@telephony", f"{call_id}-src@telephony"]
    assert {m["duration"] for m in msdrs} == {60, 65}  # the caller's leg was up from its own answer
