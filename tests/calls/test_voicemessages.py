"""What a voicemail message says of its call, whichever way the caller reached the voicemail: the
number dialled and the caller's id with its name, for calls between users as for calls from outside."""

from __future__ import annotations

import msgspec
import pytest

from tests.accounts.helpers import create_user, login
from tests.calls.conftest import ANSWERS, NO_ANSWER
from tests.calls.helpers import advance, get, patch, place
from tests.calls.test_inbound import CALLER, HOME, NUMBER, create, provision, ring
from tests.calls.test_pbx_rules import rule

ANN = '"Ann Caller" <301>'
"""The caller of the calls between users, as a voicemail shows it."""
CARL = f'"Carl Contact" <{CALLER}>'
"""The outside caller, one of the customer's contacts."""


@pytest.fixture
def settings(settings):
    """Messages of at most two minutes, so every call of a test has ended five minutes on."""
    return msgspec.structs.replace(
        settings, simulator=msgspec.structs.replace(settings.simulator, talk_max_seconds=120.0)
    )


async def callee(client, **fields) -> int:
    return await create_user(client, HOME, "bob@example.com", ext="302", first_name="Bob", **fields)


async def caller(client):
    await create_user(client, HOME, "ann@example.com", ext="301", first_name="Ann", last_name="Caller")
    return await login(client, "v1.2", "ann@example.com", "correct-horse-battery-staple")


async def on_dnd(client, root) -> tuple[str, str]:
    await callee(client, dnd=True)
    await place(client, await caller(client), to="302")
    return "302", ANN


async def from_a_user_without_extension_or_name(client, root) -> tuple[str, str]:
    await callee(client, dnd=True)
    await place(client, root, to="302")
    return "302", str(root.user_id)  # the caller's own id stands for its number


async def without_a_client(client, root) -> tuple[str, str]:
    await callee(client, nb_sip_locations=0)
    await place(client, await caller(client), to="302")
    return "302", ANN


async def after_follow_me(client, root) -> tuple[str, str]:
    bob = await callee(client, nb_sip_locations=0, fm=True, fm_strategy="H", fm_targets=[NO_ANSWER + "1"],
                       fm_ring_time="5", fm_final_dst_type="V")  # fmt: skip
    await place(client, await caller(client), to="302")
    assert bob
    return "302", ANN


async def transferred(client, root) -> tuple[str, str]:
    await callee(client, dnd=True)
    call_id = (await place(client, await caller(client), to=ANSWERS + "1"))["data"]["id"]
    await advance(client, 6)
    await patch(client, await login(client, "v1.2", "ann@example.com", "correct-horse-battery-staple"), call_id,
                dst="302")  # fmt: skip
    return "302", ANSWERS + "1"  # the one who goes on, and leaves the message, is the called party


async def redirected_by_a_rule(client, root) -> tuple[str, str]:
    bob = await callee(client)
    await rule(client, root, action="voicemail", direction=2, destination=["447700900901"], target_id=bob)
    await place(client, await caller(client), to="447700900901")
    return "+447700900901", ANN


async def a_number_to_voicemail(client, root) -> tuple[str, str]:
    await provision(client, target_type="V", target_id=await callee(client))
    await ring(client, hangup_after=30)
    return NUMBER, CARL


async def a_busy_user(client, root) -> tuple[str, str]:
    bob = await callee(client, final_dst_type="V")
    await provision(client, target_type="U", target_id=bob)
    await ring(client, answer={str(bob): "busy"}, hangup_after=30)
    return NUMBER, CARL


async def an_inbound_follow_me(client, root) -> tuple[str, str]:
    bob = await callee(client, fm=True, fm_strategy="A", fm_targets=["447700900801"], fm_ring_time="5",
                       fm_final_dst_type="V")  # fmt: skip
    await provision(client, target_type="U", target_id=bob)
    await ring(client, answer={str(bob): "never", "447700900801": "never"}, hangup_after=60)
    return NUMBER, CARL


async def an_ivr(client, root) -> tuple[str, str]:
    bob = await callee(client)
    await provision(client)
    await create(client, root, "ivrs", name="Menu", timeout=2, ddis=[NUMBER], final_dst_type="V", final_dst_id=bob)
    await ring(client, hangup_after=30)
    return NUMBER, CARL


async def a_queue(client, root) -> tuple[str, str]:
    bob = await callee(client)
    await provision(client)
    await create(client, root, "queues", name="Empty", join_empty=False, ddis=[NUMBER], final_dst_type="V",
                 final_dst_id=bob)  # fmt: skip
    await ring(client, hangup_after=30)
    return NUMBER, CARL


async def a_ring_group(client, root) -> tuple[str, str]:
    bob = await callee(client, dnd=True)
    await provision(client)
    await create(client, root, "ringgroups", name="Nobody", users=[bob], ddis=[NUMBER], final_dst_type="V",
                 final_dst_id=bob)  # fmt: skip
    await ring(client, hangup_after=30)
    return NUMBER, CARL


PATHS = [on_dnd, from_a_user_without_extension_or_name, without_a_client, after_follow_me, transferred,
         redirected_by_a_rule, a_number_to_voicemail, a_busy_user, an_inbound_follow_me, an_ivr, a_queue,
         a_ring_group]  # fmt: skip


@pytest.mark.parametrize("path", PATHS, ids=[p.__name__ for p in PATHS])
async def test_a_voicemail_message_names_the_number_dialled_and_the_caller(client, root, path):
    await create(client, root, "contacts", first_name="Carl", last_name="Contact", tel=CALLER)
    dialled, caller_id = await path(client, root)
    await advance(client, 300)  # every message is left and every call ended
    (message,) = (await get(client, root, "/voicemessages"))["data"]
    bob = await get(client, root, "/users?filter=" + '[{"property": "ext", "operator": "eq", "value": "302"}]')
    assert (message["dialled"], message["callerid"]) == (dialled, caller_id)
    assert message["extension_id"] == bob["data"][0]["id"] and message["duration"] > 0
