"""SIP messages on the wire (RFC 3261, over WebSocket RFC 7118): a strict parse and the replies to a request.

Parsing and serializing are `sipmessage`'s (a typed, dependency-free parser of SIP messages and of
each header's grammar). This module adds what a server must refuse before it acts on a message: a
message larger than `MAX_MESSAGE_BYTES`, a start line or header that does not parse, a missing
mandatory header (`Via`, `From`, `To`, `Call-ID`, `CSeq`; `Max-Forwards` on requests), a `CSeq`
whose method is not the request's, a `Content-Length` that is not the body's length. Each is a
`Malformed` with the reason, which the transport answers with 400 (513 for the size).
"""

from __future__ import annotations

import re

from sipmessage import URI, Address, CSeq, Message, Request, Response

MAX_MESSAGE_BYTES = 64 * 1024
REQUIRED = ("Via", "From", "To", "Call-ID", "CSeq")
SINGLE = ("From", "To", "Call-ID", "CSeq", "Max-Forwards", "Content-Length", "Content-Type", "Expires", "Event")
TOKEN = re.compile(r"^[A-Za-z0-9.!%*_+`'~-]+$")
PHRASES = {100: "Trying", 180: "Ringing", 200: "OK", 202: "Accepted", 400: "Bad Request", 401: "Unauthorized",
           402: "Payment Required", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
           408: "Request Timeout", 420: "Bad Extension", 423: "Interval Too Brief", 480: "Temporarily Unavailable",
           481: "Call/Transaction Does Not Exist", 486: "Busy Here", 487: "Request Terminated", 489: "Bad Event",
           500: "Server Internal Error", 501: "Not Implemented", 503: "Service Unavailable", 513: "Message Too Large",
           603: "Decline"}  # fmt: skip
_PRINTABLE, _UNPRINTABLE = re.compile(r"[ -~]*"), re.compile(r"[^ -~]")
_ERRORS = (ValueError, KeyError, IndexError, TypeError, UnicodeError)
"""What `sipmessage` raises on text outside its grammar."""


class Malformed(ValueError):
    """A message that cannot be acted on; `status` is the answer it gets (400, or 513 for its size)."""

    def __init__(self, reason: str, status: int = 400) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status


def parse(data: bytes) -> Request | Response:
    """The message in `data`, checked as the module says; `Malformed` otherwise."""
    if len(data) > MAX_MESSAGE_BYTES:
        raise Malformed(f"A message is at most {MAX_MESSAGE_BYTES} bytes", 513)
    if b"\r\n\r\n" not in data:
        raise Malformed("The headers do not end with an empty line")
    try:
        message = Message.parse(data)
        _check(message)
    except Malformed:
        raise
    except _ERRORS as error:
        raise Malformed(_reason(error)) from None
    return message


def _check(message: Request | Response) -> None:
    for name in message.headers.keys():  # noqa: SIM118 - Headers is no dict: its names, in order
        if not TOKEN.fullmatch(name):
            raise Malformed("A header name is not a token")
    missing = [name for name in REQUIRED if message.headers.get(name) is None]
    if isinstance(message, Request) and message.headers.get("Max-Forwards") is None and message.method != "ACK":
        missing.append("Max-Forwards")
    if missing:
        raise Malformed(f"Missing header {missing[0]}")
    if twice := [name for name in SINGLE if len(message.headers.getlist(name)) > 1]:
        raise Malformed(f"Header {twice[0]} appears more than once")
    message.via, message.from_address, message.to_address  # noqa: B018 - each parses or raises
    cseq = message.cseq
    if isinstance(message, Request):
        if not TOKEN.fullmatch(message.method) or message.uri.scheme not in ("sip", "sips"):
            raise Malformed("The request line is not a SIP request")
        if cseq.method != message.method:
            raise Malformed("The CSeq method is not the request's")
        if message.max_forwards is not None and not 0 <= message.max_forwards <= 255:
            raise Malformed("Max-Forwards is out of range")
    elif not 100 <= message.code <= 699:
        raise Malformed("The status code is out of range")
    if not 0 <= cseq.sequence < 2**31:
        raise Malformed("The CSeq number is out of range")
    for name in ("Contact", "Expires", "Content-Type", "Authorization"):
        if message.headers.get(name) is not None:
            _parsed_header(message, name)
    length = message.content_length
    if length is not None and length != len(message.body):
        raise Malformed("Content-Length is not the length of the body")


def _parsed_header(message: Message, name: str) -> None:
    match name:
        case "Contact":
            if message.headers.get("Contact") != "*":
                message.contact  # noqa: B018
        case "Expires":
            if not 0 <= (message.expires or 0) < 2**32:
                raise Malformed("Expires is out of range")
        case "Content-Type":
            message.content_type  # noqa: B018
        case "Authorization":
            message.authorization  # noqa: B018


def _reason(error: Exception) -> str:
    text = str(error) if isinstance(error, ValueError) and str(error) else "The message does not parse"
    return text[:200]


def refusal(data: bytes, malformed: Malformed) -> str | None:
    """The answer to a request that did not parse: its status, the reason as the phrase, and the headers
    a reply copies that could be read; None for what is no request (a response is never answered)."""
    text = data[:MAX_MESSAGE_BYTES].decode("utf-8", "replace")
    head, _, _ = text.partition("\r\n\r\n")
    first, *lines = head.split("\r\n")
    if first.startswith("SIP/2.0 ") or not first.strip():
        return None
    names = {"via": "Via", "v": "Via", "from": "From", "f": "From", "to": "To", "t": "To", "call-id": "Call-ID",
             "i": "Call-ID", "cseq": "CSeq"}  # fmt: skip
    copied = []
    for line in lines:
        name, colon, value = line.partition(":")
        if colon and name.strip().lower() in names and _PRINTABLE.fullmatch(value.strip()):
            copied.append(f"{names[name.strip().lower()]}: {value.strip()}\r\n")
    phrase = _UNPRINTABLE.sub("", malformed.reason)[:120] or PHRASES[malformed.status]
    return f"SIP/2.0 {malformed.status} {phrase}\r\n{''.join(copied)}Content-Length: 0\r\n\r\n"


def encode(message: Request | Response) -> str:
    """The message as the text of a WebSocket frame, its `Content-Length` set."""
    message.content_length = len(message.body)
    return bytes(message).decode("utf-8")


def reply(request: Request, code: int, *, tag: str | None = None, body: bytes = b"",
          content_type: str | None = None) -> Response:  # fmt: skip
    """A response to `request`: its Via, From, Call-ID and CSeq copied, its To with `tag` when it has none."""
    response = Response(code, PHRASES.get(code, "Unknown"), body)
    response.headers.setlist("Via", list(request.headers.getlist("Via")))
    for name in ("From", "Call-ID", "CSeq"):
        response.headers.set(name, request.headers[name])
    to = request.to_address
    if tag is not None and "tag" not in to.parameters and code > 100:
        to = Address(uri=to.uri, name=to.name, parameters=to.parameters.replace(tag=tag))
    response.to_address = to
    if content_type is not None:
        response.headers.set("Content-Type", content_type)
    return response


def request(method: str, uri: URI | str, *, sequence: int, headers: list[tuple[str, str]],
            body: bytes = b"") -> Request:  # fmt: skip
    """A request this server sends: `headers` (Via, From, To, Call-ID, ...) in order, then CSeq and Max-Forwards."""
    sent = Request(method, URI.parse(uri) if isinstance(uri, str) else uri, body)
    for name, value in headers:
        sent.headers.add(name, value)
    sent.cseq = CSeq(sequence=sequence, method=method)
    sent.max_forwards = 70
    return sent
