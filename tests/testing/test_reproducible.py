"""A reproducible run: a seeded entropy and a reproducible clock make the same requests write the same
log, byte for byte (the same hash-chain head), and a settled clock move lets the reactors react at the
clock of what they react to."""

from __future__ import annotations

import itertools
from email.utils import parsedate_to_datetime

import msgspec
from cryptography.fernet import Fernet

from telephony.app import create_app
from telephony.clock import Clock, parse_wire_time, wire_time
from telephony.config import EventLogSettings, Storage
from telephony.eventlog import pg_store, store
from telephony.keys import EVENT_LOG
from telephony.security import Entropy, Sealer, new_code
from tests.accounts.helpers import CONTROL

START = parse_wire_time("2026-03-02 09:00:00").timestamp()
HOME = 100001
NUMBER = "+442071239999"


async def leave_a_voicemail(client) -> None:
    """A user with a login and an API key; a caller leaves a message that is mailed; the clock moves."""
    ids = (f"step-{n}" for n in itertools.count())

    async def send(method: str, path: str, body: dict, headers: dict | None = None) -> dict:
        response = await client.request(method, path, json=body, headers={**(headers or CONTROL),
                                                                            "X-Request-Id": next(ids)})  # fmt: skip
        assert response.status in (200, 201), await response.text()
        return await response.json()

    user = (await send("POST", f"/_telephony/customers/{HOME}/users", {"email": "ann@example.com", "password":
                       "correct-horse-battery", "vm_to_email": True, "vm_emails": ["ann@example.com"],
                       "dnd": True}))["data"]  # fmt: skip
    await send("POST", f"/_telephony/users/{user['id']}/apikeys", {"name": "crm"})
    await send("POST", "/v1.2/voipstudio/login", {"email": "ann@example.com", "password": "correct-horse-battery"}, {})
    await send("POST", f"/_telephony/customers/{HOME}/ddis", {"e164": NUMBER, "target_type": "U",
                                                              "target_id": user["id"]})  # fmt: skip
    await send("POST", "/_telephony/simulate/inbound-call", {"from": "447700900321", "to": NUMBER, "hangup_after": 12})
    await send("POST", "/_telephony/clock", {"advance": 30, "settle": True})


async def head_after_a_run(aiohttp_client, settings, seed: int) -> tuple[int, bytes]:
    client = await aiohttp_client(create_app(settings, clock=Clock.reproducible(START), entropy=Entropy(seed)))
    await leave_a_voicemail(client)
    path, url = client.server.app[EVENT_LOG].path, settings.eventlog.url
    await client.close()
    conn = pg_store.connect(url) if url else store.connect(path, readonly=True)
    try:
        return store.head(conn)
    finally:
        conn.close()


async def test_the_same_requests_on_a_reproducible_clock_with_the_same_seed_write_the_same_log(
    aiohttp_client, settings, tmp_path, request
):
    def elsewhere(name: str):
        url = request.getfixturevalue("postgres_cluster").app_url() if settings.eventlog.url else ""
        return msgspec.structs.replace(settings, storage=Storage(data_dir=str(tmp_path / name)),
                                       eventlog=EventLogSettings(url=url))  # fmt: skip

    first = await head_after_a_run(aiohttp_client, settings, seed=7)
    assert await head_after_a_run(aiohttp_client, elsewhere("again"), seed=7) == first
    assert (await head_after_a_run(aiohttp_client, elsewhere("other"), seed=8))[1] != first[1]


async def test_a_settled_move_mails_the_voicemail_at_the_time_the_message_ended(aiohttp_client, settings):
    client = await aiohttp_client(create_app(settings, clock=Clock.reproducible(START), entropy=Entropy(7)))
    await leave_a_voicemail(client)
    (mail,) = [m for m in (await (await client.get("/_telephony/outbox", headers=CONTROL)).json())["data"]
               if m["subject"].startswith("New voicemail")]  # fmt: skip
    (ended,) = [e for e in await client.server.app[EVENT_LOG].read(types=["call.ended"])]
    assert mail["created_at"] == wire_time(ended.event.at) < "2026-03-02 09:00:30"  # not where the move ended
    assert parsedate_to_datetime(mail["date"]).timestamp() == int(ended.event.at)  # its own real time


def test_a_seeded_entropy_draws_the_same_bytes_for_the_same_seed_and_the_system_never_repeats():
    assert [Entropy(3).token(), Entropy(3).bytes(5)] == [Entropy(3).token(), Entropy(3).bytes(5)]
    drawn = Entropy(3)
    assert drawn.bytes(20).hex() + drawn.bytes(12).hex() == Entropy(3).bytes(32).hex()
    assert Entropy(3).token() != Entropy(4).token() and Entropy().token() != Entropy().token()
    assert len(new_code(6, Entropy(3))) == 6 and new_code(6, Entropy(3)).isdigit()


def test_a_sealed_secret_is_a_fernet_token_of_the_seal_time_that_fernet_opens():
    key = Fernet.generate_key()
    sealed = Sealer(key, Entropy(1), wall=lambda: START).seal("s3cret")
    assert Fernet(key).decrypt(sealed.encode()) == b"s3cret"
    assert Fernet(key).extract_timestamp(sealed.encode()) == int(START)
    assert sealed == Sealer(key, Entropy(1), wall=lambda: START).seal("s3cret")
    assert Sealer(key).seal("s3cret") != Sealer(key).seal("s3cret")
