"""One mailer: SMTP when `[mail] host` is set, otherwise the outbox (GET /_telephony/outbox).

Every message is recorded as a `mail.sent` event with its body sealed, since bodies carry codes and
reset tokens that must never sit in the log in plain text. A message the SMTP server did not take is
recorded as `mail.failed` instead, with the same fields and a `reason` (the error's class name); the
request that caused it answers as if it had gone.
"""

from __future__ import annotations

import logging
from email.message import EmailMessage

import aiosmtplib

from .clock import Clock, wire_time
from .config import Mail
from .eventlog import EventLog, Metadata, NewEvent
from .security import Sealer

log = logging.getLogger(__name__)
MAIL_SENT = "mail.sent"
MAIL_FAILED = "mail.failed"


class Mailer:
    def __init__(self, settings: Mail, event_log: EventLog, sealer: Sealer, clock: Clock) -> None:
        self._settings = settings
        self._log = event_log
        self._sealer = sealer
        self._clock = clock

    async def send(self, to: str, subject: str, body: str, meta: Metadata) -> None:
        transport, failure = "outbox", None
        if self._settings.host:
            transport = "smtp"
            failure = await self._deliver(to, subject, body)
        data = {"to": to, "subject": subject, "body_sealed": self._sealer.seal(body), "transport": transport,
                "created_at": wire_time(self._clock.now())}  # fmt: skip
        if failure is not None:
            data["reason"] = failure
        event = NewEvent(stream="mail", type=MAIL_SENT if failure is None else MAIL_FAILED, data=data)
        await self._log.append([event], meta)

    async def _deliver(self, to: str, subject: str, body: str) -> str | None:
        """Hands the message to the SMTP server; on failure, the error's class name (never its text,
        which may echo credentials or addresses)."""
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = self._settings.sender, to, subject
        message.set_content(body)
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
