"""The SIP codec: what it parses it serializes back the same, and any other text is `Malformed`,
never another error (generated and mutated messages, hypothesis)."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from telephony.sip.codec import MAX_MESSAGE_BYTES, Malformed, encode, parse, reply

OPTIONS = (
    "OPTIONS sip:1.sip.telephony.local SIP/2.0\r\n"
    "Via: SIP/2.0/WSS df7jal23ls0d.invalid;branch=z9hG4bK5130707\r\n"
    "Max-Forwards: 70\r\n"
    "To: <sip:1.sip.telephony.local>\r\n"
    'From: "CTI Connector" <sip:1000001@1.sip.telephony.local>;tag=ab12\r\n'
    "Call-ID: 3f9a8c7d\r\n"
    "CSeq: 7 OPTIONS\r\n"
    "Content-Length: 0\r\n\r\n"
)

token = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=12)
display = st.text(alphabet="ABCDEFGHIJ abcdefghij", max_size=16).map(str.strip)
methods = st.sampled_from(["OPTIONS", "SUBSCRIBE", "REGISTER", "INVITE", "BYE", "CANCEL", "NOTIFY"])


@st.composite
def requests(draw) -> bytes:
    """A well-formed request of the shape browser clients send."""
    method, user, host, tag, call_id = draw(methods), draw(token), draw(token), draw(token), draw(token)
    body = draw(st.text(alphabet="abcdefghij=\r\n ", max_size=64)).encode()
    name = draw(display)
    lines = [f"{method} sip:{user}@{host}.invalid SIP/2.0", f"Via: SIP/2.0/WSS {host}.invalid;branch=z9hG4bK{tag}",
             "Max-Forwards: 70", f"To: <sip:{user}@{host}.invalid>",
             f'From: "{name}" <sip:{user}@{host}.invalid>;tag={tag}' if name else f"From: <sip:{user}@x>;tag={tag}",
             f"Call-ID: {call_id}", f"CSeq: {draw(st.integers(0, 2**31 - 1))} {method}",
             f"Content-Length: {len(body)}"]  # fmt: skip
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def test_a_browser_clients_options_parses_and_is_answered_with_its_headers_copied():
    request = parse(OPTIONS.encode())
    text = encode(reply(request, 200, tag="srv1"))
    assert text.startswith("SIP/2.0 200 OK\r\n")
    answer = parse(text.encode())
    assert answer.call_id == "3f9a8c7d" and answer.cseq.sequence == 7
    assert answer.to_address.parameters["tag"] == "srv1"
    assert answer.headers["Via"] == "SIP/2.0/WSS df7jal23ls0d.invalid;branch=z9hG4bK5130707"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty line"),
        ("HELLO\r\n\r\n", "neither request nor response"),
        (OPTIONS.replace("CSeq: 7 OPTIONS", "CSeq: 7 INVITE"), "CSeq method"),
        (OPTIONS.replace("Call-ID: 3f9a8c7d\r\n", ""), "Missing header Call-ID"),
        (OPTIONS.replace("Max-Forwards: 70\r\n", ""), "Missing header Max-Forwards"),
        (OPTIONS.replace("Content-Length: 0", "Content-Length: 5"), "Content-Length"),
        (OPTIONS.replace("Call-ID: 3f9a8c7d\r\n", "Call-ID: a\r\ni: b\r\n"), "more than once"),
        (OPTIONS.replace("sip:1.sip", "http:1.sip"), "not valid"),
        (OPTIONS.replace("To: <", "To: <<"), "not valid"),
    ],
)
def test_a_message_outside_the_grammar_is_malformed_with_its_reason(text, reason):
    with pytest.raises(Malformed) as refused:
        parse(text.encode())
    assert reason in refused.value.reason and refused.value.status == 400


def test_a_message_over_64_kib_is_refused_as_too_large():
    big = OPTIONS.replace("Content-Length: 0", f"Content-Length: {MAX_MESSAGE_BYTES}") + "x" * MAX_MESSAGE_BYTES
    with pytest.raises(Malformed) as refused:
        parse(big.encode())
    assert refused.value.status == 513


@given(requests())
def test_a_generated_request_parses_and_serializes_back_the_same(data):
    message = parse(data)
    again = parse(encode(message).encode())
    assert (again.method, again.uri, again.call_id, again.cseq) == (message.method, message.uri, message.call_id,
                                                                    message.cseq)  # fmt: skip
    assert again.from_address == message.from_address and again.body == message.body


@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=300)
@given(requests(), st.data())
def test_a_mutated_request_parses_or_is_malformed_and_nothing_else(data, draw):
    mutated = bytearray(data)
    for _ in range(draw.draw(st.integers(1, 4))):
        at = draw.draw(st.integers(0, len(mutated)))
        match draw.draw(st.sampled_from(["flip", "cut", "insert"])):
            case "flip" if at < len(mutated):
                mutated[at] = draw.draw(st.integers(0, 255))
            case "cut":
                del mutated[at : at + draw.draw(st.integers(1, 40))]
            case _:
                mutated[at:at] = draw.draw(st.binary(max_size=16) | st.sampled_from([b":", b"\r\n", b"<", b";", b'"']))
    with contextlib.suppress(Malformed):
        parse(bytes(mutated))


@settings(max_examples=200)
@given(st.binary(max_size=512))
def test_arbitrary_bytes_parse_or_are_malformed(data):
    with contextlib.suppress(Malformed):
        parse(data)
