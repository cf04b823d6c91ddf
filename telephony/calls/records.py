"""What a call leaves behind, and when: its ending, and the records drawn from it.

A call's ending (`call.ended`) claims, inside the transaction that records it, the ids of the records
it leaves (CDR, recording, a media session and its record per leg that answered, the voicemail
message a caller left) and carries its price and its final state (`ended`); a user who let a call
ring out gets a missed-call CDR as the call is routed on (`missed_record`; a queue's agent does
not). The document tables of those records are fed by these events (`FEEDS`): they draw each record
from the final state and the ids, so a replay gives the same records byte for byte. Times are the
call's clock times.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import msgspec

from ..clock import wire_time
from ..conversations import conversation
from ..documents import reads
from ..documents.changes import Patch, Put
from ..documents.projection import DocumentChange, Feed, drawn
from ..domain.billing import Leg, shown
from ..domain.calls import rules
from ..domain.calls.call import LEGS, Call, other, sip_call_id, whole_seconds
from ..domain.calls.fold import evolve
from ..domain.events import Event, NewEvent
from ..domain.events.calls import CallEnded, CallPlaced, CallRecords, CallRouted, MissedCall, NewMessages, Price
from ..eventlog import RecordedEvent
from ..eventlog.connection import Connection
from ..media import mp3
from ..projections.sequences import next_id
from .parties import charged_legs

CDR_TYPES = {"in": "I", "out": "O", "webcall": "O", "callmeback": "O"}


class Prices(Protocol):
    """What a call costs at its end (`billing`): asked inside the transaction."""

    def price(self, conn: Connection, customer_id: int, legs: Sequence[Leg], at: float
              ) -> tuple[Price, list[NewEvent]]: ...  # fmt: skip


# --- the ending, decided in the transaction ---------------------------------------------------------


def ended(conn: Connection, call: Call, ending: CallEnded, pricing: Prices
          ) -> tuple[CallEnded, list[NewEvent]]:  # fmt: skip
    """The ending as it is recorded: with the ids of the records it leaves, its price and the call's
    final state; and the events that charge the customer for it."""
    final = evolve(call, ending)
    legs = [leg for leg in LEGS if final.answered_at(leg) is not None]
    cdr_id = next_id(conn, "cdr")
    monitor = next_id(conn, "monitor") if final.recording_started_at is not None else None
    first_msdr, first_session = next_id(conn, "msdr"), next_id(conn, "mediasession")
    message, counted = None, None
    owner = final.dst.user_id
    if final.context == "VOICEMAIL" and final.connected_at is not None and owner is not None:
        message = next_id(conn, "voicemessage")
        user = reads.documents(conn, "user", [owner], final.customer_id).get(owner) or {}
        counted = NewMessages(user_id=owner, count=int(user.get("vm_new") or 0) + 1)
    price, charges = pricing.price(conn, call.customer_id, charged_legs(final), ending.at)
    records = CallRecords(cdr=cdr_id, msdr={leg: first_msdr + n for n, leg in enumerate(legs)},
                          mediasession={leg: first_session + n for n, leg in enumerate(legs)}, price=price,
                          monitor=monitor, voicemessage=message, vm_new=counted)  # fmt: skip
    claims = {
        "cdr": [cdr_id],
        "monitor": [monitor] if monitor else [],
        "msdr": list(records.msdr.values()),
        "mediasession": list(records.mediasession.values()),
        "voicemessage": [message] if message else [],
    }
    claimed = {kind: ids for kind, ids in claims.items() if ids}
    return msgspec.structs.replace(ending, records=records, claims=claimed, final=final), charges


def missed_record(conn: Connection, call: Call, at: float) -> MissedCall | None:
    """The missed-call record of the user the call leaves unanswered, when it logs missed calls. An
    agent a queue rang for its caller gets none: the caller is the queue's, and the call's own record
    says how it ended (an agent's ring that nobody answered is in the call's events)."""
    user_id = call.dst.user_id
    if user_id is None or call.dst_answered_at is not None or call.context == "VOICEMAIL" or call.queue_id is not None:
        return None
    user = reads.documents(conn, "user", [user_id], call.customer_id).get(user_id)
    if user is None or not user.get("log_missed_calls", True):
        return None
    rang = msgspec.structs.replace(call, placed_at=call.reached_at, user_id=user_id, connected_at=None)
    cause = rules.CAUSES["no_answer"]
    rang = evolve(rang, CallEnded(id=call.id, at=at, cause=cause, disposition="NO_ANSWER", by=None, leg=None))
    return MissedCall(customer_id=call.customer_id, body={**cdr(rang, next_id(conn, "cdr")), "type": "M"})


# --- the records, drawn from a call's final state ---------------------------------------------------


def cdr(call: Call, cdr_id: int) -> dict[str, Any]:
    """A call's record; an inbound call's `dst` is the number dialled, `dst_id` whom it reached."""
    src, dst = call.src, call.dst
    answered = call.connected_at is not None
    kind = CDR_TYPES.get(call.destination, "O")
    if kind == "I" and not answered:
        kind = "M"
    return {
        "id": cdr_id, "duration": whole_seconds(call.placed_at, call.ended_at), "live_id": call.id,
        "parent_live_id": call.parent_id, "user_id": call.user_id, "sip_endpoint_id": None, "server_id": 1,
        "type": kind, "calldate": wire_time(call.placed_at), "clid": call.clid, "src_id": src.id, "dst_id": dst.id,
        "src": src.number, "dst": call.dialled or dst.number, "src_name": src.name, "dst_name": dst.name,
        "src_ua": src.ua, "dst_ua": dst.ua, "src_codec": src.codec, "dst_codec": dst.codec,
        "billsec": call.answered_seconds(), "disposition": call.disposition,
        "destination": call.destination, "context": call.context, "rate": 0.0, "charge": 0.0, "t_cause": call.cause,
        "hangup_by": call.ended_by, "info": None, "call_id": None,
    }  # fmt: skip


def monitor(call: Call, monitor_id: int) -> dict[str, Any]:
    duration = whole_seconds(0.0, call.recorded_seconds)
    return {
        "id": monitor_id, "called": call.dst.number, "caller": call.src.number, "context": call.context,
        "dst_id": call.dst.id, "dst_name": call.dst.name, "duration": duration, "live_id": call.id,
        "sentiment": None, "sip_endpoint_id": None, "size": mp3.size_for(duration), "src_id": call.src.id,
        "summary": None, "timestamp": wire_time(call.recording_started_at or call.placed_at), "transcript": None,
        "type": CDR_TYPES.get(call.destination, "O"), "user_id": call.user_id,
    }  # fmt: skip


def _leg(call: Call, leg: str) -> tuple[Any, Any, int]:
    party, remote = call.party(leg), call.party(other(leg))
    return party, remote, call.answered_seconds(leg)


def msdr(call: Call, leg: str, msdr_id: int, session_id: int) -> dict[str, Any]:
    party, remote, duration = _leg(call, leg)
    return {
        "id": msdr_id, "call_id": sip_call_id(call.id, leg), "created_at": wire_time(call.answered_at(leg) or 0),
        "dst": remote.number, "dst_id": remote.id, "dst_ua": remote.ua, "duration": duration,
        "media_session_id": session_id, "src": party.number, "src_id": party.id, "src_ua": party.ua,
        "t_cause": call.cause, "type": "audio", "user_id": call.user_id,
    }  # fmt: skip


def media_session(call: Call, leg: str, session_id: int) -> dict[str, Any]:
    party, remote, duration = _leg(call, leg)
    return {
        "id": session_id, "call_id": sip_call_id(call.id, leg),
        "created_at": wire_time(call.answered_at(leg) or 0), "dst_id": remote.id, "dst_ua": remote.ua,
        "duration": duration, "src_id": party.id, "src_ua": party.ua,
        "status": "HANGUP", "type": "audio", "updated_at": wire_time(call.ended_at or 0), "user": call.user_id,
    }  # fmt: skip


def voicemessage(call: Call, message_id: int) -> dict[str, Any]:
    """The message a caller left on a user's voicemail (the user whose voicemail answered, whoever
    called): new, in the inbox, as long as the caller spoke after the voicemail answered (a caller
    who waited in a queue first was connected before); `dialled` the number or extension the call was
    made to, whichever way it reached the voicemail."""
    answered = call.dst_answered_at or call.connected_at
    return {
        "id": message_id, "caller": call.src.number, "callerid": caller_id(call), "dialled": call.dialled,
        "duration": whole_seconds(answered, call.ended_at), "extension_id": call.dst.user_id, "folder": 0,
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


# --- feeds -------------------------------------------------------------------------------------------


def _ended(event: RecordedEvent) -> tuple[Call, CallRecords]:
    """The final state and records of a `call.ended` (always set in the log)."""
    ending = event.event
    assert isinstance(ending, CallEnded) and ending.final is not None and ending.records is not None
    return ending.final, ending.records


@drawn(2)  # with `hangup_by`
def missed(event: RecordedEvent) -> Iterable[DocumentChange]:
    """A user who let an inbound call ring out (and logs missed calls) gets a missed-call record of it
    (nobody hung it up: a record written before `hangup_by` gets it, None)."""
    if isinstance(event.event, CallRouted) and (record := event.event.missed) is not None:
        yield Put(record.body["id"], record.customer_id, {**record.body, "hangup_by": None})


@drawn(2)  # with `hangup_by`
def cdrs(event: RecordedEvent) -> Iterable[DocumentChange]:
    """A call's record, with its price: the rate of the destination it was charged for, the whole charge."""
    call, records = _ended(event)
    body = cdr(call, records.cdr)
    body.update(rate=shown(records.price.rate), charge=shown(records.price.charge))
    yield Put(records.cdr, call.customer_id, body)


def monitors(event: RecordedEvent) -> Iterable[DocumentChange]:
    call, records = _ended(event)
    if records.monitor is not None:
        yield Put(records.monitor, call.customer_id, monitor(call, records.monitor))


def msdrs(event: RecordedEvent) -> Iterable[DocumentChange]:
    call, records = _ended(event)
    for leg, msdr_id in records.msdr.items():
        yield Put(msdr_id, call.customer_id, msdr(call, leg, msdr_id, records.mediasession[leg]))


def media_sessions(event: RecordedEvent) -> Iterable[DocumentChange]:
    call, records = _ended(event)
    for leg, session_id in records.mediasession.items():
        yield Put(session_id, call.customer_id, media_session(call, leg, session_id))


def webcalls(event: RecordedEvent) -> Iterable[DocumentChange]:
    """A web call's record is made when it is placed and gets its legs' durations when it ends."""
    if isinstance(placed := event.event, CallPlaced):
        if placed.webcall_id is not None:
            yield Put(placed.webcall_id, placed.customer_id, {
                "id": placed.webcall_id, "calldate": wire_time(placed.at), "charge": 0.0, "from": placed.src.number,
                "from_charge": 0.0, "from_duration": 0, "from_rate": 0.0, "to": placed.dst.number,
                "to_charge": 0.0, "to_duration": 0, "to_rate": 0.0, "live_id": placed.id,
            })  # fmt: skip
        return
    call, records = _ended(event)
    if call.kind == "web" and call.webcall_id is not None:
        price = records.price
        shown_legs = {side: price.legs.get(leg) for side, leg in (("from", "src"), ("to", "dst"))}
        yield Patch(call.webcall_id, {
            "from_duration": call.answered_seconds("src"), "to_duration": call.answered_seconds("dst"),
            **{f"{side}_{figure}": shown(getattr(priced, figure) if priced is not None else 0)
               for side, priced in shown_legs.items() for figure in ("rate", "charge")},
            "charge": shown(price.charge)})  # fmt: skip


def voicemessages(event: RecordedEvent) -> Iterable[DocumentChange]:
    call, records = _ended(event)
    if records.voicemessage is not None:
        yield Put(records.voicemessage, call.customer_id, voicemessage(call, records.voicemessage))


def new_messages(event: RecordedEvent) -> Iterable[DocumentChange]:
    """A user's `vm_new` counts the message a call left on its voicemail."""
    if (counted := _ended(event)[1].vm_new) is not None:
        yield Patch(counted.user_id, {"vm_new": counted.count})


def conversations(event: RecordedEvent) -> Iterable[DocumentChange]:
    """The CDRs a call leaves (a missed user's, then the call's own) in the unified history (`conversations`)."""
    own = cdrs(event) if isinstance(event.event, CallEnded) else ()
    for made in (*missed(event), *own):
        if isinstance(made, Put) and isinstance(made.body, dict):
            yield conversation("call", made.body, made.customer_id)


FEEDS: dict[str, dict[type[Event], Feed]] = {
    "cdr": {CallEnded: cdrs, CallRouted: missed},
    "monitor": {CallEnded: monitors},
    "msdr": {CallEnded: msdrs},
    "mediasession": {CallEnded: media_sessions},
    "webcall": {CallPlaced: webcalls, CallEnded: webcalls},
    "voicemessage": {CallEnded: voicemessages},
    "user": {CallEnded: new_messages},
    "conversation": {CallEnded: conversations, CallRouted: conversations},
}
"""The record kinds' feeds: the call events each document table is made from, besides its own."""
