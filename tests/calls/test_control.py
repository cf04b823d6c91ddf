"""Live calls under control: endings by the destination, hold, recording, transfer, hangup, refusals."""

from __future__ import annotations

from telephony.keys import EVENT_LOG, SCHEDULER
from tests.accounts.helpers import CONTROL, PASSWORD, create_customer, create_user, error_of, login, url
from tests.calls.conftest import ANSWERS, BUSY, FAILS, NO_ANSWER, REJECTS
from tests.calls.helpers import advance, by_live_id, call_events, get, patch, place
from tests.calls.test_inbound import CALLER, HOME, provision, ring


async def connected_call(client, creds, to: str = ANSWERS + "1") -> int:
    call_id = (await place(client, creds, to=to))["data"]["id"]
    await advance(client, 6)  # own client answers at 1 s, the destination at 6 s
    assert (await get(client, creds, f"/calls/{call_id}"))["data"]["state"] == "CONNECTED"
    return call_id


async def cdr_of(client, creds, call_id: int) -> dict:
    (cdr,) = (await get(client, creds, "/cdrs" + by_live_id(call_id)))["data"]
    return cdr


async def test_a_busy_destination_ends_the_call_with_user_busy(client, root):
    call_id = (await place(client, root, to=BUSY + "1"))["data"]["id"]
    await advance(client, 3)
    await get(client, root, f"/calls/{call_id}", status=404)
    cdr = await cdr_of(client, root, call_id)
    assert (cdr["disposition"], cdr["t_cause"], cdr["billsec"], cdr["duration"]) == ("BUSY", "user busy", 0, 3)
    assert "call.ringing" not in [t for t, d in await call_events(client, call_id) if d.get("leg") == "dst"]


async def test_an_unanswered_destination_rings_until_the_platform_gives_up(client, root):
    call_id = (await place(client, root, to=NO_ANSWER + "1"))["data"]["id"]
    await advance(client, 30)
    assert (await get(client, root, f"/calls/{call_id}"))["data"]["state"] == "RINGING"
    await advance(client, 1)
    cdr = await cdr_of(client, root, call_id)
    assert (cdr["disposition"], cdr["t_cause"], cdr["duration"]) == ("NO_ANSWER", "no answer", 31)


async def test_rejected_and_failed_destinations_end_with_their_causes(client, root):
    rejected = (await place(client, root, to=REJECTS + "1"))["data"]["id"]
    failed = (await place(client, root, to=FAILS + "1"))["data"]["id"]
    await advance(client, 10)
    assert (await cdr_of(client, root, rejected))["t_cause"] == "call rejected"
    cdr = await cdr_of(client, root, failed)
    assert (cdr["disposition"], cdr["t_cause"]) == ("FAILED", "temporary failure")


async def test_hold_and_unhold_through_patch(client, root):
    call_id = await connected_call(client, root)
    held = await patch(client, root, call_id, state="hold")
    assert held["data"]["state"] == "ON_HOLD"
    assert (await patch(client, root, call_id, state="unhold"))["data"]["state"] == "CONNECTED"
    await patch(client, root, call_id, state="ON_HOLD")
    assert (await patch(client, root, call_id, state="CONNECTED"))["data"]["state"] == "CONNECTED"
    types = [t for t, _ in await call_events(client, call_id)]
    assert types.count("call.held") == 2 and types.count("call.resumed") == 2


async def test_answering_a_ringing_call_through_patch_connects_it(client, root):
    call_id = (await place(client, root, to=NO_ANSWER + "2"))["data"]["id"]
    await advance(client, 1)
    answered = await patch(client, root, call_id, state="answer")
    assert answered["data"]["state"] == "CONNECTED" and answered["data"]["connected_at"] is not None


async def test_illegal_transitions_are_400_naming_the_state(client, root):
    call_id = (await place(client, root, to=ANSWERS + "2"))["data"]["id"]
    response = await client.patch(url("v1.2", f"/calls/{call_id}"), json={"state": "hold"}, headers=root.headers())
    assert "RINGING" in (await error_of(response, 400))["message"]
    response = await client.patch(url("v1.2", f"/calls/{call_id}"), json={"monitor_state": "start"},
                                  headers=root.headers())  # fmt: skip
    assert "RINGING" in (await error_of(response, 400))["message"]
    await advance(client, 6)
    response = await client.patch(url("v1.2", f"/calls/{call_id}"), json={"state": "unhold"}, headers=root.headers())
    assert "CONNECTED" in (await error_of(response, 400))["message"]
    response = await client.patch(url("v1.2", f"/calls/{call_id}"), json={"state": "dance"}, headers=root.headers())
    assert (await error_of(response, 400))["errors"][0]["field"] == "state"


async def test_a_change_the_calls_state_does_not_allow_names_the_field_that_asked_for_it(client, root):
    call_id = (await place(client, root, to=NO_ANSWER + "3"))["data"]["id"]
    await advance(client, 2)  # the destination rings: nothing to record yet, nobody to transfer
    for body, field in (({"state": "hold"}, "state"), ({"monitor_state": "start"}, "monitor_state"),
                        ({"dst": ANSWERS + "9"}, "dst")):  # fmt: skip
        response = await client.patch(url("v1.2", f"/calls/{call_id}"), json=body, headers=root.headers())
        error = await error_of(response, 400)
        assert [e["field"] for e in error["errors"]] == [field] and "RINGING" in error["message"], body
    await patch(client, root, call_id, state="answer")
    response = await client.patch(url("v1.2", f"/calls/{call_id}"), json={"monitor_state": "pause"},
                                  headers=root.headers())  # fmt: skip
    assert (await error_of(response, 400))["errors"][0]["field"] == "monitor_state"  # not recording


async def test_an_ended_call_is_a_404_to_every_method_as_to_get(client, root):
    call_id = (await place(client, root, to=ANSWERS + "8"))["data"]["id"]
    assert (await client.delete(url("v1.2", f"/calls/{call_id}"), headers=root.headers())).status == 204
    expected = await error_of(await client.get(url("v1.2", f"/calls/{call_id}"), headers=root.headers()), 404)
    assert expected["message"] == f"Call {call_id} not found"
    bodies = ({}, {"state": "hold"}, {"state": "hangup"}, {"monitor_state": "start"}, {"labels": []},
              {"action_url": "https://crm.example/x"}, {"dst": ANSWERS + "9"}, {"labels": [999999]})  # fmt: skip
    for body in bodies:
        response = await client.patch(url("v1.2", f"/calls/{call_id}"), json=body, headers=root.headers())
        assert await error_of(response, 404) == expected, body
    response = await client.delete(url("v1.2", f"/calls/{call_id}"), headers=root.headers())
    assert await error_of(response, 404) == expected
    response = await client.post(f"/_telephony/calls/{call_id}/dtmf", json={"digits": "1"}, headers=CONTROL)
    assert await error_of(response, 404) == expected
    assert [t for t, _ in await call_events(client, call_id)][-1] == "call.ended"  # nothing more recorded


async def test_hanging_up_through_delete_leaves_a_cdr_with_normal_clearing(client, root):
    call_id = await connected_call(client, root)
    await advance(client, 10)
    assert (await client.delete(url("v1.2", f"/calls/{call_id}"), headers=root.headers())).status == 204
    await get(client, root, f"/calls/{call_id}", status=404)
    cdr = await cdr_of(client, root, call_id)
    assert (cdr["t_cause"], cdr["billsec"], cdr["duration"]) == ("normal clearing", 10, 16)
    ended = (await call_events(client, call_id))[-1]
    assert ended[0] == "call.ended" and ended[1]["by"] == "src"


async def desk_rung(client, answer_after: int, then: int):
    """A user `desk` whose number an outside caller rings; it answers after `answer_after` seconds, and
    the clock moves `then` seconds: the user's token and the call's id."""
    user_id = await create_user(client, HOME, "desk@example.com", ext="220")
    desk = await login(client, "v1.2", "desk@example.com", PASSWORD)
    await provision(client, target_type="U", target_id=user_id)
    call_id = (await ring(client, answer={str(user_id): answer_after}))["data"]["id"]
    await advance(client, then)
    return desk, call_id


async def test_a_user_hanging_up_an_inbound_call_through_delete_is_recorded_as_its_callee(client, root):
    desk, call_id = await desk_rung(client, answer_after=4, then=10)
    assert (await client.delete(url("v1.2", f"/calls/{call_id}"), headers=desk.headers())).status == 204
    ended = (await call_events(client, call_id))[-1]
    assert ended[0] == "call.ended" and ended[1]["by"] == "dst"
    cdr = await cdr_of(client, root, call_id)
    assert (cdr["src"], cdr["t_cause"], cdr["hangup_by"], cdr["billsec"]) == (CALLER, "normal clearing", "dst", 6)


async def test_a_user_hanging_up_through_patch_is_recorded_as_its_side_too(client, root):
    desk, call_id = await desk_rung(client, answer_after=4, then=10)
    await patch(client, desk, call_id, state="hangup")
    assert (await cdr_of(client, root, call_id))["hangup_by"] == "dst"


async def test_a_user_declining_a_ringing_inbound_call_through_delete_rejects_it(client, root):
    desk, call_id = await desk_rung(client, answer_after=20, then=3)
    assert (await client.delete(url("v1.2", f"/calls/{call_id}"), headers=desk.headers())).status == 204
    cdr = await cdr_of(client, root, call_id)
    assert (cdr["type"], cdr["disposition"], cdr["t_cause"], cdr["hangup_by"]) == ("M", "BUSY", "call rejected", "dst")


async def test_a_hang_up_by_someone_not_on_the_call_is_recorded_as_the_customers_side(client, root):
    user_id = await create_user(client, HOME, "desk@example.com", ext="220")
    await provision(client, target_type="U", target_id=user_id)
    inbound = (await ring(client, answer={str(user_id): 4}))["data"]["id"]
    outbound = (await place(client, await login(client, "v1.2", "desk@example.com", PASSWORD), to=ANSWERS + "1")
                )["data"]["id"]  # fmt: skip
    await advance(client, 10)
    for call_id in (inbound, outbound):  # the root user hangs up both: the called side of the inbound call,
        assert (await client.delete(url("v1.2", f"/calls/{call_id}"), headers=root.headers())).status == 204
    assert [(await cdr_of(client, root, c))["hangup_by"] for c in (inbound, outbound)] == ["dst", "src"]  # the caller


async def test_the_platform_ending_a_call_is_recorded_as_no_sides(client, root):
    call_id = (await place(client, root, to=NO_ANSWER + "1"))["data"]["id"]
    await advance(client, 31)
    cdr = await cdr_of(client, root, call_id)
    assert (cdr["t_cause"], cdr["hangup_by"]) == ("no answer", None)


async def test_recording_started_mid_call_gives_a_monitor_of_the_recorded_length(client, root):
    call_id = await connected_call(client, root)
    await advance(client, 10)
    assert (await patch(client, root, call_id, monitor_state="start"))["data"]["monitor_state"] == 1
    await advance(client, 15)
    assert (await patch(client, root, call_id, monitor_state="pause"))["data"]["monitor_state"] == 2
    await advance(client, 5)
    await patch(client, root, call_id, monitor_state="resume")
    await advance(client, 5)
    await client.delete(url("v1.2", f"/calls/{call_id}"), headers=root.headers())
    (monitor,) = (await get(client, root, "/monitors" + by_live_id(call_id)))["data"]
    assert monitor["duration"] == 20 and monitor["live_id"] == call_id
    response = await client.get(url("v1.2", f"/monitors/{monitor['id']}.mp3"), headers=root.headers())
    assert response.status == 200 and len(await response.read()) == monitor["size"]
    listed = (await get(client, root, f"/calls/{call_id}/monitors"))["data"]
    assert [m["id"] for m in listed] == [monitor["id"]]


async def test_a_user_who_records_everything_gets_a_monitor_from_the_answer(client, root, settings):
    customer_id, _admin_id = await create_customer(client, "Recorders", "rec@example.com")
    await create_user(client, customer_id, "recorded@example.com", monitor="A")
    admin = await login(client, "v1.2", "recorded@example.com", "correct-horse-battery-staple")
    call_id = await connected_call(client, admin)
    await advance(client, 60)
    (monitor,) = (await get(client, admin, "/monitors" + by_live_id(call_id)))["data"]
    cdr = await cdr_of(client, admin, call_id)
    assert monitor["duration"] == cdr["billsec"] == 60
    msdrs = (await get(client, admin, "/msdrs"))["data"]
    sessions = (await get(client, admin, "/mediasessions"))["data"]
    assert {m["call_id"] for m in msdrs} == {s["call_id"] for s in sessions} == {
        f"{call_id}-src@telephony", f"{call_id}-dst@telephony"}  # fmt: skip
    assert {m["media_session_id"] for m in msdrs} == {s["id"] for s in sessions}


async def test_a_blind_transfer_gives_a_parent_and_child_pair(client, root):
    call_id = await connected_call(client, root)
    await advance(client, 4)
    answered = (await patch(client, root, call_id, dst=ANSWERS + "9"))["data"]
    assert answered["parent_id"] == call_id  # the answer is the live call that goes on
    await get(client, root, f"/calls/{call_id}", status=404)
    (child,) = (await get(client, root, "/calls"))["data"]
    assert (
        child["id"] == answered["id"]
        and child["parent_id"] == call_id
        and child["state"] == "RINGING"
        and child["dst"] == ANSWERS + "9"
    )
    await advance(client, 70)
    parent_cdr, child_cdr = await cdr_of(client, root, call_id), await cdr_of(client, root, child["id"])
    assert parent_cdr["t_cause"] == "transferred" and parent_cdr["parent_live_id"] is None
    assert child_cdr["parent_live_id"] == call_id and child_cdr["src"] == ANSWERS + "1"
    assert child_cdr["billsec"] == 60


async def test_labels_and_action_links_are_set_on_a_live_call(client, root):
    response = await client.post(url("v1.2", "/calllabels"), json={"name": "VIP"}, headers=root.headers())
    label_id = (await response.json())["data"]["id"]
    call_id = (await place(client, root, to=ANSWERS + "3"))["data"]["id"]
    data = (await patch(client, root, call_id, labels=[label_id], action_url="https://crm.example/x",
                        action_text="Open"))["data"]  # fmt: skip
    assert (data["labels"], data["action_url"], data["action_text"]) == ([label_id], "https://crm.example/x", "Open")
    response = await client.patch(url("v1.2", f"/calls/{call_id}"), json={"labels": [999999]}, headers=root.headers())
    assert (await error_of(response, 400))["errors"][0]["field"] == "labels"
    events = await client.app[EVENT_LOG].read_stream(f"call-{call_id}")
    labelled = next(e for e in events if e.type == "call.labelled")
    assert labelled.meta.user_id == root.user_id


async def test_a_patch_with_several_bad_values_names_each_in_one_400_and_changes_nothing(client, root):
    call_id = (await place(client, root, to=ANSWERS + "4"))["data"]["id"]
    before = await call_events(client, call_id)
    body = {"state": "sideways", "monitor_state": "louder", "labels": [999998, 999999]}
    error = await error_of(await client.patch(url("v1.2", f"/calls/{call_id}"), json=body, headers=root.headers()), 400)
    assert [e["field"] for e in error["errors"]] == ["state", "monitor_state", "labels", "labels"]
    assert await call_events(client, call_id) == before


async def test_another_customers_call_is_404_and_a_read_only_user_may_not_place_calls(client, root):
    call_id = (await place(client, root, to=ANSWERS + "4"))["data"]["id"]
    await create_customer(client, "Others", "other@example.com")
    other = await login(client, "v1.2", "other@example.com", "correct-horse-battery-staple")
    await get(client, other, f"/calls/{call_id}", status=404)
    assert (await get(client, other, "/calls"))["data"] == []
    for method, body in (("patch", {"state": "hold"}), ("delete", None)):
        response = await getattr(client, method)(url("v1.2", f"/calls/{call_id}"), json=body, headers=other.headers())
        await error_of(response, 404)
    await get(client, other, f"/calls/{call_id}/monitors", status=404)
    reader_id = await create_user(client, 100001, "ro@example.com", roles=["ROLE_READ_ONLY"])
    reader = await login(client, "v1.2", "ro@example.com", "correct-horse-battery-staple")
    assert reader.user_id == reader_id
    response = await client.post(url("v1.2", "/calls"), json={"to": ANSWERS + "5"}, headers=reader.headers())
    await error_of(response, 403)
    assert len((await get(client, root, "/calls"))["data"]) == 1


async def test_a_patch_is_all_or_none_even_with_a_transfer(client, root):
    call_id = (await place(client, root, to=NO_ANSWER + "1"))["data"]["id"]
    await advance(client, 2)
    response = await client.patch(url("v1.2", f"/calls/{call_id}"), json={"action_url": "https://x.example",
                                  "dst": ANSWERS + "9"}, headers=root.headers())  # fmt: skip
    assert "RINGING" in (await error_of(response, 400))["message"]  # a ringing call cannot be transferred
    assert "call.action_set" not in [t for t, _ in await call_events(client, call_id)]
    response = await client.patch(url("v1.2", f"/calls/{call_id}"), json={"state": "hangup", "dst": ANSWERS + "9"},
                                  headers=root.headers())  # fmt: skip
    await error_of(response, 400)
    assert (await get(client, root, f"/calls/{call_id}"))["data"]["state"] == "RINGING"


async def test_a_destination_that_never_rang_cannot_be_answered(client, root):
    call_id = (await place(client, root, to=BUSY + "2"))["data"]["id"]
    await advance(client, 1)  # the caller's client answered; the busy destination does not ring
    response = await client.patch(url("v1.2", f"/calls/{call_id}"), json={"state": "answer"}, headers=root.headers())
    assert "no leg of it is ringing" in (await error_of(response, 400))["message"]
    await advance(client, 2)
    assert (await cdr_of(client, root, call_id))["t_cause"] == "user busy"


async def test_a_call_that_ended_by_itself_takes_no_change_and_from_must_be_a_user_id(client, root):
    call_id = (await place(client, root, to=BUSY + "3"))["data"]["id"]
    await advance(client, 5)
    response = await client.patch(url("v1.2", f"/calls/{call_id}"), json={}, headers=root.headers())
    assert (await error_of(response, 404))["message"] == f"Call {call_id} not found"
    for given in ("²", "9" * 5000, "-1", "x"):
        response = await client.post(url("v1.2", "/calls"), json={"to": ANSWERS, "from": given}, headers=root.headers())
        assert (await error_of(response, 400))["errors"][0]["field"] == "from"


async def test_a_transfer_to_an_extension_is_a_local_call_of_that_user(client, root):
    callee = await create_user(client, 100001, "ext@example.com", ext="207", first_name="Eve")
    call_id = await connected_call(client, root)
    child = (await patch(client, root, call_id, dst="207"))["data"]
    assert (child["dst_id"], child["dst_name"], child["context"]) == (str(callee), "Eve", "USER_LOCAL")


async def test_closing_a_customer_ends_the_life_of_its_calls_without_leaving_history(client, root):
    customer_id, _ = await create_customer(client, "Closing", "closing@example.com")
    owner = await login(client, "v1.2", "closing@example.com", "correct-horse-battery-staple")
    call_id = (await place(client, owner, to=ANSWERS + "1"))["data"]["id"]
    mine = (await place(client, root, to=ANSWERS + "2"))["data"]["id"]
    response = await client.delete(url("v1.2", f"/customers/{customer_id}"), headers=owner.headers())
    assert response.status == 204
    await advance(client, 100)
    events = await call_events(client, call_id)
    assert [t for t, _ in events][-1] == "call.ringing"  # nothing more happened to it
    assert (await cdr_of(client, root, mine))["t_cause"] == "normal clearing"
    assert client.app[SCHEDULER].due(f"call:{call_id}") is None


async def test_a_users_live_calls_keep_id_order_and_lose_a_call_when_it_ends(client, root):
    agent_id = await create_user(client, 100001, "lister@example.com")
    mine = [(await place(client, root, to=ANSWERS + "6", **{"from": str(agent_id)}))["data"]["id"] for _ in range(3)]
    own = (await place(client, root, to=ANSWERS + "7"))["data"]["id"]
    response = await client.delete(url("v1.2", f"/calls/{mine[1]}"), headers=root.headers())
    assert response.status == 204, await response.text()
    listed = await get(client, root, f"/users/{agent_id}/calls")
    assert ([c["id"] for c in listed["data"]], listed["total"]) == ([mine[0], mine[2]], 2)
    assert [c["id"] for c in (await get(client, root, "/calls"))["data"]] == [mine[0], mine[2], own]
    await advance(client, 70)  # every call has answered and talked its 60 s
    assert (await get(client, root, f"/users/{agent_id}/calls")) == {"data": [], "total": 0}
    assert (await get(client, root, "/calls"))["total"] == 0
