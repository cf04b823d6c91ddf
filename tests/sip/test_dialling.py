"""A softphone places calls: its INVITE is the click-to-call `POST /calls` makes for its user (the same
events, checks and CDRs), the phone being the caller's side; 100, 180 as the callee rings, 200 when it
answers, the phone's ACK, BYE and CANCEL, a BYE when the call ends elsewhere, and each refusal mapped."""

from __future__ import annotations

import asyncio

from sipmessage import Request, Response

from tests.accounts.helpers import CONTROL, PASSWORD, create_user, login, url
from tests.calls.conftest import ANSWERS, BUSY, FAILS, NO_ANSWER, REJECTS
from tests.calls.helpers import advance, call_events, cdrs_of, get, place
from tests.sip.agent import Agent, connected
from tests.sip.test_dialogs import dialogs
from tests.sip.test_registrations import UA, register

HOME = 100001
VARYING = ("id", "call_id", "live_id", "calldate", "start_time", "answer_time", "end_time", "duration", "src_ua")
"""CDR fields that differ between two calls placed the same way: ids, times (the caller's own ring), and the
caller's client (the phone that dialled; over REST, the user's first registration)."""


async def phone(client, creds) -> Agent:
    """A registered softphone of the user."""
    agent = await connected(client, creds)
    assert (await register(agent)).code == 200
    return agent


async def callee(client, ext: str = "210") -> tuple[Agent, int]:
    """A second user of the customer, with the extension `ext` and a registered softphone."""
    user_id = await create_user(client, HOME, f"u{ext}@example.com", ext=ext, first_name="Callee")
    return await phone(client, await login(client, "v1.2", f"u{ext}@example.com", PASSWORD)), user_id


async def the_call(client, root) -> int:
    """The id of the one live call of the customer, once the phone's INVITE placed it (the 100 Trying
    comes first)."""
    for _ in range(100):
        if found := (await get(client, root, "/calls"))["data"]:
            (live,) = found
            return live["id"]
        await asyncio.sleep(0.02)
    raise AssertionError("no call was placed")


async def final(agent: Agent) -> Response:
    """The next response that is not provisional."""
    while (answer := await agent.response()).code < 200:
        pass
    return answer


async def connects(client, agent: Agent, invite: Request, seconds: float) -> Response:
    """The 180, then `seconds` later the 200, of a call that connects; the phone ACKs."""
    assert (await agent.response()).code == 180
    await advance(client, seconds)
    ok = await agent.response()
    assert ok.code == 200 and ok.headers["Content-Type"] == "application/sdp", ok
    assert "c=IN IP4 192.0.2.1" in ok.body.decode() and ok.to_address.parameters.get("tag")
    await agent.in_dialog("ACK", invite, ok)
    return ok


def shape(cdr: dict) -> dict:
    return {key: value for key, value in cdr.items() if key not in VARYING}


async def test_a_softphone_dials_an_extension_whose_softphone_answers_as_a_rest_call_does(client, root):
    caller = await phone(client, root)
    called, called_id = await callee(client)
    invite = await caller.dial("210")
    ringing = await called.request_of("INVITE")
    assert ringing.from_address.uri.user == caller.user  # the caller as its extension-less user id
    assert (await caller.response()).code == 180
    await called.answer(ringing)
    await called.request_of("ACK")
    ok = await caller.response()
    assert ok.code == 200 and "c=IN IP4 192.0.2.1" in ok.body.decode()
    await caller.in_dialog("ACK", invite, ok)
    call_id = await the_call(client, root)
    live = (await get(client, root, f"/calls/{call_id}"))["data"]
    assert (live["state"], live["src_ua"], live["dst_ua"], live["dst_id"]) == ("CONNECTED", UA, UA, str(called_id))
    await advance(client, 30)
    await caller.in_dialog("BYE", invite, ok)
    assert (await caller.response()).code == 200
    bye = await called.request_of("BYE")
    await called.reply(bye, 200)
    dialled = await cdrs_of(client, root, call_id)
    assert [(c["disposition"], c["t_cause"], c["billsec"], c["src_ua"], c["dst"]) for c in dialled] == [
        ("CONNECTED", "normal clearing", 30, UA, "210")]  # fmt: skip

    rest_id = (await place(client, root, to="210"))["data"]["id"]  # the same call over REST
    await advance(client, 1)  # the simulator answers the caller's side
    ringing = await called.request_of("INVITE")
    await called.answer(ringing)
    await called.request_of("ACK")
    await advance(client, 30)
    assert (await client.delete(url("v1.2", f"/calls/{rest_id}"), headers=root.headers())).status == 204
    await called.reply(await called.request_of("BYE"), 200)
    rest = await cdrs_of(client, root, rest_id)
    assert [shape(c) for c in dialled] == [shape(c) for c in rest]
    assert (dialled[0]["src_ua"], rest[0]["src_ua"]) == (UA, "telephony-softphone/1.0")  # REST: the first client
    phone_events, rest_events = await call_events(client, call_id), await call_events(client, rest_id)
    assert [t for t, _ in phone_events] == [t for t, _ in rest_events] == [
        "call.placed", "call.accepted", "call.ringing", "call.answered", "call.ringing", "call.answered",
        "call.ended"]  # fmt: skip
    assert [d.get("leg") for _, d in phone_events] == [d.get("leg") for _, d in rest_events]
    assert phone_events[-1][1]["by"] == rest_events[-1][1]["by"] == "src"
    assert round(phone_events[3][1]["at"] - phone_events[0][1]["at"]) == 0  # the phone answered as it dialled


async def test_a_softphone_dials_an_external_number_that_answers_and_hangs_up(client, root):
    caller = await phone(client, root)
    invite = await caller.dial(ANSWERS + "1")
    assert (await caller.response()).code == 180
    call_id = await the_call(client, root)
    await advance(client, 5)
    ok = await caller.response()
    assert ok.code == 200
    await caller.in_dialog("ACK", invite, ok)
    await advance(client, 60)  # the callee hangs up: the phone gets a BYE
    bye = await caller.request_of("BYE")
    assert bye.call_id == invite.call_id and bye.to_address.parameters["tag"] == caller.tag
    assert bye.from_address.parameters["tag"] == ok.to_address.parameters["tag"]
    assert str(bye.uri) == f"sip:{caller.user}@{caller.host};transport=ws"
    await caller.reply(bye, 200)
    (cdr,) = await cdrs_of(client, root, call_id)
    assert (cdr["disposition"], cdr["t_cause"], cdr["type"], cdr["context"], cdr["billsec"], cdr["dst"]) == (
        "CONNECTED", "normal clearing", "O", "PSTN_CALL", 60, ANSWERS + "1")  # fmt: skip
    assert (cdr["src_ua"], cdr["user_id"]) == (UA, root.user_id)
    assert [t for t, _ in await call_events(client, call_id)] == [
        "call.placed", "call.accepted", "call.ringing", "call.answered", "call.ringing", "call.answered",
        "call.ended"]  # fmt: skip


async def test_a_softphone_dialling_a_user_without_one_rings_the_simulated_client(client, root):
    caller = await phone(client, root)
    user_id = await create_user(client, HOME, "sim@example.com", ext="220")
    response = await client.post(f"/_telephony/users/{user_id}/registrations", json={}, headers=CONTROL)
    assert response.status == 201, await response.text()
    await caller.dial("220")
    assert (await caller.response()).code == 180
    live = (await get(client, root, f"/calls/{await the_call(client, root)}"))["data"]
    assert (live["state"], live["dst_id"], live["src_ua"]) == ("RINGING", str(user_id), UA)


async def test_a_rest_hang_up_of_the_dialled_call_sends_the_phone_a_bye(client, root):
    caller = await phone(client, root)
    invite = await caller.dial(ANSWERS + "2")
    ok = await connects(client, caller, invite, 5)
    call_id = await the_call(client, root)
    assert (await client.delete(url("v1.2", f"/calls/{call_id}"), headers=root.headers())).status == 204
    bye = await caller.request_of("BYE")
    assert (bye.call_id, bye.from_address.parameters["tag"]) == (invite.call_id, ok.to_address.parameters["tag"])
    await caller.reply(bye, 200)


async def test_cancel_before_the_answer_ends_the_call_as_the_callers_cancel(client, root):
    caller = await phone(client, root)
    invite = await caller.dial(NO_ANSWER + "1")
    assert (await caller.response()).code == 180
    call_id = await the_call(client, root)
    await advance(client, 3)
    await caller.cancel(invite)
    cancelled = await caller.response()
    assert (cancelled.code, cancelled.cseq.method) == (200, "CANCEL")
    terminated = await caller.response()
    assert (terminated.code, terminated.cseq.method, terminated.phrase) == (487, "INVITE", "Request Terminated")
    (cdr,) = await cdrs_of(client, root, call_id)
    assert (cdr["disposition"], cdr["t_cause"], cdr["billsec"]) == ("NO_ANSWER", "originator cancel", 0)
    events = await call_events(client, call_id)
    assert [t for t, _ in events] == ["call.placed", "call.accepted", "call.ringing", "call.answered",
                                      "call.ringing", "call.ended"]  # fmt: skip
    assert events[-1][1]["by"] == "src"
    await caller.cancel(invite)  # once more: the transaction is over
    assert (await caller.response()).code == 481


async def test_a_bye_before_the_answer_gives_up_the_call_as_a_cancel_does(client, root):
    caller = await phone(client, root)
    invite = await caller.dial(NO_ANSWER + "3")
    ringing = await caller.response()
    assert ringing.code == 180
    call_id = await the_call(client, root)
    await caller.in_dialog("BYE", invite, ringing)
    bye_ok = await caller.response()
    assert (bye_ok.code, bye_ok.cseq.method) == (200, "BYE")
    assert (await caller.response()).code == 487
    (cdr,) = await cdrs_of(client, root, call_id)
    assert (cdr["disposition"], cdr["t_cause"]) == ("NO_ANSWER", "originator cancel")


async def refused(agent: Agent, to: str, client=None, root=None, seconds: float = 0) -> tuple[int, str]:
    """Dial `to` (with `client`: once the call is placed, let `seconds` pass), and read the final answer:
    its status and Warning."""
    await agent.dial(to)
    if seconds:
        await the_call(client, root)
        await advance(client, seconds)
    answer = await final(agent)
    assert answer.to_address.parameters.get("tag")
    return answer.code, answer.headers.get("Warning") or ""


async def test_a_call_that_ends_before_it_connects_answers_the_invite_with_its_cause(client, root):
    caller = await phone(client, root)
    for to, seconds, status, cause in ((BUSY + "1", 2, 486, "user busy"), (NO_ANSWER + "2", 30, 480, "no answer"),
                                       (REJECTS + "1", 3, 603, "call rejected"),
                                       (FAILS + "1", 1, 503, "temporary failure"),
                                       ("4321", 0.5, 404, "unallocated number")):  # fmt: skip
        code, warning = await refused(caller, to, client, root, seconds)
        assert (code, warning) == (status, f'399 telephony "{cause}"'), to
        (cdr,) = (await get(client, root, "/cdrs?sort=id&dir=desc&limit=1"))["data"]
        assert (cdr["dst"], cdr["t_cause"]) == (to, cause)


async def test_refusals_of_post_calls_are_sip_refusals_and_record_nothing(client, root):
    caller = await phone(client, root)
    position = (await (await client.get("/_telephony/health")).json())["position"]
    assert await refused(caller, "112") == (403, '399 telephony "to: Emergency numbers cannot be called through '
                                                 'the API"')  # fmt: skip
    code, warning = await refused(caller, "nobody")
    assert code == 404 and warning.startswith('399 telephony "to: ')
    assert (await (await client.get("/_telephony/health")).json())["position"] == position
    reader_id = await create_user(client, HOME, "ro@example.com", roles=["ROLE_READ_ONLY"])
    reader = await phone(client, await login(client, "v1.2", "ro@example.com", PASSWORD))
    assert await refused(reader, ANSWERS + "1") == (
        403, '399 telephony "Access denied: your roles do not allow changing calls"')  # fmt: skip
    assert (await get(client, root, f"/users/{reader_id}/calls"))["total"] == 0


async def test_a_routing_rule_that_blocks_the_number_is_403(client, root):
    rule = {"action": "block", "direction": 2, "destination": [ANSWERS.lstrip("+") + "9"]}
    assert (await client.post(url("v1.2", "/routingrules"), json=rule, headers=root.headers())).status == 201
    caller = await phone(client, root)
    assert await refused(caller, ANSWERS + "9") == (403, '399 telephony "call rejected"')


async def test_an_unregistered_connection_may_not_dial(client, root):
    agent = await connected(client, root)
    assert await refused(agent, ANSWERS + "1") == (
        403, '399 telephony "Unable to make a call with no VoIP clients registered"')  # fmt: skip


async def test_an_invite_without_credentials_is_challenged_and_a_wrong_answer_places_nothing(client, root):
    caller = await phone(client, root)
    await caller.send(caller.request("INVITE", ANSWERS + "1", call_id="c1"))
    challenge = await caller.response()
    assert challenge.code == 401 and len(challenge.headers.getlist("WWW-Authenticate")) == 2
    wrong = caller.credentials(challenge, "INVITE", ANSWERS + "1", password="not-it")
    await caller.send(caller.request("INVITE", ANSWERS + "1", call_id="c1", extra=wrong))
    assert (await caller.response()).code == 401
    assert (await get(client, root, "/calls"))["total"] == 0
    await caller.dial(ANSWERS + "1")  # the right answer: 100 Trying, the call placed
    await the_call(client, root)


async def test_a_malformed_invite_is_400_never_500(client, root):
    caller = await phone(client, root)
    no_to = caller.request("INVITE", ANSWERS + "1").replace(f"To: <sip:{ANSWERS}1@{caller.domain}>\r\n", "")
    await caller.send(no_to)
    assert (await caller.text()).startswith("SIP/2.0 400 Missing header To\r\n")
    await caller.send(caller.request("INVITE", ANSWERS + "1").replace(f"INVITE sip:{ANSWERS}1@", "INVITE tel:"))
    assert (await caller.response()).code == 400
    call_id, to = "c2", f"{ANSWERS}1"
    await caller.send(caller.request("INVITE", to, call_id=call_id))
    challenge = await caller.response()
    no_user = caller.request("INVITE", to, call_id=call_id, extra=caller.credentials(challenge, "INVITE", to))
    await caller.send(no_user.replace(f"INVITE sip:{to}@", "INVITE sip:", 1))
    answer = await caller.response()
    assert (answer.code, answer.headers["Warning"]) == (400, '399 telephony "The Request-URI names no number or '
                                                             'extension"')  # fmt: skip
    assert (await get(client, root, "/calls"))["total"] == 0


async def test_the_phones_socket_closing_hangs_up_its_call_as_the_caller(client, root):
    caller = await phone(client, root)
    invite = await caller.dial(ANSWERS + "3")
    await connects(client, caller, invite, 5)
    call_id = await the_call(client, root)
    await caller.ws.close()
    for _ in range(100):  # the server learns of the close when the frame arrives
        if (await client.get(url("v1.2", f"/calls/{call_id}"), headers=root.headers())).status == 404:
            break
        await asyncio.sleep(0.02)
    (cdr,) = await cdrs_of(client, root, call_id)
    assert (cdr["disposition"], cdr["t_cause"]) == ("CONNECTED", "normal clearing")
    assert (await call_events(client, call_id))[-1][1]["by"] == "src"


async def test_the_users_dialog_subscription_shows_the_phones_call_as_a_rest_call(client, root):
    watcher = await connected(client, root)
    assert (await watcher.subscribe(watcher.user)).code == 200
    await watcher.notify()
    caller = await phone(client, root)
    invite = await caller.dial(ANSWERS + "4")
    ok = await connects(client, caller, invite, 5)
    call_id = await the_call(client, root)
    await caller.in_dialog("BYE", invite, ok)
    assert (await caller.response()).code == 200
    seen: list[dict[str, str]] = []
    while not seen or seen[-1]["state"] != "terminated":
        seen += [d for d in dialogs(await watcher.notify()) if d["id"].split("-")[0] == str(call_id)]
    assert [d["state"] for d in seen][-3:] == ["early", "confirmed", "terminated"]
    assert {(d["id"], d["direction"]) for d in seen} == {(f"{call_id}-src@telephony", "initiator")}
    assert (seen[-1]["remote"], seen[-1]["event"]) == (f"sip:{ANSWERS}4@{watcher.domain}", "local-bye")
