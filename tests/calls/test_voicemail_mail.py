"""A voicemail message is mailed with its MP3 attached: to the outbox, or through an SMTP server."""

from __future__ import annotations

import asyncio

import msgspec

from telephony.app import create_app
from telephony.config import Mail
from telephony.keys import EVENT_LOG, REACTORS
from tests.accounts.helpers import CONTROL, create_user, login
from tests.calls.helpers import advance
from tests.media.decoders import decode_mp3
from tests.test_mail_and_logs import smtp_server  # noqa: F401  (the fixture)

HOME = 100001
NUMBER = "+442071239999"


async def leave_a_message(client, **user) -> int:
    user_id = await create_user(client, HOME, "mailed@example.com", vm_to_email=True,
                                vm_emails=["me@example.com", "boss@example.com"], dnd=True, **user)  # fmt: skip
    response = await client.post(f"/_telephony/customers/{HOME}/ddis", json={"e164": NUMBER, "target_type": "U",
                                 "target_id": user_id}, headers=CONTROL)  # fmt: skip
    assert response.status == 201, await response.text()
    response = await client.post("/_telephony/simulate/inbound-call", json={"from": "447700900321", "to": NUMBER,
                                 "hangup_after": 12}, headers=CONTROL)  # fmt: skip
    assert response.status == 201
    await advance(client, 13)
    await settled(client)
    return user_id


async def settled(client) -> None:
    """Wait until every reactor has dealt with the log, and with what their reactions added to it."""
    app = client.server.app
    while True:
        position = app[EVENT_LOG].position
        await asyncio.wait_for(app[REACTORS].reached(position), 30)
        if app[EVENT_LOG].position == position:
            return


async def test_a_voicemail_message_is_mailed_to_the_users_addresses_with_its_mp3(client, root):
    await leave_a_message(client)
    mails = (await (await client.get("/_telephony/outbox", headers=CONTROL)).json())["data"]
    mailed = [m for m in mails if m["subject"].startswith("New voicemail")]
    assert sorted(m["to"] for m in mailed) == ["boss@example.com", "me@example.com"]
    (attached,) = mailed[0]["attachments"]
    assert attached["media_type"] == "audio/mpeg" and attached["filename"].endswith(".mp3")
    (message,) = (await (await client.get("/v1.2/voipstudio/voicemessages", headers=root.headers())).json())["data"]
    assert attached["size"] == len(await (await client.get(f"/v1.2/voipstudio/voicemessages/{message['id']}.mp3",
                                                            headers=root.headers())).read())  # fmt: skip


async def test_through_smtp_the_attachment_is_a_real_mp3(aiohttp_client, settings, smtp_server):  # noqa: F811
    controller, inbox = smtp_server
    mail = Mail(host="127.0.0.1", port=controller.port, sender="pbx@telephony.test")
    client = await aiohttp_client(create_app(msgspec.structs.replace(settings, mail=mail)))
    await login(client, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)
    await leave_a_message(client)
    mailed = [m for m in inbox.messages if m["Subject"].startswith("New voicemail")]
    assert sorted(m["To"] for m in mailed) == ["boss@example.com", "me@example.com"]
    parts = [part for part in mailed[0].walk() if part.get_content_type() == "audio/mpeg"]
    rate, frames, loudest = decode_mp3(parts[0].get_payload(decode=True))
    assert frames / rate > 0 and loudest == 0
