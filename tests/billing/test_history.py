"""The unified history (conversations) and inbound faxes: their records, PDFs and mails."""

from __future__ import annotations

import io
import json

import msgspec
import pypdf
from hypothesis import given, settings
from hypothesis import strategies as st

from telephony.eventlog import Metadata, RecordedEvent
from telephony.history.conversations import CHANNELS, FEEDS
from tests.accounts.helpers import CONTROL, error_of
from tests.billing.test_billing import LANDLINE, TALKED
from tests.calls.helpers import advance, get, place
from tests.calls.test_voicemail_mail import settled

HOME = 100001
FAX_LINE = "+442071230999"
KINDS = {"call": "cdr", "sms": "sms", "fax": "fax", "chat": "chat"}


async def provision(client, **fields) -> None:
    response = await client.post(f"/_telephony/customers/{HOME}/ddis", json={"e164": FAX_LINE, **fields},
                                 headers=CONTROL)  # fmt: skip
    assert response.status == 201, await response.text()


async def fax(client, status: int = 201, **body) -> dict:
    response = await client.post("/_telephony/simulate/inbound-fax", json={"from": "+33123456789", "to": FAX_LINE,
                                 **body}, headers=CONTROL)  # fmt: skip
    answer = await response.json()
    assert response.status == status, answer
    return answer


async def sms_imported(client, *texts: str) -> None:
    lines = [json.dumps({"resource": "sms", "customer_id": HOME, "data": {
        "id": 500 + n, "created_at": f"2026-01-0{n + 1} 10:00:00", "from": "+447700900111", "to": "+447700900222",
        "message": text, "type": "in", "result": "RECEIVED"}}) for n, text in enumerate(texts)]  # fmt: skip
    response = await client.post("/_telephony/import", data="\n".join(lines), headers=CONTROL)
    assert response.status == 200, await response.text()


async def test_a_fax_received_on_a_fax_number_is_a_record_a_pdf_and_a_mail(client, root):
    await provision(client, fax_enabled=True, fax_email="faxes@example.com")
    record = (await fax(client, pages=3))["data"]
    assert (record["pages"], record["status"], record["type"], record["to"]) == (3, 4, 1, FAX_LINE)
    assert (await get(client, root, "/faxes"))["data"] == [record]
    response = await client.get(f"/v1.2/voipstudio/faxes/{record['id']}.pdf", headers=root.headers())
    assert response.content_type == "application/pdf"
    document = pypdf.PdfReader(io.BytesIO(body := await response.read()))
    assert len(document.pages) == 3 and "Page 3 of 3" in document.pages[2].extract_text()
    await settled(client)
    (mail,) = (await (await client.get("/_telephony/outbox?to=faxes@example.com", headers=CONTROL)).json())["data"]
    (attached,) = mail["attachments"]
    assert (attached["media_type"], attached["size"], attached["filename"]) == ("application/pdf", len(body),
                                                                                 record["filename"])  # fmt: skip


async def test_faxes_only_reach_numbers_that_take_them(client, root):
    assert (await fax(client, 404))["errors"]
    await provision(client)
    assert (await fax(client, 400))["errors"][0]["field"] == "to"
    assert (await fax(client, 400, pages=0))["errors"][0]["field"] == "pages"


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
    assert [c["channel"] for c in listed] == ["call", "fax", "sms", "sms"]  # ids are drawn from the records'
    assert [c["id"] for c in listed] == [1 * 4, 1 * 4 + 2, 500 * 4 + 1, 501 * 4 + 1]
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
        "fax", "sms", "sms"]  # the calls go with their records  # fmt: skip
    await error_of(await client.get("/v1.2/voipstudio/conversations/999999", headers=root.headers()), 404)


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
    data = {"id": id_, "customer_id": customer_id, "body": {**body, "id": id_}}
    feed = FEEDS["conversation"][f"{KINDS[channel]}.created"]
    event = RecordedEvent(position=1, stream="s", version=1, type=f"{KINDS[channel]}.created", schema=1, data=data,
                          meta=Metadata(), recorded_at="", hash="")  # fmt: skip
    assert feed.from_json(msgspec.json.encode(data)) == list(feed(event))
