"""The records a call leaves: CDR, recording, media sessions and their records, web call records.

Each is a document table fed by call events (`DocumentTable(feeds=...)`): a call's ending carries
its final state and the ids its records take, and these functions draw the records from them, so a
replay gives the same records byte for byte. Times are the call's clock times.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from ..clock import wire_time
from ..conversations import conversation
from ..documents.projection import DocumentChange, patch, put
from ..domain import calls as rules
from ..domain.billing import shown
from ..domain.calls import Call
from ..eventlog import RecordedEvent
from ..media import mp3

CDR_TYPES = {"in": "I", "out": "O", "webcall": "O", "callmeback": "O"}


def _final(event: RecordedEvent) -> tuple[Call, dict[str, Any]]:
    return msgspec.convert(event.data["final"], Call), event.data["records"]


def cdr(call: Call, cdr_id: int) -> dict[str, Any]:
    """A call's record; an inbound call's `dst` is the number dialled, `dst_id` whom it reached."""
    src, dst = call.src, call.dst
    answered = call.connected_at is not None
    kind = CDR_TYPES.get(call.destination, "O")
    if kind == "I" and not answered:
        kind = "M"
    return {
        "id": cdr_id, "duration": rules.whole_seconds(call.placed_at, call.ended_at), "live_id": call.id,
        "parent_live_id": call.parent_id, "user_id": call.user_id, "sip_endpoint_id": None, "server_id": 1,
        "type": kind, "calldate": wire_time(call.placed_at), "clid": call.clid, "src_id": src.id, "dst_id": dst.id,
        "src": src.number, "dst": call.dialled or dst.number, "src_name": src.name, "dst_name": dst.name,
        "src_ua": src.ua, "dst_ua": dst.ua, "src_codec": src.codec, "dst_codec": dst.codec,
        "billsec": call.answered_seconds(), "disposition": call.disposition,
        "destination": call.destination, "context": call.context, "rate": 0.0, "charge": 0.0, "t_cause": call.cause,
        "info": None, "call_id": None,
    }  # fmt: skip


def missed(event: RecordedEvent) -> Iterable[DocumentChange]:
    """A user who let an inbound call ring out (and logs missed calls) gets a missed-call record of it."""
    record = event.data.get("missed")
    if record is not None:
        yield put(record["body"]["id"], record["customer_id"], record["body"])


def monitor(call: Call, monitor_id: int) -> dict[str, Any]:
    duration = rules.whole_seconds(0.0, call.recorded_seconds)
    return {
        "id": monitor_id, "called": call.dst.number, "caller": call.src.number, "context": call.context,
        "dst_id": call.dst.id, "dst_name": call.dst.name, "duration": duration, "live_id": call.id,
        "sentiment": None, "sip_endpoint_id": None, "size": mp3.size_for(duration), "src_id": call.src.id,
        "summary": None, "timestamp": wire_time(call.recording_started_at or call.placed_at), "transcript": None,
        "type": CDR_TYPES.get(call.destination, "O"), "user_id": call.user_id,
    }  # fmt: skip


def _leg(call: Call, leg: str) -> tuple[Any, Any, int]:
    party, remote = call.party(leg), call.party(rules.other(leg))
    return party, remote, call.answered_seconds(leg)


def msdr(call: Call, leg: str, msdr_id: int, session_id: int) -> dict[str, Any]:
    party, remote, duration = _leg(call, leg)
    return {
        "id": msdr_id, "call_id": rules.sip_call_id(call.id, leg), "created_at": wire_time(call.answered_at(leg) or 0),
        "dst": remote.number, "dst_id": remote.id, "dst_ua": remote.ua, "duration": duration,
        "media_session_id": session_id, "src": party.number, "src_id": party.id, "src_ua": party.ua,
        "t_cause": call.cause, "type": "audio", "user_id": call.user_id,
    }  # fmt: skip


def media_session(call: Call, leg: str, session_id: int) -> dict[str, Any]:
    party, remote, duration = _leg(call, leg)
    return {
        "id": session_id, "call_id": rules.sip_call_id(call.id, leg),
        "created_at": wire_time(call.answered_at(leg) or 0), "dst_id": remote.id, "dst_ua": remote.ua,
        "duration": duration, "src_id": party.id, "src_ua": party.ua,
        "status": "HANGUP", "type": "audio", "updated_at": wire_time(call.ended_at or 0), "user": call.user_id,
    }  # fmt: skip


# --- feeds -------------------------------------------------------------------------------------------


def cdrs(event: RecordedEvent) -> Iterable[DocumentChange]:
    """A call's record, with its price: the rate of the destination it was charged for, the whole charge."""
    call, records = _final(event)
    price = records.get("price") or {}
    body = cdr(call, records["cdr"])
    body.update(rate=shown(price.get("rate", 0)), charge=shown(price.get("charge", 0)))
    yield put(records["cdr"], call.customer_id, body)


def monitors(event: RecordedEvent) -> Iterable[DocumentChange]:
    call, records = _final(event)
    if "monitor" in records:
        yield put(records["monitor"], call.customer_id, monitor(call, records["monitor"]))


def msdrs(event: RecordedEvent) -> Iterable[DocumentChange]:
    call, records = _final(event)
    for leg, msdr_id in records["msdr"].items():
        yield put(msdr_id, call.customer_id, msdr(call, leg, msdr_id, records["mediasession"][leg]))


def media_sessions(event: RecordedEvent) -> Iterable[DocumentChange]:
    call, records = _final(event)
    for leg, session_id in records["mediasession"].items():
        yield put(session_id, call.customer_id, media_session(call, leg, session_id))


def webcalls(event: RecordedEvent) -> Iterable[DocumentChange]:
    """A web call's record is made when it is placed and gets its legs' durations when it ends."""
    data = event.data
    if event.type == rules.PLACED:
        if (webcall_id := data.get("webcall_id")) is not None:
            yield put(webcall_id, data["customer_id"], {
                "id": webcall_id, "calldate": wire_time(data["at"]), "charge": 0.0, "from": data["src"].get("number"),
                "from_charge": 0.0, "from_duration": 0, "from_rate": 0.0, "to": data["dst"].get("number"),
                "to_charge": 0.0, "to_duration": 0, "to_rate": 0.0, "live_id": data["id"],
            })  # fmt: skip
        return
    call = msgspec.convert(data["final"], Call)
    if call.kind == "web" and call.webcall_id is not None:
        price = data["records"].get("price") or {}
        legs = price.get("legs") or {}
        yield patch(call.webcall_id, {
            "from_duration": call.answered_seconds("src"),
            "to_duration": call.answered_seconds("dst"),
            **{f"{side}_{figure}": shown(legs.get(leg, {}).get(figure, 0))
               for side, leg in (("from", "src"), ("to", "dst")) for figure in ("rate", "charge")},
            "charge": shown(price.get("charge", 0))})  # fmt: skip


def voicemessage(call: Call, message_id: int) -> dict[str, Any]:
    """The message a caller left on a user's voicemail (the user whose voicemail answered, whoever
    called): new, in the inbox, as long as the caller spoke after the voicemail answered (a caller
    who waited in a queue first was connected before); `dialled` the number or extension the call was
    made to, whichever way it reached the voicemail."""
    answered = call.dst_answered_at or call.connected_at
    return {
        "id": message_id, "caller": call.src.number, "callerid": caller_id(call), "dialled": call.dialled,
        "duration": rules.whole_seconds(answered, call.ended_at), "extension_id": call.dst.user_id, "folder": 0,
        "is_new": True, "live_id": call.id, "origtime": wire_time(answered or call.placed_at),
        "parent_live_id": call.parent_id, "transcript": None,
    }  # fmt: skip


def caller_id(call: Call) -> str | None:
    """Who left a message, as a voicemail shows its caller: `"Name" <number>` of the side that called
    (a user: its name and extension, else its id; an outside caller: its number and the name of the
    contact that has it), the number alone without a name, `anonymous` when the call hid it."""
    if call.clid == "anonymous":
        return call.clid
    name, number = call.src.name, call.src.number
    return f'"{name}" <{number}>' if name and number else number or name


def voicemessages(event: RecordedEvent) -> Iterable[DocumentChange]:
    call, records = _final(event)
    if "voicemessage" in records:
        yield put(records["voicemessage"], call.customer_id, voicemessage(call, records["voicemessage"]))


def new_messages(event: RecordedEvent) -> Iterable[DocumentChange]:
    """A user's `vm_new` counts the message a call left on its voicemail."""
    if (counted := event.data["records"].get("vm_new")) is not None:
        yield patch(counted["user_id"], {"vm_new": counted["count"]})


def conversations(event: RecordedEvent) -> Iterable[DocumentChange]:
    """The CDRs a call leaves (a missed user's, then the call's own) in the unified history (`conversations`)."""
    for _, data in (*missed(event), *(cdrs(event) if event.type == rules.ENDED else ())):
        yield conversation("call", data["body"], data["customer_id"])


FEEDS = {
    "cdr": {rules.ENDED: cdrs, rules.ROUTED: missed},
    "monitor": {rules.ENDED: monitors},
    "msdr": {rules.ENDED: msdrs},
    "mediasession": {rules.ENDED: media_sessions},
    "webcall": {rules.PLACED: webcalls, rules.ENDED: webcalls},
    "voicemessage": {rules.ENDED: voicemessages},
    "user": {rules.ENDED: new_messages},
    "conversation": {rules.ENDED: conversations, rules.ROUTED: conversations},
}
"""The record kinds' feeds: the call events each document table is made from, besides its own."""
