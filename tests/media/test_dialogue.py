"""The SIP dialogue drawn from a call's events: per leg, the exact exchange each event implies, at
the event's time, between the right addresses, with headers that hold a dialog together."""

from __future__ import annotations

import re

import dpkt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from telephony.media import pcap
from telephony.media.dialogue import dialogue, leg_dialogue
from telephony.media.sip import SipMessage, render_trace

from .calls import CALL, OTHER, OUTSIDE, USER, T, answered_click, connected, event, failed_click, inbound_call, placed
from .decoders import read_pcap

PLATFORM, CLIENT, CARRIER = "192.0.2.10", "198.51.100.7", "203.0.113.5"
SETUP = ["INVITE", "100 INVITE", "180 INVITE", "200 INVITE", "ACK"]
CANCELLED = ["INVITE", "100 INVITE", "180 INVITE", "CANCEL", "200 CANCEL", "487 INVITE", "ACK"]
HANGUP = ["BYE", "200 BYE"]


def header(message: SipMessage, name: str) -> str:
    head = message.text.split("\r\n\r\n", 1)[0]
    (value,) = re.findall(rf"^{name}: ([^\r\n]*)", head, flags=re.MULTILINE | re.IGNORECASE)
    return value


def label(message: SipMessage) -> str:
    """A request's method, or a response's status and the method it answers: "180 INVITE"."""
    if message.first_line.startswith("SIP/"):
        return f"{message.first_line.split()[1]} {header(message, 'CSeq').split()[1]}"
    return message.first_line.split()[0]


def steps(messages: list[SipMessage], leg: str) -> list[str]:
    return [label(m) for m in messages if m.leg == leg]


def find(messages: list[SipMessage], leg: str, step: str, nth: int = 0) -> SipMessage:
    return [m for m in messages if m.leg == leg and label(m) == step][nth]


def at(message: SipMessage) -> float:
    return message.at.timestamp()


def body(message: SipMessage) -> str:
    return message.text.split("\r\n\r\n", 1)[1]


def test_an_answered_click_to_call_rings_the_user_then_the_destination_and_ends_with_two_byes():
    messages = dialogue(answered_click())
    assert steps(messages, "src") == SETUP + HANGUP
    assert steps(messages, "dst") == SETUP + ["INVITE", "200 INVITE", "ACK"] * 2 + HANGUP
    assert at(find(messages, "src", "180 INVITE")) == pytest.approx(T + 0.5)
    assert at(find(messages, "src", "INVITE")) == pytest.approx(T + 0.49)
    assert at(find(messages, "src", "200 INVITE")) == pytest.approx(T + 3)
    assert at(find(messages, "dst", "180 INVITE")) == pytest.approx(T + 3.5)
    assert at(find(messages, "dst", "200 INVITE")) == pytest.approx(T + 10)
    assert at(find(messages, "dst", "INVITE", 1)) == pytest.approx(T + 20)
    assert at(find(messages, "dst", "INVITE", 2)) == pytest.approx(T + 30)
    assert at(find(messages, "dst", "BYE")) == pytest.approx(T + 40)
    assert [at(m) for m in messages] == sorted(at(m) for m in messages)
    assert messages.index(find(messages, "dst", "BYE")) < messages.index(find(messages, "src", "BYE"))


def test_each_message_goes_between_the_platform_and_the_party_s_address():
    messages = dialogue(answered_click())
    invite, ringing = find(messages, "src", "INVITE"), find(messages, "src", "180 INVITE")
    assert (invite.source_address, invite.target_address) == (PLATFORM, CLIENT)
    assert (ringing.source_address, ringing.target_address) == (CLIENT, PLATFORM)
    assert invite.first_line == "INVITE sip:1000002@198.51.100.7:5060 SIP/2.0"
    bye = find(messages, "dst", "BYE")
    assert (bye.source_address, bye.target_address, bye.source) == (CARRIER, PLATFORM, "+441234567890")
    assert (find(messages, "src", "BYE").source_address, find(messages, "src", "BYE").source) == (
        PLATFORM,
        "+441234567890",
    )
    assert {m.source_address for m in messages} | {m.target_address for m in messages} == {PLATFORM, CLIENT, CARRIER}


def test_hold_and_resume_are_re_invites_to_the_remote_leg_with_the_stream_direction():
    messages = dialogue(answered_click())
    hold, held = find(messages, "dst", "INVITE", 1), find(messages, "dst", "200 INVITE", 1)
    resume, resumed = find(messages, "dst", "INVITE", 2), find(messages, "dst", "200 INVITE", 2)
    assert "a=sendonly" in body(hold) and "a=recvonly" in body(held)
    assert "a=sendrecv" in body(resume) and "a=sendrecv" in body(resumed)
    versions = [int(body(m).split("\r\n")[1].split()[2]) for m in (find(messages, "dst", "INVITE"), hold, resume)]
    assert versions == [0, 1, 2]


def test_a_dialog_keeps_its_call_id_and_tags_and_its_cseq_rises():
    messages = dialogue(answered_click())
    for leg in ("src", "dst"):
        mine = [m for m in messages if m.leg == leg]
        assert {header(m, "Call-ID") for m in mine} == {f"{CALL}-{leg}@telephony"}
        tags = {tag for m in mine for name in ("From", "To") for tag in re.findall(r"tag=(\w+)", header(m, name))}
        assert len(tags) == 2  # this server's and the party's, from first to last
        numbers = [int(header(m, "CSeq").split()[0]) for m in mine if not m.first_line.startswith("SIP/")]
        assert numbers == sorted(numbers)
    assert [header(m, "CSeq") for m in messages if m.leg == "dst" and not m.first_line.startswith("SIP/")] == [
        "1 INVITE", "1 ACK", "2 INVITE", "2 ACK", "3 INVITE", "3 ACK", "4 BYE"]  # fmt: skip


def test_responses_carry_their_request_s_via_and_content_length_counts_the_body():
    messages = dialogue(answered_click())
    invite = find(messages, "src", "INVITE")
    for step in ("100 INVITE", "180 INVITE", "200 INVITE"):
        assert header(find(messages, "src", step), "Via") == header(invite, "Via")
    assert header(find(messages, "src", "ACK"), "Via") != header(invite, "Via")  # the ACK of a 2xx is new
    for message in messages:
        assert int(header(message, "Content-Length")) == len(body(message).encode())
        requester = message.target_address if message.first_line.startswith("SIP/") else message.source_address
        assert header(message, "Via").startswith(f"SIP/2.0/UDP {requester}:5060;branch=z9hG4bK")


def test_user_agents_are_the_parties_own_and_the_platform_s():
    messages = dialogue(answered_click())
    assert header(find(messages, "src", "180 INVITE"), "User-Agent") == "Zoiper rv2.10"
    assert header(find(messages, "src", "INVITE"), "User-Agent") == "telephony"
    assert "User-Agent" not in find(messages, "dst", "180 INVITE").text  # an outside number's gateway says nothing


def test_sdp_offers_the_party_s_codec():
    messages = dialogue(answered_click())
    assert "m=audio" in body(find(messages, "src", "INVITE"))
    assert re.search(r"m=audio \d+ RTP/AVP 8 101", body(find(messages, "src", "INVITE")))
    assert "a=rtpmap:8 PCMA/8000" in body(find(messages, "src", "200 INVITE"))
    assert f"c=IN IP4 {CLIENT}" in body(find(messages, "src", "200 INVITE"))
    assert re.search(r"m=audio \d+ RTP/AVP 0 101", body(find(messages, "dst", "INVITE")))
    assert header(find(messages, "src", "INVITE"), "Content-Type") == "application/sdp"


FAILURES = [
    ("user busy", "486 INVITE"),
    ("call rejected", "603 INVITE"),
    ("unallocated number", "404 INVITE"),
    ("temporary failure", "503 INVITE"),
    ("no user responding", "480 INVITE"),
]


@pytest.mark.parametrize(("cause", "status"), FAILURES)
def test_a_failure_is_the_ringing_leg_s_final_answer_and_the_other_leg_is_hung_up(cause, status):
    messages = dialogue(failed_click(cause))
    assert steps(messages, "dst") == ["INVITE", "100 INVITE", "180 INVITE", status, "ACK"]
    assert steps(messages, "src") == SETUP + HANGUP
    final, ack = find(messages, "dst", status), find(messages, "dst", "ACK")
    assert at(final) == pytest.approx(T + 20) and final.source_address == CARRIER
    assert header(ack, "Via") == header(find(messages, "dst", "INVITE"), "Via")
    assert header(ack, "CSeq") == "1 ACK" and "tag=" in header(ack, "To")
    assert find(messages, "src", "BYE").source_address == PLATFORM
    assert messages.index(ack) < messages.index(find(messages, "src", "BYE"))


def test_no_answer_cancels_the_ringing_leg():
    messages = dialogue(failed_click("no answer", by=None))
    assert steps(messages, "dst") == CANCELLED
    assert steps(messages, "src") == SETUP + HANGUP
    cancel = find(messages, "dst", "CANCEL")
    assert at(cancel) == pytest.approx(T + 20) and cancel.source_address == PLATFORM
    assert header(cancel, "Via") == header(find(messages, "dst", "INVITE"), "Via")
    assert header(cancel, "CSeq") == "1 CANCEL" and "tag=" not in header(cancel, "To")
    assert find(messages, "src", "BYE").source_address == PLATFORM


def test_an_originator_cancel_is_the_caller_s_bye_then_a_cancel_of_the_ringing_leg():
    messages = dialogue(failed_click("originator cancel", by="src"))
    assert steps(messages, "src") == SETUP + HANGUP
    assert steps(messages, "dst") == CANCELLED
    bye = find(messages, "src", "BYE")
    assert (bye.source_address, at(bye)) == (CLIENT, pytest.approx(T + 20))
    assert messages.index(bye) < messages.index(find(messages, "dst", "CANCEL"))


def test_a_failure_before_any_ringing_invites_the_first_leg_and_fails_it():
    events = [placed("click", "src", USER, OUTSIDE), event("call.ended", T + 2, cause="user busy", by="src")]
    messages = dialogue(events)
    assert steps(messages, "src") == ["INVITE", "100 INVITE", "486 INVITE", "ACK"]
    assert steps(messages, "dst") == []
    assert at(find(messages, "src", "486 INVITE")) == pytest.approx(T + 2)


def test_a_blind_transfer_is_a_refer_from_the_user_then_the_user_leaves():
    events = [placed("click", "src", USER, OUTSIDE), *connected(),
              event("call.transferred", T + 20, to="+447700900123", child_id=1008),
              event("call.ended", T + 20.5, cause="transferred", disposition="ANSWERED", by="src")]  # fmt: skip
    messages = dialogue(events)
    assert steps(messages, "src") == SETUP + ["REFER", "202 REFER", "NOTIFY", "200 NOTIFY"] + HANGUP
    assert steps(messages, "dst") == SETUP  # the destination goes on in the child call
    refer, notify = find(messages, "src", "REFER"), find(messages, "src", "NOTIFY")
    assert (refer.source_address, at(refer)) == (CLIENT, pytest.approx(T + 20))
    assert header(refer, "Refer-To") == f"<sip:+447700900123@{PLATFORM}>"
    assert notify.source_address == PLATFORM and body(notify) == "SIP/2.0 100 Trying\r\n"
    assert header(notify, "Content-Type") == "message/sipfrag;version=2.0" and header(notify, "Event") == "refer"
    bye = find(messages, "src", "BYE")
    assert (bye.source_address, at(bye)) == (CLIENT, pytest.approx(T + 20.5))


def test_a_transfer_s_child_call_rings_only_the_new_destination():
    child = 1008
    events = [placed("transfer", "dst", OUTSIDE, OTHER, call=child, ),
              event("call.ringing", T + 1, child, leg="dst"), event("call.answered", T + 4, child, leg="dst"),
              event("call.ended", T + 60, child, cause="normal clearing", by="dst")]  # fmt: skip
    messages = dialogue(events)
    assert steps(messages, "src") == HANGUP
    assert steps(messages, "dst") == SETUP + HANGUP
    assert find(messages, "src", "BYE").source_address == PLATFORM
    assert header(find(messages, "src", "BYE"), "Call-ID") == "1008-src@telephony"
    assert "tag=" in header(find(messages, "src", "BYE"), "To")
    offer = body(find(messages, "dst", "INVITE"))
    assert re.search(r"m=audio \d+ RTP/AVP 111 101", offer) and "a=rtpmap:111 opus/48000/2" in offer


def test_a_web_call_rings_two_outside_numbers_through_the_carrier():
    events = [placed("web", "src", OUTSIDE, OTHER), *connected(),
              event("call.ended", T + 30, cause="normal clearing", by="src")]  # fmt: skip
    messages = dialogue(events)
    assert steps(messages, "src") == SETUP + HANGUP
    assert steps(messages, "dst") == SETUP + HANGUP
    assert {(m.source_address, m.target_address) for m in messages} == {(PLATFORM, CARRIER), (CARRIER, PLATFORM)}
    assert messages[0].leg == "src" and find(messages, "src", "BYE").source_address == CARRIER
    assert messages.index(find(messages, "src", "ACK")) < messages.index(find(messages, "dst", "INVITE"))
    assert header(find(messages, "dst", "INVITE"), "From").startswith("<sip:+441234567890@192.0.2.10>;tag=")


def test_a_lead_call_rings_the_destination_then_the_user():
    events = [placed("lead", "dst", USER, OUTSIDE), *connected("dst", "src"),
              event("call.ended", T + 30, cause="normal clearing", by="src")]  # fmt: skip
    messages = dialogue(events)
    assert messages[0].leg == "dst" and messages[0].target_address == CARRIER
    assert steps(messages, "dst") == SETUP + HANGUP
    assert steps(messages, "src") == SETUP + HANGUP
    assert at(find(messages, "src", "180 INVITE")) == pytest.approx(T + 3.5)
    assert messages.index(find(messages, "dst", "ACK")) < messages.index(find(messages, "src", "INVITE"))
    assert find(messages, "src", "BYE").source_address == CLIENT


def test_an_inbound_call_is_the_caller_s_invite_then_the_user_rung():
    events = inbound_call()
    events.insert(3, event("call.held", T + 10))
    messages = dialogue(events)
    assert steps(messages, "src") == ["INVITE", "100 INVITE", "200 INVITE", "ACK", "INVITE", "200 INVITE", "ACK",
                                      *HANGUP]  # fmt: skip
    assert steps(messages, "dst") == SETUP + HANGUP
    invite = messages[0]
    assert (invite.source_address, invite.target_address, at(invite)) == (CARRIER, PLATFORM, pytest.approx(T))
    assert "a=sendonly" in body(find(messages, "src", "INVITE", 1))
    assert (find(messages, "src", "BYE").source_address, at(find(messages, "src", "BYE"))) == (
        CARRIER,
        pytest.approx(T + 30),
    )
    assert header(find(messages, "dst", "INVITE"), "From").startswith("<sip:+441234567890@192.0.2.10>;tag=")


def test_events_of_other_calls_after_the_end_or_without_a_placed_call_draw_nothing():
    events = answered_click()
    other = [event("call.ringing", T, 99, leg="src"), event("call.answered", T + 3, 99, leg="dst")]
    after = [event("call.held", T + 50), event("call.ended", T + 60, cause="normal clearing", by="src")]
    noisy = [other[0], *events[:4], other[1], *events[4:], *after]
    assert [m.text for m in dialogue(noisy)] == [m.text for m in dialogue(events)]
    assert dialogue([]) == [] and dialogue(events[1:]) == []


def test_a_leg_s_dialogue_is_its_share_of_the_call_s():
    events = answered_click()
    whole = dialogue(events)
    assert leg_dialogue(events, "dst") == [m for m in whole if m.leg == "dst"]
    assert leg_dialogue(events, "src") + leg_dialogue(events, "dst") == sorted(whole, key=lambda m: m.leg != "src")


def test_the_trace_shows_each_message_with_its_time_leg_and_addresses():
    text = render_trace(dialogue(answered_click()))
    assert text.startswith("2026-07-01 12:00:00.490000 [src] +441234567890 (192.0.2.10:5060) -> 201 "
                           "(198.51.100.7:5060)\nINVITE sip:1000002@198.51.100.7:5060 SIP/2.0\r\n")  # fmt: skip
    assert text.count(" -> ") == len(dialogue(answered_click()))


def test_a_dialogue_is_the_same_every_time():
    assert [m.text for m in dialogue(answered_click())] == [m.text for m in dialogue(answered_click())]


ODD_PARTIES = [
    None,
    {},
    {"number": "x\r\nInjected: 1", "name": 'a"b\\', "contact": "sip:@@", "codec": 5},
    {"number": None, "id": "42", "contact": "sip:9@host.example:5070", "ua": "\x00UA"},
]
PARTIES = st.sampled_from([USER, OUTSIDE, OTHER, *ODD_PARTIES])
TYPES = st.sampled_from(["call.ringing", "call.answered", "call.held", "call.resumed", "call.transferred",
                         "call.ended", "call.accepted", "call.labelled", "call.recording_started"])  # fmt: skip
CAUSES = st.sampled_from(["normal clearing", "other", None, "no answer", "originator cancel", "transferred",
                          *(cause for cause, _ in FAILURES)])  # fmt: skip
LEG = st.sampled_from(["src", "dst", None, "both"])
TIMES = st.floats(allow_nan=True, allow_infinity=True) | st.integers(-(2**70), 2**70) | st.none() | st.just("noon")
LATER = st.tuples(TYPES, st.floats(0, 100), LEG, CAUSES, st.none() | st.text(max_size=5))
KINDS = st.sampled_from(["click", "lead", "web", "transfer", "inbound", "odd"])


@settings(max_examples=300, deadline=None)
@given(kind=KINDS, first=LEG, src=PARTIES, dst=PARTIES, start=TIMES, later=st.lists(LATER, max_size=12))
def test_any_event_stream_draws_messages_in_time_order_that_a_sip_parser_reads(kind, first, src, dst, start, later):
    events = [("call.placed", {"id": CALL, "at": start, "kind": kind, "first": first, "src": src, "dst": dst})]
    base = start if isinstance(start, float | int) and abs(start) < 1e10 else T
    events += [(t, {"id": CALL, "at": base + offset, "leg": leg, "by": leg, "cause": cause, "to": to})
               for t, offset, leg, cause, to in sorted(later, key=lambda item: item[1])]  # fmt: skip
    messages = dialogue(events)
    assert [m.at for m in messages] == sorted(m.at for m in messages)
    for message in messages:
        assert not re.search(r"^Injected", message.text, flags=re.MULTILINE)
        parsed = (dpkt.sip.Response if message.first_line.startswith("SIP/") else dpkt.sip.Request)(
            message.text.encode()
        )
        assert parsed.headers["call-id"] == f"{CALL}-{message.leg}@telephony"
    read = read_pcap(pcap.capture(messages))
    assert [m.first_line for m in read] == [m.first_line for m in messages]
