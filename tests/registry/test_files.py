"""Files rendered from records: recordings are streamed with their exact length whatever their
duration, and traces and captures render any record, even one stored before imports were checked."""

from __future__ import annotations

import inspect
import tracemalloc
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from telephony.domain.events import events_of
from telephony.domain.types import MAX_CALL_SECONDS
from telephony.eventlog import NewEvent
from telephony.keys import EVENT_LOG
from telephony.media import mp3, pcap, sip
from telephony.projections.sequences import next_id

from ..media.decoders import decode_mp3, read_pcap
from .conftest import CONTROL, LOOP, Api, Caller

TEN_HOURS = 10 * 3600


def test_a_recording_is_rendered_as_an_iterator_of_frame_chunks_never_whole():
    chunks = mp3.stream(TEN_HOURS)
    assert inspect.isgenerator(chunks)
    total = 0
    for chunk in chunks:
        assert 0 < len(chunk) <= mp3.CHUNK_FRAMES * mp3.FRAME_BYTES
        assert len(chunk) % mp3.FRAME_BYTES == 0 and chunk[:4] == mp3.FRAME_HEADER
        total += len(chunk)
    assert total == mp3.size_for(TEN_HOURS) == mp3.frames_for(TEN_HOURS) * mp3.FRAME_BYTES


def test_a_length_beyond_a_day_or_not_a_number_is_served_bounded():
    assert mp3.size_for(10**12) == mp3.size_for(MAX_CALL_SECONDS)
    assert mp3.size_for("ten") == mp3.size_for(None) == mp3.size_for(-5) == mp3.MIN_FRAMES * mp3.FRAME_BYTES


async def import_lines(api: Api, *records: tuple[str, dict]) -> None:
    body = b"\n".join(msgspec.json.encode({"resource": r, "customer_id": 100001, "data": d}) for r, d in records)
    reply = await api.call("POST", "/_telephony/import", data=body, headers=CONTROL)
    assert reply.status == 200, reply


@LOOP
async def test_a_ten_hour_recording_is_streamed_with_its_exact_length(api: Api, home: Caller):
    await import_lines(api, ("monitors", {"id": 777001, "live_id": 1, "duration": TEN_HOURS}),
                       ("voicemessages", {"id": 777002, "duration": TEN_HOURS}))  # fmt: skip
    monitor = await api.ok("GET", "/monitors/777001", home)
    assert monitor["data"]["size"] == mp3.size_for(TEN_HOURS) == mp3.frames_for(TEN_HOURS) * 144
    for path in ("/monitors/777001.mp3", "/voicemessages/777002.mp3"):
        tracemalloc.start()
        try:
            response = await api.client.get(f"/v1.2/voipstudio{path}", headers=home.headers)
            assert response.status == 200 and response.content_type == "audio/mpeg"
            assert int(response.headers["Content-Length"]) == monitor["data"]["size"]
            received = 0
            async for chunk in response.content.iter_chunked(1 << 20):
                received += len(chunk)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert received == monitor["data"]["size"]
        assert peak < 16 * 1024 * 1024, f"serving {path} held {peak} bytes at once"


ODD_RECORDS: list[dict[str, Any]] = [
    {"calldate": "not a date", "duration": -5, "billsec": "abc"},
    {"calldate": "2026-02-30 12:00:00", "duration": 10**12, "billsec": 10**12},
    {"calldate": "9999-12-31 23:59:59", "duration": 86_400, "disposition": "NO_ANSWER"},
    {"calldate": "0001-01-01 00:00:00", "duration": 1.5, "src": "x" * 100_000, "dst": None},
    {"calldate": 12345, "created_at": ["no"], "duration": None, "billsec": None, "live_id": {"a": 1}},
    {},
]


async def store_raw(api: Api, kind: str, customer_id: int, body: dict) -> dict:
    """A document stored as its event says, unchecked: what an old log may hold (read as stored, whole:
    the fields it lacks at their defaults); the document as read."""

    def decide(conn):
        id_ = next_id(conn, kind)
        data = {"id": id_, "customer_id": customer_id, "body": {**body, "id": id_}}
        return [NewEvent(stream=f"{kind}-{id_}", event=events_of(kind).created(**data))]

    (event,) = await api.app[EVENT_LOG].transact(decide)
    return msgspec.to_builtins(event.event.body)


@LOOP
async def test_trace_and_capture_render_any_stored_record(api: Api, home: Caller):
    for odd in ODD_RECORDS:
        for kind, path in (("cdr", "cdrs"), ("msdr", "msdrs")):
            fields = {info.encode_name for info in msgspec.structs.fields(events_of(kind).record)}
            body = {name: value for name, value in odd.items() if name in fields}  # what a record of the kind holds
            stored = await store_raw(api, kind, home.customer_id, body)
            for extension in ("trace", "pcap"):
                reply = await api.call("GET", f"/{path}/{stored['id']}.{extension}", home)
                assert reply.status == 200, (body, extension, reply)
                assert int(reply.headers["Content-Length"]) == len(reply.body) > 0
            messages = [m.first_line for m in read_pcap(reply.body)]
            assert messages == [m.first_line for m in sip.ladder(stored)]
            assert messages[0].startswith("INVITE ") and messages[-1].startswith(("ACK ", "SIP/2.0 200 OK"))


@LOOP
async def test_a_recording_s_mp3_decodes_to_its_duration_of_silence(api: Api, home: Caller):
    await import_lines(api, ("monitors", {"id": 777003, "live_id": 2, "duration": 7}),
                       ("voicemessages", {"id": 777004, "duration": 0}))  # fmt: skip
    for path, seconds in (("/monitors/777003.mp3", 7), ("/voicemessages/777004.mp3", 0)):
        response = await api.client.get(f"/v1.2/voipstudio{path}", headers=home.headers)
        assert response.status == 200
        rate, frames, loudest = decode_mp3(await response.read())
        assert rate == 32_000 and loudest == 0
        assert frames == mp3.frames_for(seconds) * 1152 and seconds <= frames / rate < seconds + 0.08


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)
FIELDS = st.sampled_from(["calldate", "created_at", "duration", "billsec", "disposition", "src", "dst", "live_id",
                          "call_id", "id"])  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(record=st.dictionaries(FIELDS, JSON_VALUES | st.sampled_from(["2026-07-01 12:00:00", "9999-12-31 23:59:59"])))
def test_any_record_renders_a_trace_and_a_capture(record):
    assert sip.trace_text(record)
    messages = sip.ladder(record)
    assert [m.first_line for m in read_pcap(pcap.capture(messages))] == [m.first_line for m in messages]
