"""The files the server renders, read back by real readers: MP3 decoded sample by sample, captures
parsed frame by frame down to the SIP message."""

from __future__ import annotations

import pytest

from telephony.media import mp3, pcap, sip
from telephony.media.dialogue import dialogue

from .calls import T, answered_click, inbound_call
from .decoders import decode_mp3, read_pcap


@pytest.mark.parametrize("seconds", [0.05, 1.0, 3.0, 12.5, 61.0])
def test_silence_decodes_to_its_length_of_zero_samples(seconds):
    data = mp3.silence(seconds)
    rate, frames, loudest = decode_mp3(data)
    assert rate == 32_000
    assert seconds <= frames / rate < seconds + mp3.FRAME_SECONDS
    assert frames == mp3.frames_for(seconds) * 1152
    assert loudest == 0
    assert len(data) == mp3.size_for(seconds)


def test_the_shortest_recording_still_decodes():
    rate, frames, loudest = decode_mp3(mp3.silence(0))
    assert (rate, frames, loudest) == (32_000, mp3.MIN_FRAMES * 1152, 0)


def test_a_decoder_refuses_what_is_not_mp3():
    with pytest.raises(Exception):  # noqa: B017 - libsndfile's error, whatever its class
        decode_mp3(b"ID3" + bytes(500))


@pytest.mark.parametrize("events", [answered_click(), inbound_call()], ids=["click", "inbound"])
def test_a_capture_reads_back_as_the_dialogue_in_order_at_its_times_between_its_addresses(events):
    messages = dialogue(events)
    read = read_pcap(pcap.capture(messages))
    assert [m.first_line for m in read] == [m.first_line for m in messages]
    for seen, sent in zip(read, messages, strict=True):
        assert seen.at == pytest.approx(sent.at.timestamp(), abs=1e-6)
        assert (seen.src, seen.dst) == (sent.source_address, sent.target_address)
        assert seen.header("call-id") == f"1007-{sent.leg}@telephony"
        assert int(seen.header("content-length")) == len(seen.body)
    assert {m.src for m in read} == {"192.0.2.10", "198.51.100.7", "203.0.113.5"}


def test_a_capture_keeps_microseconds_exactly():
    events = answered_click()
    ringing_at = T + 0.123457
    events[2] = ("call.ringing", {**events[2][1], "at": ringing_at})
    read = read_pcap(pcap.capture(dialogue(events)))
    assert [m.at for m in read if m.status == 180][0] == pytest.approx(ringing_at, abs=5e-7)


def test_a_record_s_ladder_reads_back_too():
    record = {"calldate": "2026-07-01 12:00:00", "src": "201", "dst": "+441234567890", "duration": 30, "billsec": 20}
    messages = sip.ladder(record)
    read = read_pcap(pcap.capture(messages))
    assert [m.first_line for m in read] == [m.first_line for m in messages]
    assert [m.method or m.status for m in read] == ["INVITE", 100, 180, 200, "ACK", "BYE", 200]
    assert [(m.src, m.dst) for m in read][:2] == [("192.0.2.10", "198.51.100.20"), ("198.51.100.20", "192.0.2.10")]
    assert [m.at for m in read] == sorted(m.at for m in read)
