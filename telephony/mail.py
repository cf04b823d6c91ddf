"""One mailer: SMTP when `[mail] host` is set, otherwise the outbox (GET /_telephony/outbox).

Every message is recorded as a `mail.sent` event with its body sealed, since bodies carry codes and
reset tokens that must never sit in the log in plain text.
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


class Mailer:
    def __init__(self, settings: Mail, event_log: EventLog, sealer: Sealer, clock: Clock) -> None:
        self._settings = settings
        self._log = event_log
        self._sealer = sealer
        self._clock = clock

    async def send(self, to: str, subject: str, body: str, meta: Metadata) -> None:
        transport = "outbox"
        if self._settings.host:
            transport = "smtp"
            await self._deliver(to, subject, body)
        data = {"to": to, "subject": subject, "body_sealed": self._sealer.seal(body), "transport": transport,
                "created_at": wire_time(self._clock.now())}  # fmt: skip
        await self._log.append([NewEvent(stream="mail", type=MAIL_SENT, data=data)], meta)

    async def _deliver(self, to: str, subject: str, body: str) -> None:
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
