"""Dialog subscriptions (RFC 4235) as the platform's CTI connector makes them: a full NOTIFY, then one
per change of every call the watched node takes part in, with the REST call id in the dialog id;
a queue's callers; another customer's nodes refused; the subscription's end."""

from __future__ import annotations

import re
from xml.etree import ElementTree

from sipmessage import Request

from tests.accounts.helpers import PASSWORD, create_customer, login, url
from tests.calls.conftest import ANSWERS
from tests.calls.helpers import advance, patch, place
from tests.calls.test_inbound import provision, ring
from tests.calls.test_queues import agents, queue
from tests.sip.agent import Agent, connected

NS = {"d": "urn:ietf:params:xml:ns:dialog-info"}


def dialogs(notify: Request | bytes | str) -> list[dict[str, str]]:
    """What the connector reads of each dialog of a NOTIFY's body."""
    root = ElementTree.fromstring(notify.body if isinstance(notify, Request) else notify)  # noqa: S314 - the server's
    found = []
    for element in root.findall("d:dialog", NS):
        local, remote = element.find("d:local", NS), element.find("d:remote", NS)
        params = {p.get("pname"): p.get("pval") for p in local.findall("d:target/d:param", NS)}
        identity = remote.find("d:identity", NS)
        state = element.find("d:state", NS)
        found.append({"id": element.get("id"), "direction": element.get("direction"),
                      "state": state.text, "event": state.get("event"), "remote": identity.text,
                      "remote_name": identity.get("display"), "local": local.find("d:identity", NS).text,
                      **params})  # fmt: skip
    return found


async def states_until_terminated(agent: Agent, call_id: int) -> list[dict[str, str]]:
    seen: list[dict[str, str]] = []
    while not seen or seen[-1]["state"] != "terminated":
        seen += [d for d in dialogs(await agent.notify()) if d["id"].split("-")[0] == str(call_id)]
    return seen


async def test_a_users_subscription_sees_a_click_to_call_ring_connect_and_hang_up(client, root):
    agent = await connected(client, root)
    assert (await agent.subscribe(agent.user)).code == 200
    first = await agent.notify()
    assert first.headers["Subscription-State"].startswith("active;expires=")
    assert 'state="full"' in first.body.decode() and dialogs(first) == []
    call_id = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    await advance(client, 70)
    seen = await states_until_terminated(agent, call_id)
    assert [d["state"] for d in seen][-3:] == ["early", "confirmed", "terminated"]
    assert "trying" in [d["state"] for d in seen]
    assert {d["id"] for d in seen} == {f"{call_id}-src@telephony"}
    assert {d["direction"] for d in seen} == {"initiator"}
    assert (seen[-1]["remote"], seen[-1]["remote_name"]) == (f"sip:{ANSWERS}1@{agent.domain}", f"{ANSWERS}1")
    assert seen[-1]["context"] == "PSTN_CALL" and seen[-1]["+sip.rendering"] == "yes"
    assert re.fullmatch(r"[0-9]+", seen[-1]["timestamp.start"])


async def test_a_held_call_shows_as_not_rendering(client, root):
    agent = await connected(client, root)
    await agent.subscribe(agent.user)
    await agent.notify()
    call_id = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    await advance(client, 10)
    await patch(client, root, call_id, state="ON_HOLD")
    seen: list[dict[str, str]] = []
    while not seen or seen[-1].get("+sip.rendering") != "no":
        seen += dialogs(await agent.notify())
    assert seen[-1]["state"] == "confirmed"


async def test_a_queue_subscription_sees_an_inbound_caller_wait_and_be_answered(client, root):
    (member,) = await agents(client, 1)
    queue_id = await queue(client, root, [member], ring_strategy="linear", ring_time=10, retry=10)
    agent = await connected(client, root)
    assert (await agent.subscribe(f"queue-{queue_id}")).code == 200
    await agent.notify()
    call_id = (await ring(client, answer={str(member): 3}, hangup_after=30))["data"]["id"]
    await advance(client, 40)
    seen = await states_until_terminated(agent, call_id)
    assert {d["direction"] for d in seen} == {"receiver"}
    assert "confirmed" in [d["state"] for d in seen] and seen[-1]["state"] == "terminated"
    assert {d["context"] for d in seen} == {"QUEUE"}


async def test_a_user_who_hangs_up_through_the_api_is_told_its_own_bye_and_a_caller_who_hangs_up_theirs(client, root):
    await provision(client, target_type="U", target_id=root.user_id)
    agent = await connected(client, root)
    await agent.subscribe(agent.user)
    await agent.notify()
    endings = []
    for hang_up in ("by the user", "by the caller"):  # answered at 2 s; the caller hangs up at 5 s (talks >= 5 s)
        call_id = (await ring(client, answer={str(root.user_id): 2}, hangup_after=5))["data"]["id"]
        await advance(client, 4)
        if hang_up == "by the user":
            assert (await client.delete(url("v1.2", f"/calls/{call_id}"), headers=root.headers())).status == 204
        await advance(client, 10)
        ended = (await states_until_terminated(agent, call_id))[-1]
        endings.append((ended["direction"], ended["event"]))
    assert endings == [("receiver", "local-bye"), ("receiver", "remote-bye")]


async def test_a_subscription_to_another_customers_node_is_refused(client, root):
    await create_customer(client, "Other Ltd", "root@other.test")
    other = await login(client, "v1.2", "root@other.test", PASSWORD)
    agent = await connected(client, root)
    assert (await agent.subscribe(str(other.user_id))).code == 403
    assert (await agent.subscribe("queue-999999")).code == 403
    assert (await agent.subscribe("nobody")).code == 403


async def test_a_subscription_ends_at_its_expiry_unless_refreshed(client, root):
    agent = await connected(client, root)
    await agent.subscribe(agent.user, expires=120)
    await agent.notify()
    await advance(client, 121)
    ended = await agent.notify()
    assert ended.headers["Subscription-State"] == "terminated;reason=timeout"


async def test_a_subscribe_with_expires_0_ends_the_subscription(client, root):
    agent = await connected(client, root)
    accepted = await agent.subscribe(agent.user)
    await agent.notify()
    tag = accepted.to_address.parameters["tag"]
    await agent.send(agent.request("SUBSCRIBE", agent.user, call_id=accepted.call_id, to_tag=tag,
                                   extra="Event: dialog\r\nExpires: 0\r\n"))  # fmt: skip
    assert (await agent.response()).code == 200
    assert (await agent.notify()).headers["Subscription-State"] == "terminated"
    await agent.send(agent.request("SUBSCRIBE", agent.user, call_id=accepted.call_id, to_tag=tag,
                                   extra="Event: dialog\r\nExpires: 60\r\n"))  # fmt: skip
    assert (await agent.response()).code == 481
