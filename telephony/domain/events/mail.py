"""The events of mail: every message, its body sealed, in the outbox or queued for the SMTP server.

On the stream `mail`. Without an SMTP server a message is `mail.sent` (transport `outbox`) at once;
with one it is `mail.queued`, then `mail.sent` or `mail.failed` names the queued event's position.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .base import Event


class Attachment(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A file described by what it is drawn from: the log keeps the description, never the bytes."""

    filename: str
    media_type: str
    size: int
    mp3_seconds: float | None = None
    """A voicemail message's MP3, of this many seconds of silence."""
    fax: dict[str, Any] | None = None
    """A fax's PDF, drawn from this fax record."""
    blob: str | None = None
    """A stored file (`blob.stored`), by its SHA-256."""


class MailQueued(Event, frozen=True, kw_only=True, tag="mail.queued"):
    """A message queued for the SMTP server."""

    to: str
    subject: str
    body_sealed: str
    transport: str
    created_at: str
    date: str
    """The `Date:` header: the wall-clock time it was written at (RFC 5322)."""
    attachments: list[Attachment] = msgspec.field(default_factory=list)


class MailSent(Event, frozen=True, kw_only=True, tag="mail.sent"):
    """A message sent: put in the outbox as it is written (the message itself), or a queued one
    handed to the SMTP server (`queued`: the position of its `mail.queued`)."""

    transport: str
    to: str | None = None
    subject: str | None = None
    body_sealed: str | None = None
    created_at: str | None = None
    date: str | None = None
    attachments: list[Attachment] = msgspec.field(default_factory=list)
    queued: int | None = None
    at: str | None = None


class MailFailed(Event, frozen=True, kw_only=True, tag="mail.failed"):
    """The SMTP server did not take a queued message."""

    queued: int
    transport: str
    at: str
    reason: str
    """The error's class name (never its text, which may echo credentials)."""


MAIL_EVENTS = (MailQueued, MailSent, MailFailed)
