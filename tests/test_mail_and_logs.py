"""Mail reaches a real SMTP server when one is configured, and mail it refuses is recorded as failed;
log lines are JSON when asked."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import msgspec
import pytest
from aiohttp.test_utils import TestServer
from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Message

from telephony import logs
from telephony.app import create_app
from telephony.clock import Clock
from telephony.config import Log, Mail
from telephony.keys import EVENT_LOG, REACTORS

MAIL_QUEUED, MAIL_SENT, MAIL_FAILED = "mail.queued", "mail.sent", "mail.failed"


class Inbox(Message):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list = []

    def handle_message(self, message) -> None:
        self.messages.append(message)


class Refusing:
    """An SMTP server that refuses every recipient."""

    async def handle_RCPT(self, server, session, envelope, address, options) -> str:
        return "550 No such user here"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def delivered(client) -> None:
    """Wait until the SMTP delivery reactor has dealt with everything logged so far."""
    app = client.server.app
    await asyncio.wait_for(app[REACTORS].reached(app[EVENT_LOG].position), 30)


@pytest.fixture
def smtp_server():
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    yield controller, inbox
    controller.stop()


async def test_a_reset_email_goes_to_the_configured_smtp_server(aiohttp_client, settings, smtp_server):
    controller, inbox = smtp_server
    mail = Mail(host="127.0.0.1", port=controller.port, sender="pbx@telephony.test")
    client = await aiohttp_client(create_app(msgspec.structs.replace(settings, mail=mail)))
    answer = await client.post("/v1.2/voipstudio/password", json={"email": "admin@example.com"})
    assert answer.status == 200
    await delivered(client)
    assert len(inbox.messages) == 1
    message = inbox.messages[0]
    assert message["To"] == "admin@example.com" and message["From"] == "pbx@telephony.test"
    assert message["Message-ID"].startswith("<mail-")  # made from the queued event: the same if sent again
    assert "reset token is" in message.get_payload()
    outbox = await (await client.get("/_telephony/outbox", headers={"X-Control-Key": settings.control.key})).json()
    assert outbox["data"][-1]["transport"] == "smtp" and outbox["data"][-1]["status"] == "sent"


async def test_mail_over_smtp_carries_a_real_time_date_and_a_message_id_the_outbox_shows(
    aiohttp_client, settings, smtp_server, control_headers
):
    controller, inbox = smtp_server
    mail = Mail(host="127.0.0.1", port=controller.port, sender="pbx@telephony.test")
    clock = Clock.virtual(datetime(2031, 1, 1, tzinfo=UTC).timestamp())  # the domain's time, far from the real one
    client = await aiohttp_client(create_app(msgspec.structs.replace(settings, mail=mail), clock=clock))
    before = time.time()
    assert (await client.post("/v1.2/voipstudio/password", json={"email": "admin@example.com"})).status == 200
    await delivered(client)
    (message,) = inbox.messages
    assert message["Date"] is not None and message["Message-ID"] is not None
    assert int(before) <= parsedate_to_datetime(message["Date"]).timestamp() <= time.time()  # real time, not 2031
    (shown,) = (await (await client.get("/_telephony/outbox", headers=control_headers)).json())["data"]
    assert (shown["date"], shown["message_id"]) == (message["Date"], message["Message-ID"])


async def test_mail_the_smtp_server_refuses_is_recorded_as_failed(aiohttp_client, settings, control_headers):
    controller = Controller(Refusing(), hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        mail = Mail(host="127.0.0.1", port=controller.port, sender="pbx@telephony.test")
        client = await aiohttp_client(create_app(msgspec.structs.replace(settings, mail=mail)))
        answer = await client.post("/v1.2/voipstudio/password", json={"email": "admin@example.com"})
        await delivered(client)
    finally:
        controller.stop()
    assert answer.status == 200
    (queued,) = await client.server.app[EVENT_LOG].read(types=[MAIL_QUEUED])
    (failed,) = await client.server.app[EVENT_LOG].read(types=[MAIL_FAILED])
    assert queued.event.to == "admin@example.com" and queued.event.transport == "smtp"
    assert failed.event.queued == queued.position and failed.event.reason == "SMTPRecipientsRefused"
    assert failed.meta.source == "reactor:smtp-delivery"
    assert await client.server.app[EVENT_LOG].read(types=[MAIL_SENT]) == []
    outbox = (await (await client.get("/_telephony/outbox", headers=control_headers)).json())["data"]
    assert [(m["to"], m["transport"], m["status"]) for m in outbox] == [("admin@example.com", "smtp", "failed")]


async def test_mail_to_an_unreachable_smtp_server_is_recorded_as_failed(aiohttp_client, settings, control_headers):
    mail = Mail(host="127.0.0.1", port=free_port(), sender="pbx@telephony.test")
    client = await aiohttp_client(create_app(msgspec.structs.replace(settings, mail=mail)))
    answer = await client.post("/v1.2/voipstudio/password", json={"email": "admin@example.com"})
    assert answer.status == 200
    await delivered(client)
    assert [e.type for e in await client.server.app[EVENT_LOG].read(types=[MAIL_SENT, MAIL_FAILED])] == [MAIL_FAILED]
    outbox = (await (await client.get("/_telephony/outbox", headers=control_headers)).json())["data"]
    assert outbox[-1]["status"] == "failed"


async def test_json_log_lines_carry_the_request_id(aiohttp_client, settings, capfd):
    """`[log] format = "json"`: every line, the access log's included, is one JSON object."""
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    levels = {name: logging.getLogger(name).level for name in ("telephony", logs.ACCESS_LOGGER)}
    logs.configure("json", "INFO", access=True)
    try:
        server = TestServer(create_app(msgspec.structs.replace(settings, log=Log(format="json"))))
        await server.start_server(access_log_class=logs.AccessLogger)  # TestServer ignores server_kwargs
        client = await aiohttp_client(server)
        await client.get("/_telephony/health", headers={"X-Request-Id": "trace-me-1"})
        logging.getLogger("telephony.test").info("a line from the app")
        logs.close()  # what the output's thread holds, written
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
    lines = [json.loads(line) for line in capfd.readouterr().err.splitlines() if line.startswith("{")]
    access = [line for line in lines if line.get("path") == "/_telephony/health"]
    assert access and access[0]["request_id"] == "trace-me-1" and access[0]["status"] == 200
    assert any(line["message"] == "a line from the app" for line in lines)
