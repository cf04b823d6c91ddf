"""Mail: kept in the outbox (GET /_telephony/outbox), or delivered over SMTP by a reactor.

Every message is in the log with its body sealed, since bodies carry codes and reset tokens that
must never sit in the log in plain text. Without an SMTP server (`[mail] host` empty) the log is the
outbox: a message is `mail.sent` (transport `outbox`) at once. With one, the request only queues it
(`mail.queued`) and answers; the `SmtpDelivery` reactor hands it to the server and records
`mail.sent`, or `mail.failed` with a `reason` (the error's class name) when the server does not take
it. Delivery is at least once: a crash between the hand-over and its record sends it again, with
the same Message-ID (made from the queued event), so mail systems can tell it is one message.

A message's `Date:` is transport metadata, so real time, not the clock's: the wall-clock time it was
written at (`Clock.wall`), kept in its event (`date`, RFC 5322), so a message sent again carries the same one and
the outbox shows what the SMTP server was given.

A message may carry attachments drawn from what it describes (a voicemail message's MP3 is
`{filename, media_type, size, mp3_seconds}`, a fax's PDF `{filename, media_type, size, fax}`, a stored
file such as a report `{filename, media_type, size, blob}` by its digest): the log keeps the
description, never the bytes, and the SMTP delivery renders (or reads) them as it sends.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime

import aiosmtplib

from .clock import Clock, wire_time
from .config import Mail
from .documents.listing import ReadStore
from .domain.events.mail import Attachment, MailFailed, MailQueued, MailSent
from .eventlog import EventLog, Metadata, NewEvent, RecordedEvent
from .media import mp3, pdf
from .projections import blobs
from .reactors.reactor import Reaction, Reactor
from .security import Sealer

log = logging.getLogger(__name__)
STREAM = "mail"


class Mailer:
    def __init__(self, settings: Mail, event_log: EventLog, sealer: Sealer, clock: Clock) -> None:
        self._settings = settings
        self._log = event_log
        self._sealer = sealer
        self._clock = clock

    async def send(self, to: str, subject: str, body: str, meta: Metadata) -> None:
        """Put a message in the outbox, or queue it for the SMTP server."""
        await self._log.append([self.message(to, subject, body)], meta)

    def message(self, to: str, subject: str, body: str, attachments: list[Attachment] | None = None) -> NewEvent:
        """The event that puts a message in the outbox or queues it (for a reactor to record itself)."""
        sealed, created, date = self._sealer.seal(body), wire_time(self._clock.now()), _date(self._clock)
        if self._settings.host:
            queued = MailQueued(to=to, subject=subject, body_sealed=sealed, transport="smtp", created_at=created,
                                date=date, attachments=attachments or [])  # fmt: skip
            return NewEvent(stream=STREAM, event=queued)
        sent = MailSent(to=to, subject=subject, body_sealed=sealed, transport="outbox", created_at=created, date=date,
                        attachments=attachments or [])  # fmt: skip
        return NewEvent(stream=STREAM, event=sent)


def recording(filename: str, seconds: float) -> Attachment:
    """The description of an MP3 recording attached to a message."""
    return Attachment(filename=filename, media_type="audio/mpeg", size=mp3.size_for(seconds), mp3_seconds=seconds)


def fax_document(fax: dict) -> Attachment:
    """The description of a fax's PDF attached to a message (the fax record it is drawn from)."""
    return Attachment(filename=fax["filename"], media_type="application/pdf", size=len(pdf.fax(fax)), fax=fax)


def _date(clock: Clock) -> str:
    """A `Date:` header of the wall-clock time now (RFC 5322, in UTC): transport metadata, never the clock's."""
    return format_datetime(datetime.fromtimestamp(clock.wall(), UTC))


def message_id(queued: RecordedEvent) -> str:
    """The Message-ID of the message an event put in the outbox or queued: the same however often it is sent."""
    return f"<mail-{queued.position}-{queued.hash[:16]}@telephony>"


async def rendered(attached: Attachment, reader: ReadStore | None) -> bytes | None:
    """An attachment's bytes, drawn from its description (a stored file by its `blob` digest); None when
    its stored file is gone."""
    if attached.blob is not None and reader is not None:
        stored = await blobs.load(reader, attached.blob)
        return stored[1] if stored else None
    return pdf.fax(attached.fax) if attached.fax is not None else mp3.silence(attached.mp3_seconds or 0.0)


class SmtpDelivery(Reactor):
    """Hands each queued message to the SMTP server and records how that went."""

    name = "smtp-delivery"
    handles = frozenset({MailQueued})

    def __init__(self, settings: Mail, sealer: Sealer, clock: Clock, reader: ReadStore | None = None) -> None:
        self._settings = settings
        self._sealer = sealer
        self._clock = clock
        self._reader = reader

    async def react(self, event: RecordedEvent) -> Reaction:
        queued = event.event
        assert isinstance(queued, MailQueued)
        headers = {"Message-ID": message_id(event), "Date": queued.date or _date(self._clock)}
        failure = await self._deliver(queued.to, queued.subject, self._sealer.unseal(queued.body_sealed), headers,
                                      queued.attachments)  # fmt: skip
        at = wire_time(self._clock.now())
        if failure is None:
            return [NewEvent(stream=STREAM, event=MailSent(queued=event.position, transport="smtp", at=at))]
        return [
            NewEvent(stream=STREAM, event=MailFailed(queued=event.position, transport="smtp", at=at, reason=failure))
        ]

    async def _deliver(self, to: str, subject: str, body: str, headers: dict[str, str],
                       attachments: list[Attachment]) -> str | None:  # fmt: skip
        """Hands the message to the SMTP server; on failure, the error's class name (never its text,
        which may echo credentials or addresses)."""
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = self._settings.sender, to, subject
        for name, value in headers.items():
            message[name] = value
        message.set_content(body)
        for attached in attachments:
            maintype, _, subtype = attached.media_type.partition("/")
            data = await rendered(attached, self._reader) or b""
            message.add_attachment(data, maintype=maintype, subtype=subtype, filename=attached.filename)
        try:
            await aiosmtplib.send(
                message, hostname=self._settings.host, port=self._settings.port,
                username=self._settings.username or None, password=self._settings.password or None,
                start_tls=self._settings.starttls, timeout=10,
            )  # fmt: skip
        except (aiosmtplib.SMTPException, OSError) as exc:
            log.warning("mail to the SMTP server failed: %s", exc.__class__.__name__)
            return exc.__class__.__name__
        return None
