"""SIP traces: `render_trace` writes any messages as the `.trace` text, and `ladder` imagines the
dialogue of a record that has no call events (imported records): the events of a call draw the real
one (see `dialogue`).

The ladder is one dialog from the record's `src` (at `PLATFORM_ADDRESS`) to its `dst` (at
`CLIENT_ADDRESS`), Call-ID `<live_id, call_id or id>@telephony`: INVITE, 100 Trying, 180 Ringing,
then 200 OK, ACK and BYE, or CANCEL and 487 when it was not answered. Any record renders: a time
that is missing or not a UTC time starts the call at the epoch, a duration that is not a number
counts as none, and durations are bounded to `MAX_CALL_SECONDS`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from ..clock import parse_wire_time
from ..domain.types import MAX_CALL_SECONDS
from .parties import Endpoint, text, user_part
from .sipdialog import Dialog
from .sipmessage import CARRIER_ADDRESS, CLIENT_ADDRESS, EPOCH, PLATFORM_ADDRESS, SIP_PORT, SipMessage

__all__ = ["CARRIER_ADDRESS", "CLIENT_ADDRESS", "PLATFORM_ADDRESS", "SIP_PORT", "SipMessage", "ladder",
           "render_trace", "trace_text"]  # fmt: skip

LAST_START = datetime(9999, 1, 1, tzinfo=UTC) - timedelta(seconds=3 * MAX_CALL_SECONDS)
"""The latest a ladder starts, so that its last message still has a time."""
TURN = 0.02
"""Seconds between a request and its answer in a ladder."""


def ladder(record: dict) -> list[SipMessage]:
    """INVITE, provisional and final answers, and BYE, timed from `calldate`/`created_at` and durations."""
    start = _start(record)
    duration = _seconds(record.get("duration"))
    billsec = _seconds(record.get("billsec")) if record.get("billsec") is not None else duration
    answered = record.get("disposition", "CONNECTED") == "CONNECTED" or billsec > 0
    ring = max(duration - billsec, 0) if answered else duration
    caller = Endpoint(user_part(str(record.get("src") or "")), None, PLATFORM_ADDRESS, text(record.get("src_ua")))
    callee = Endpoint(user_part(str(record.get("dst") or ""), "unknown"), None, CLIENT_ADDRESS,
                      text(record.get("dst_ua")), record.get("dst_codec"))  # fmt: skip
    call = str(record.get("live_id") or record.get("call_id") or record.get("id"))
    dialog = Dialog(f"{user_part(call, 'call')}@telephony", "", caller, callee)

    def at(offset: float) -> datetime:
        return start + timedelta(seconds=offset)

    message, invite = dialog.request(at(0), "INVITE", body=dialog.sdp(True))
    messages = [message, dialog.response(at(min(0.05, ring)), invite, 100, "Trying"),
                dialog.response(at(min(0.2, ring)), invite, 180, "Ringing")]  # fmt: skip
    if answered:
        messages.append(dialog.response(at(ring), invite, 200, "OK", body=dialog.sdp(False)))
        messages.append(dialog.request(at(ring + TURN), "ACK", of=invite, answered=True)[0])
        message, bye = dialog.request(at(ring + billsec), "BYE")
        messages += [message, dialog.response(at(ring + billsec + TURN), bye, 200, "OK")]
    else:
        message, cancel = dialog.request(at(ring), "CANCEL", of=invite)
        messages += [message, dialog.response(at(ring + TURN), cancel, 200, "OK"),
                     dialog.response(at(ring + TURN), invite, 487, "Request Terminated"),
                     dialog.request(at(ring + 2 * TURN), "ACK", of=invite)[0]]  # fmt: skip
    return messages


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


def render_trace(messages: Sequence[SipMessage]) -> str:
    """Messages as a readable trace: for each, its time, leg, sender and receiver, then its text."""
    return "\n".join(
        f"{m.at:%Y-%m-%d %H:%M:%S.%f}{f' [{m.leg}]' if m.leg else ''} {m.source} ({m.source_address}:{SIP_PORT})"
        f" -> {m.target} ({m.target_address}:{SIP_PORT})\n{m.text}"
        for m in messages
    )


def trace_text(record: dict) -> str:
    """The ladder of a record as a readable trace."""
    return render_trace(ladder(record))
