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
    """The file's name."""
    media_type: str
    """The file's media type."""
    size: int
    """The file's size, in bytes."""
    mp3_seconds: float | None = None
    """A voicemail message's MP3, of this many seconds of silence."""
    fax: dict[str, Any] | None = None
    """A fax's PDF, drawn from this fax record."""
    blob: str | None = None
    """A stored file (`blob.stored`), by its SHA-256."""


class MailQueued(Event, frozen=True, kw_only=True, tag="mail.queued"):
    """A message queued for the SMTP server."""

    to: str
    """The address it goes to."""
    subject: str
    """Its subject."""
    body_sealed: str
    """Its text, sealed with the data dir's key."""
    transport: str
    """`smtp`."""
    created_at: str
    """When it was written (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    date: str
    """The `Date:` header: the wall-clock time it was written at (RFC 5322)."""
    attachments: list[Attachment] = msgspec.field(default_factory=list)
    """The files it carries, by description."""


class MailSent(Event, frozen=True, kw_only=True, tag="mail.sent"):
    """A message sent: put in the outbox as it is written (the message itself), or a queued one
    handed to the SMTP server (`queued`: the position of its `mail.queued`)."""

    transport: str
    """`outbox` (put in the outbox as it was written) or `smtp` (handed to the SMTP server)."""
    to: str | None = None
    """The address it goes to (an outbox message's)."""
    subject: str | None = None
    """Its subject (an outbox message's)."""
    body_sealed: str | None = None
    """Its text, sealed with the data dir's key (an outbox message's)."""
    created_at: str | None = None
    """When it was written (UTC, `YYYY-MM-DD HH:MM:SS`) (an outbox message's)."""
    date: str | None = None
    """The `Date:` header: the wall-clock time it was written at (RFC 5322)."""
    attachments: list[Attachment] = msgspec.field(default_factory=list)
    """The files it carries, by description (an outbox message's)."""
    queued: int | None = None
    """The position of the `mail.queued` it hands to the SMTP server."""
    at: str | None = None
    """When the SMTP server took it (UTC, `YYYY-MM-DD HH:MM:SS`)."""


class MailFailed(Event, frozen=True, kw_only=True, tag="mail.failed"):
    """The SMTP server did not take a queued message."""

    queued: int
    """The position of the `mail.queued` it was."""
    transport: str
    """`smtp`."""
    at: str
    """When the SMTP server refused it (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    reason: str
    """The error's class name (never its text, which may echo credentials)."""


MAIL_EVENTS = (MailQueued, MailSent, MailFailed)
