"""A SIP ladder for a finished call: the messages its record implies, with their times.

Any record renders: a time that is missing or not a UTC time starts the call at the epoch, a
duration that is not a number counts as none, and durations are bounded to `MAX_CALL_SECONDS`.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from ..clock import parse_wire_time
from ..domain.types import MAX_CALL_SECONDS

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
LAST_START = datetime(9999, 1, 1, tzinfo=UTC) - timedelta(seconds=3 * MAX_CALL_SECONDS)
"""The latest a ladder starts, so that its last message still has a time."""


@dataclass(frozen=True)
class SipMessage:
    at: datetime
    source: str
    target: str
    text: str


def _message(first_line: str, src: str, dst: str, call_id: str, cseq: str, body: str = "") -> str:
    branch = zlib.crc32((call_id + cseq + first_line).encode())
    headers = [
        first_line,
        f"Via: SIP/2.0/UDP {src}:5060;branch=z9hG4bK{branch:08x}",
        f"From: <sip:{src}>;tag=a{call_id[:8]}",
        f"To: <sip:{dst}>",
        f"Call-ID: {call_id}",
        f"CSeq: {cseq}",
        "User-Agent: telephony",
        f"Content-Length: {len(body)}",
    ]
    return "\r\n".join(headers) + "\r\n\r\n" + body


def ladder(record: dict) -> list[SipMessage]:
    """INVITE, provisional and final answers, and BYE, timed from `calldate`/`created_at` and durations."""
    start = _start(record)
    src, dst = str(record.get("src") or "anonymous"), str(record.get("dst") or "unknown")
    call_id = f"{record.get('live_id') or record.get('call_id') or record.get('id')}@telephony"
    duration = _seconds(record.get("duration"))
    billsec = _seconds(record.get("billsec")) if record.get("billsec") is not None else duration
    answered = record.get("disposition", "CONNECTED") == "CONNECTED" or billsec > 0
    ring = max(duration - billsec, 0) if answered else duration
    sdp = "v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\n"
    steps = [
        (0.0, src, dst, f"INVITE sip:{dst} SIP/2.0", "1 INVITE", sdp),
        (0.05, dst, src, "SIP/2.0 100 Trying", "1 INVITE", ""),
        (0.2, dst, src, "SIP/2.0 180 Ringing", "1 INVITE", ""),
    ]
    if answered:
        steps += [
            (ring, dst, src, "SIP/2.0 200 OK", "1 INVITE", sdp),
            (ring + 0.02, src, dst, f"ACK sip:{dst} SIP/2.0", "1 ACK", ""),
            (ring + billsec, src, dst, f"BYE sip:{dst} SIP/2.0", "2 BYE", ""),
            (ring + billsec + 0.02, dst, src, "SIP/2.0 200 OK", "2 BYE", ""),
        ]
    else:
        steps += [
            (ring, src, dst, f"CANCEL sip:{dst} SIP/2.0", "1 CANCEL", ""),
            (ring + 0.02, dst, src, "SIP/2.0 487 Request Terminated", "1 INVITE", ""),
        ]
    return [SipMessage(start + timedelta(seconds=offset), a, b, _message(line, a, b, call_id, cseq, body))
            for offset, a, b, line, cseq, body in steps]  # fmt: skip


def _start(record: dict) -> datetime:
    for key in ("calldate", "created_at"):
        value = record.get(key)
        if isinstance(value, str):
            try:
                return min(parse_wire_time(value), LAST_START)
            except ValueError:
                continue
    return EPOCH


def _seconds(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        return 0
    return int(min(max(value, 0), MAX_CALL_SECONDS))


def trace_text(record: dict) -> str:
    """The ladder as a readable trace."""
    blocks = [f"{m.at:%Y-%m-%d %H:%M:%S.%f} {m.source} -> {m.target}\n{m.text}" for m in ladder(record)]
    return "\n".join(blocks)
