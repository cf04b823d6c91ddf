"""Voicemail to email: a message left on a user's voicemail is mailed, its MP3 attached, to the
user's `vm_emails` when `vm_to_email` is on (through the mailer: SMTP when set, the outbox else).

A reactor of call endings: the mail is recorded with the reactor's position, so each message is
mailed once however often the server restarts.
"""

from __future__ import annotations

import msgspec

from ..documents import reads
from ..documents.listing import ReadStore
from ..domain.events.calls import CallEnded
from ..eventlog import RecordedEvent
from ..mail import Mailer, recording
from ..reactors.reactor import Reaction, Reactor
from .records import voicemessage


class VoicemailMail(Reactor):
    name = "voicemail-mail"
    handles = frozenset({CallEnded})

    def __init__(self, reader: ReadStore, mailer: Mailer) -> None:
        self._reader = reader
        self._mailer = mailer

    async def react(self, event: RecordedEvent) -> Reaction:
        ended = event.event
        if not isinstance(ended, CallEnded) or ended.records is None or ended.final is None:
            return None
        message_id, call = ended.records.voicemessage, ended.final
        if message_id is None:
            return None
        found = await reads.body(self._reader, "user", call.dst.user_id, call.customer_id)  # whose voicemail
        user = msgspec.json.decode(found) if found else {}
        if not user.get("vm_to_email") or not user.get("vm_emails"):
            return None
        message = voicemessage(call, message_id)
        subject = f"New voicemail from {call.src.number or 'an unknown caller'}"
        text = (f"{call.src.number or 'An unknown caller'} left you a message of {message['duration']} seconds "
                f"at {message['origtime']} UTC, calling {call.dialled or 'your number'}.")  # fmt: skip
        attached = [recording(f"voicemessage-{message_id}.mp3", message["duration"])]
        return [self._mailer.message(to, subject, text, attached) for to in user["vm_emails"]]
