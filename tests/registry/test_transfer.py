"""Import and export: large imports, all-or-nothing refusals, and export → import round trips."""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys
import wave
from pathlib import Path

import pytest

from telephony.app import create_app
from telephony.config import Control, EventLogSettings, Settings, Storage
from telephony.eventlog import Metadata
from telephony.keys import CLOCK, EVENT_LOG, SETTINGS
from telephony.registry.catalogue import RESOURCES
from telephony.registry.importing import run_import
from telephony.security import Sealer
from tests.conftest import CONTROL_KEY
from tests.serving import log_env

ADMIN = {"email": "admin@example.com", "password": "change-me-now"}
CONTROL = {"X-Control-Key": CONTROL_KEY}
V12 = "/v1.2/voipstudio"


async def login(client) -> dict[str, str]:
    answer = await (await client.post(f"{V12}/login", json=ADMIN)).json()
    return {"X-Auth-Token": answer["user_token"]}


def cdr_line(n: int, customer_id: int = 100001) -> bytes:
    data = {"calldate": f"2026-07-{1 + n % 28:02d} 12:00:00", "src": "+447700900123", "dst": f"+4420{n:08d}",
            "type": "O", "disposition": "CONNECTED", "destination": "out", "duration": n % 300, "live_id": n,
            "user_id": 1000001}  # fmt: skip
    return json.dumps({"resource": "cdrs", "customer_id": customer_id, "data": data}).encode()


async def test_an_import_of_100000_cdrs_is_served_whole(client):
    lines = [cdr_line(n) for n in range(1, 100_001)]
    log, clock = client.app[EVENT_LOG], client.app[CLOCK]
    sealer = Sealer.for_data_dir(Path(client.app[SETTINGS].storage.data_dir))
    assert await run_import(log, sealer, clock, lambda: lines, Metadata(source="test")) == 100_000
    headers = await login(client)
    page = await (await client.get(f"{V12}/cdrs?limit=1", headers=headers)).json()
    assert page["total"] == 100_000
    flt = json.dumps([{"property": "live_id", "operator": "=", "value": 77_777}])
    found = await (await client.get(f"{V12}/cdrs", params={"filter": flt}, headers=headers)).json()
    assert found["total"] == 1 and found["data"][0]["dst"] == "+442000077777"


@pytest.mark.parametrize(
    ("line", "named"),
    [
        (b'{"resource": "contacts", "customer_id": 100001, "data": {"first_name": 5}}', "first_name"),
        (b'{"resource": "nonsense", "customer_id": 100001, "data": {}}', "unknown resource"),
        (b"{not json", "line 3"),
        (b'{"resource": "contacts", "customer_id": 999999, "data": {}}', "customer 999999"),
    ],
)
async def test_a_bad_line_is_reported_by_number_and_nothing_is_applied(client, line, named):
    good = b'{"resource": "contacts", "customer_id": 100001, "data": {"first_name": "Ann"}}'
    before = client.app[EVENT_LOG].position
    answer = await client.post("/_telephony/import", data=b"\n".join([good, good, line, good]), headers=CONTROL)
    assert answer.status == 400
    body = await answer.json()
    assert body["errors"][0]["field"] == "line 3" and named in body["message"]
    assert client.app[EVENT_LOG].position == before


def wav() -> str:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1), out.setsampwidth(2), out.setframerate(8000), out.writeframes(b"\1\0" * 400)
    return base64.b64encode(buffer.getvalue()).decode()


async def seed(client) -> None:
    """Configuration through the API, history through an import, and a second customer."""
    headers = await login(client)
    for body in ({"first_name": "Ann", "tel": "+447700900001"}, {"first_name": "Bob", "company": "Acme"}):
        assert (await client.post(f"{V12}/contacts", json=body, headers=headers)).status == 201
    queue = {"name": "Support", "users": [{"id": 1000001, "status": True}], "ring_strategy": 1}
    assert (await client.post(f"{V12}/queues", json=queue, headers=headers)).status == 201
    announcement = {"extension_id": 1000001, "description": "hello", "data": wav()}
    assert (await client.post(f"{V12}/vmannouncements", json=announcement, headers=headers)).status == 201
    history = [cdr_line(n) for n in range(1, 51)]
    history.append(b'{"resource": "monitors", "customer_id": 100001, "data": {"live_id": 7, "duration": 30}}')
    assert (await client.post("/_telephony/import", data=b"\n".join(history), headers=CONTROL)).status == 200
    other = {"name": "Other Ltd", "admin_email": "root@other.test", "admin_password": "another-password"}
    created = await (await client.post("/_telephony/customers", json=other, headers=CONTROL)).json()
    contact = json.dumps({"resource": "contacts", "customer_id": created["data"]["customer"]["id"],
                          "data": {"first_name": "Zed"}})  # fmt: skip
    assert (await client.post("/_telephony/import", data=contact, headers=CONTROL)).status == 200


async def answers(client) -> dict[str, object]:
    """What a client reads back: every list, both customers' views, and the uploaded file."""
    seen: dict[str, object] = {}
    for who in (ADMIN, {"email": "root@other.test", "password": "another-password"}):
        token = (await (await client.post(f"{V12}/login", json=who)).json())["user_token"]
        headers = {"X-Auth-Token": token}
        for path in [r.path for r in RESOURCES if "list" in {op.value for op in r.all_ops}] + ["users"]:
            seen[f"{who['email']} {path}"] = await (
                await client.get(f"{V12}/{path}?limit=5000", headers=headers)
            ).json()
    headers = await login(client)
    seen["file"] = await (await client.get(f"{V12}/vmannouncements/1.wav", headers=headers)).read()
    return seen


async def test_export_then_import_into_an_empty_data_dir_gives_the_same_answers(
    another_eventlog_url, aiohttp_client, client, settings, tmp_path
):
    await seed(client)
    exported = await (await client.get("/_telephony/export", headers=CONTROL)).read()
    before = await answers(client)
    (tmp_path / "seed.jsonl").write_bytes(exported)
    fresh, source = tmp_path / "fresh", Path(settings.storage.data_dir)
    command = [sys.executable, "-m", "telephony", "--data-dir", str(fresh), "import", str(tmp_path / "seed.jsonl"),
               "--seal-key", str(source / "secret.key")]  # fmt: skip
    env = {**os.environ, **log_env(another_eventlog_url)}
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    restored_settings = Settings(storage=Storage(data_dir=str(fresh)), control=Control(key=CONTROL_KEY),
                                 eventlog=EventLogSettings(url=another_eventlog_url))  # fmt: skip
    restored = await aiohttp_client(create_app(restored_settings))
    assert await answers(restored) == before
    again = await (await restored.get("/_telephony/export", headers=CONTROL)).read()
    assert unsealed(again) == unsealed(exported)


def unsealed(export: bytes) -> list[dict]:
    """The lines of an export without their sealed copies, which an import seals again under its own key."""
    lines = [json.loads(line) for line in export.splitlines()]
    for line in lines:
        line["data"].pop("sip_password_sealed", None)
        line["data"].pop("sealed", None)
    return lines
