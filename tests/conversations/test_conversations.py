"""The unified history (conversations) of calls, SMS and faxes: ids in the order things were made, a replay."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from telephony.app import create_app
from telephony.config import Control, Settings, Storage
from telephony.conversations import CHANNELS, FEEDS
from telephony.domain.events import EVENTS, RESOURCES
from telephony.eventlog import Metadata, RecordedEvent
from telephony.keys import SETTINGS
from tests.accounts.helpers import CONTROL, error_of, login
from tests.billing.test_billing import LANDLINE, TALKED
from tests.calls.helpers import advance, by_live_id, get, place
from tests.conftest import CONTROL_KEY
from tests.messaging.test_faxes import FAX_LINE, fax, provision
from tests.serving import replay_difference, telephony

HOME = 100001
KINDS = {"call": "cdr", "sms": "sms", "fax": "fax", "chat": "chat"}
ADMIN = ("admin@example.com", "change-me-now")


async def sms_imported(client, *texts: str) -> None:
    lines = [json.dumps({"resource": "sms", "customer_id": HOME, "data": {
        "id": 500 + n, "created_at": f"2026-01-0{n + 1} 10:00:00", "from": "+447700900111", "to": "+447700900222",
        "message": text, "type": "in", "result": "RECEIVED"}}) for n, text in enumerate(texts)]  # fmt: skip
    response = await client.post("/_telephony/import", data="\n".join(lines), headers=CONTROL)
    assert response.status == 200, await response.text()


async def test_conversations_list_calls_sms_and_faxes_together(client, root):
    await sms_imported(client, "hello", "again")
    call = (await place(client, root, to=LANDLINE))["data"]
    await advance(client, TALKED + 1)
    await provision(client, fax_enabled=True)
    await fax(client)
    every = await get(client, root, "/conversations?sort=created_at&dir=DESC&limit=2")
    assert every["total"] == 4 and len(every["data"]) == 2
    assert [c["channel"] for c in every["data"]] == ["fax", "call"]
    listed = (await get(client, root, "/conversations?sort=id&limit=50"))["data"]
    assert [c["channel"] for c in listed] == ["sms", "sms", "call", "fax"]  # ids in the order they were made
    assert [(c["id"], c["source_id"]) for c in listed] == [(1, 500), (2, 501), (3, 1), (4, 1)]
    (called,) = [c for c in listed if c["channel"] == "call"]
    assert (called["src"], called["dst"], called["type"], called["duration"]) == (str(root.user_id), LANDLINE, "out",
                                                                                   TALKED)  # fmt: skip
    assert called["user_id"] == root.user_id
    only_sms = "?filter=" + json.dumps([{"property": "channel", "operator": "=", "value": "sms"}])
    answer = await get(client, root, "/conversations" + only_sms)
    assert answer["total"] == 2 and {c["type"] for c in answer["data"]} == {"in"}
    assert (await get(client, root, f"/conversations/{called['id']}"))["data"] == called
    assert call["id"]
    response = await client.delete("/v1.2/voipstudio/cdrs", headers=root.headers())
    assert response.status == 204
    assert [c["channel"] for c in (await get(client, root, "/conversations?sort=id"))["data"]] == [
        "sms", "sms", "fax"]  # the calls go with their records  # fmt: skip
    await error_of(await client.get("/v1.2/voipstudio/conversations/999999", headers=root.headers()), 404)


async def made_in_turn(client, root) -> list[tuple[str, int]]:
    """An SMS received, a call, a fax received and another call, one after another (on a number that
    takes SMS and faxes): (channel, record id) of each."""
    made = []
    for channel in ("sms", "call", "fax", "call"):
        if channel == "call":
            record = (await place(client, root, to=LANDLINE))["data"]
            await advance(client, TALKED + 1)
            (record,) = (await get(client, root, "/cdrs" + by_live_id(record["id"])))["data"]
        elif channel == "sms":
            response = await client.post("/_telephony/simulate/inbound-sms", json={"from": "+33123456789",
                                         "to": FAX_LINE, "text": "Hello"}, headers=CONTROL)  # fmt: skip
            record = (await response.json())["data"]
        else:
            record = (await fax(client))["data"]
        made.append((channel, record["id"]))
        await advance(client, 5)
    return made


async def newest_first(client, root) -> list[tuple[int, str, int]]:
    """(id, channel, source_id) of the conversations as the official CLI asks for them."""
    listed = await get(client, root, "/conversations?sort=id&dir=DESC&limit=100&page=1&filter=[]")
    return [(c["id"], c["channel"], c["source_id"]) for c in listed["data"]]


async def test_conversations_by_id_descending_are_newest_first_and_a_replay_gives_the_same_ids(client, root):
    await provision(client, fax_enabled=True, sms_enabled=True)
    made = await made_in_turn(client, root)
    assert await newest_first(client, root) == [(4 - n, *made[3 - n]) for n in range(4)]
    assert (await client.delete("/v1.2/voipstudio/cdrs", headers=root.headers())).status == 204
    await made_in_turn(client, root)  # ids of the cleared calls are not given again
    assert [id_ for id_, _, _ in await newest_first(client, root)] == [8, 7, 6, 5, 3, 1]
    assert replay_difference(client.app[SETTINGS]) is None  # a fresh replay gives the same ids


async def test_an_export_and_import_keeps_the_conversations_in_the_order_they_were_made(aiohttp_client, client,
                                                                                       root, tmp_path):  # fmt: skip
    await provision(client, fax_enabled=True, sms_enabled=True)
    made = await made_in_turn(client, root)
    exported = tmp_path / "seed.jsonl"
    exported.write_bytes(await (await client.get("/_telephony/export", headers=CONTROL)).read())
    source = client.app[SETTINGS].data_dir
    fresh = tmp_path / "fresh"
    done = telephony("--data-dir", fresh, "import", exported, "--seal-key", source, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    restored = await aiohttp_client(create_app(Settings(storage=Storage(data_dir=str(fresh)),
                                                        control=Control(key=CONTROL_KEY))))  # fmt: skip
    again = await login(restored, "v1.2", *ADMIN)
    assert await newest_first(restored, again) == await newest_first(client, root) == [
        (4 - n, *made[3 - n]) for n in range(4)]  # fmt: skip


FIELDS = ("id", "calldate", "created_at", "src", "dst", "from", "to", "duration", "type", "user_id", "visitor_name",
          "visitor_id", "operator_id", "billsec", "message")  # fmt: skip
VALUES = (
    st.none()
    | st.booleans()
    | st.integers(-5, 10**12)
    | st.sampled_from(["I", "O", "M", "in", "out", "x"])
    | st.text(max_size=8)
)


@settings(max_examples=300, deadline=None)
@given(channel=st.sampled_from(CHANNELS), body=st.dictionaries(st.sampled_from(FIELDS), VALUES),
       id_=st.integers(1, 10**9), customer_id=st.integers(1, 10**6))  # fmt: skip
def test_a_rebuild_reads_a_record_made_into_the_conversation_a_live_append_makes(channel, body, id_, customer_id):
    """The conversation a rebuild makes from a record's stored JSON, decoding only the fields it reads,
    is the one the feed makes of the whole decoded event, whatever fields the record has or lacks."""
    made = RESOURCES[KINDS[channel]].created(id=id_, customer_id=customer_id, body={**body, "id": id_})
    feed = FEEDS["conversation"][type(made)]
    event = RecordedEvent(position=1, stream="s", version=1, type=f"{KINDS[channel]}.created", schema=1, event=made,
                          meta=Metadata(), recorded_at="", hash="")  # fmt: skip
    assert feed.from_json(EVENTS.written(made)[2]) == list(feed(event))
