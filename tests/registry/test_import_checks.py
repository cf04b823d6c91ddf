"""An import is checked like API input: every class of bad record is refused with its line number
and the field it breaks, over HTTP and by the command, and nothing of the file is applied."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from cryptography.fernet import Fernet

from telephony.keys import SETTINGS
from telephony.registry.catalogue import RESOURCES
from telephony.registry.transfer import UNOPENED
from telephony.security import Sealer, hash_password
from tests.serving import telephony

from .conftest import CONTROL, LOOP, PASSWORD, Api, wrong_field

pytestmark = LOOP
CUSTOMER = 100001
GOOD = {"resource": "contacts", "customer_id": CUSTOMER, "data": {"first_name": "Ann"}}
CDR = {"calldate": "2026-07-01 12:00:00", "type": "O", "disposition": "CONNECTED", "destination": "out",
       "duration": 30, "billsec": 20, "src": "+447700900123", "dst": "+442000000001"}  # fmt: skip
TOKEN = {"token_id": "0123456789abcdef", "user_id": 1000001, "name": "ci", "digest": "ab" * 32,
         "expiry": 0, "created_at": "2026-07-01 12:00:00", "issued_epoch": 1782907200.0}  # fmt: skip


def other_key_sealed(secret: str) -> str:
    """A secret sealed under a key no data dir of this test has."""
    return Sealer(Fernet.generate_key()).seal(secret)


def line(resource: str, data: dict[str, Any], customer_id: int = CUSTOMER) -> dict:
    return {"resource": resource, "customer_id": customer_id, "data": data}


def user(**fields: Any) -> dict:
    return {"id": 1999999, "email": "imported@example.com", **fields}


# (what is wrong, the line, the field the refusal names)
BAD_RECORDS: list[tuple[str, dict, str]] = [
    ("a CDR time that is not a time", line("cdrs", {**CDR, "calldate": "not a date"}), "calldate"),
    ("a CDR time that is no calendar day", line("cdrs", {**CDR, "calldate": "2026-02-30 12:00:00"}), "calldate"),
    ("a CDR type outside its dictionary", line("cdrs", {**CDR, "type": "X"}), "type"),
    ("a CDR disposition outside its dictionary", line("cdrs", {**CDR, "disposition": "LOST"}), "disposition"),
    ("a negative duration", line("cdrs", {**CDR, "duration": -1}), "duration"),
    ("a recording of 10^12 seconds", line("monitors", {"live_id": 1, "duration": 10**12}), "duration"),
    ("a voicemessage longer than a day", line("voicemessages", {"duration": 86_401}), "duration"),
    ("a fax number of 300 characters", line("faxes", {"from": "1" * 300}), "from"),
    ("a number of 300 characters", line("cdrs", {**CDR, "src": "1" * 300}), "src"),
    ("a text where a number goes", line("cdrs", {**CDR, "duration": "30"}), "duration"),
    ("an id beyond 64 bits", line("contacts", {"id": 10**30, "first_name": "Ann"}), "id"),
    ("a number beyond 64 bits", line("cdrs", {**CDR, "live_id": -(10**20)}), "live_id"),
    ("a customer id beyond 64 bits", line("contacts", {"first_name": "Ann"}, customer_id=10**30), "customer_id"),
    ("a create body's constraint", line("contacts", {"email": "not an address"}), "email"),
    ("a create body's required field", line("queues", {"ring_time": 20}), "name"),
    ("a create body's dictionary", line("routingrules", {"action": "allow", "direction": "sideways"}), "direction"),
    (
        "a resource's own check",
        line(
            "reportschedules",
            {
                "report_id": 1,
                "name": "r",
                "emails": ["a@b.co"],
                "frequency": {"type": "daily"},
                "timezone": "Mars/Olympus",
            },
        ),
        "timezone",
    ),  # fmt: skip
    ("an unknown resource", line("nonsense", {}), "resource"),
    ("a user without a usable email", line("users", user(email="nobody")), "email"),
    ("a user of an unknown role", line("users", user(roles=["ROLE_GOD"])), "roles"),
    ("a user whose hash no login can check", line("users", user(password_hash="md5$abc")), "password_hash"),
    (
        "a user whose hash would cost a gigabyte",
        line("users", user(password_hash=hash_password("x").replace("scrypt$16384$", "scrypt$8388608$"))),
        "password_hash",
    ),  # fmt: skip
    (
        "a user's secret sealed under an unknown key",
        line("users", user(sip_password_sealed=other_key_sealed("sip-secret"))),
        "sip_password_sealed",
    ),
    ("a token digest that is no digest", line("apitokens", {**TOKEN, "digest": "xyz", "sealed": "s"}), "digest"),
    ("a token sealed under an unknown key", line("apikeys", {**TOKEN, "sealed": other_key_sealed("k")}), "sealed"),
    (
        "a file whose bytes do not match",
        line("blobs", {"sha256": "0" * 64, "media_type": "audio/wav", "base64": "AAAA"}, customer_id=0),
        "sha256",
    ),  # fmt: skip
]


@pytest.mark.parametrize(("what", "bad", "field"), [pytest.param(*case, id=case[0]) for case in BAD_RECORDS])
async def test_a_bad_record_is_refused_by_line_and_field_and_nothing_is_applied(api, home, what, bad, field):
    lines = [GOOD, GOOD, bad, GOOD]
    message = await refused(api, lines)
    assert message.startswith("line 3: ") and field in message, message


async def test_a_record_with_several_problems_names_each_on_its_line(api, home):
    bad = line("cdrs", {**CDR, "duration": -1, "calldate": "not a date", "type": "X", "colour": "red"})
    message = await refused(api, [GOOD, bad])
    assert message.startswith("line 2: ")
    assert all(f" {field}: " in message for field in ("duration", "calldate", "type", "colour")), message


@pytest.mark.parametrize("resource", [pytest.param(r, id=r.path) for r in RESOURCES if not r.derived])
async def test_every_resource_refuses_a_wrong_typed_field_of_its_model(api, home, resource):
    name, value = wrong_field(resource.model)
    message = await refused(api, [line(resource.path, {name: value})])
    assert message.startswith(f"line 1: {name}"), message


async def test_a_resource_drawn_from_other_records_is_never_imported(api, home):
    message = await refused(api, [line("conversations", {"id": 1, "channel": "call"})])
    assert message.startswith("line 1: resource: 'conversations' is drawn from other records"), message


@pytest.mark.parametrize("cases", [BAD_RECORDS[:20], BAD_RECORDS[20:]], ids=["first 20", "the rest"])
async def test_the_command_reports_every_bad_line_and_applies_nothing(tmp_path, cases):
    customer = line("customers", {"id": CUSTOMER, "name": "Imported"})
    source = tmp_path / "bad.jsonl"
    source.write_text("\n".join(json.dumps(x) for x in [customer, *(case[1] for case in cases)]) + "\n")
    result = telephony("--data-dir", tmp_path / "fresh", "import", source, cwd=tmp_path)
    assert result.returncode == 1
    reported = result.stderr.splitlines()
    assert len(reported) == len(cases) and "nothing was applied" in reported[0]
    for number, (_, _, field) in enumerate(cases, 2):
        assert any(f"line {number}: " in text and field in text for text in reported), (number, result.stderr)
    shown = telephony("--data-dir", tmp_path / "fresh", "log", "--json", cwd=tmp_path)
    assert shown.returncode == 0 and shown.stdout == "", shown.stderr


async def test_a_secret_sealed_here_opens_and_one_sealed_elsewhere_names_the_option(api, home):
    message = await refused(api, [line("users", user(sip_password_sealed=other_key_sealed("s")))])
    assert UNOPENED in message
    own = Sealer.for_data_dir(Path(api.app[SETTINGS].storage.data_dir))
    sealed_here = user(email="sealed@example.com", password_hash=hash_password(PASSWORD),
                       sip_password_sealed=own.seal("sip-sealed-here"))  # fmt: skip
    body = msgspec.json.encode(line("users", sealed_here))
    assert (await api.call("POST", "/_telephony/import", data=body, headers=CONTROL)).status == 200
    me = await api.ok("GET", "/me", await api.login("sealed@example.com", PASSWORD))
    assert me["data"]["sip_password"] == "sip-sealed-here"


async def test_a_record_nested_beyond_reason_is_refused_by_line(api, home):
    deep = b"[" * 5000 + b"]" * 5000
    body = b'{"resource": "monitors", "customer_id": 100001, "data": {"metadata": ' + deep + b"}}"
    reply = await api.call("POST", "/_telephony/import", data=body, headers=CONTROL)
    assert reply.field_error() == "line 1" and "nested too deeply" in reply.body["message"], reply


async def refused(api: Api, lines: list[dict]) -> str:
    """POST the lines to the import; it must be a 400 naming a line, and no event may be recorded."""
    position = (await api.call("GET", "/_telephony/health")).body["position"]
    body = b"\n".join(msgspec.json.encode(x) for x in lines)
    reply = await api.call("POST", "/_telephony/import", data=body, headers=CONTROL)
    assert reply.field_error().startswith("line "), reply
    assert (await api.call("GET", "/_telephony/health")).body["position"] == position
    return reply.body["errors"][0]["message"]


async def test_a_number_is_imported_by_its_e164_once(api, home):
    number = {"e164": "447700900777", "name": "Imported line"}
    body = msgspec.json.encode(line("ddis", number))
    assert (await api.call("POST", "/_telephony/import", data=body, headers=CONTROL)).status == 200
    shown = await api.ok("GET", "/ddis/447700900777", home)
    assert shown["data"]["id"] == shown["data"]["e164"] == "+447700900777"
    message = await refused(api, [line("ddis", number)])
    assert message.startswith("line 1: e164: +447700900777 is already provisioned"), message
    message = await refused(api, [line("ddis", {"e164": "not a number"})])
    assert message.startswith("line 1: e164"), message


async def test_numbers_of_imported_records_are_read_as_a_request_reads_them(api, home):
    lines = [line("ddis", {"e164": "+44 7700 900 778"}), line("contacts", {"id": 7001, "tel": "+44 (0)20 7123 0001"})]
    body = b"\n".join(msgspec.json.encode(x) for x in lines)
    assert (await api.call("POST", "/_telephony/import", data=body, headers=CONTROL)).status == 200
    assert (await api.ok("GET", "/ddis/447700900778", home))["data"]["e164"] == "+447700900778"
    assert (await api.ok("GET", "/contacts/7001", home))["data"]["tel"] == "+442071230001"


async def test_the_id_of_a_deleted_record_or_customer_is_not_used_again(api, home):
    made = await api.ok("POST", "/contacts", home, status=201, json={"first_name": "Gone"})
    await api.ok("DELETE", f"/contacts/{made['data']['id']}", home, status=202)
    message = await refused(api, [line("contacts", {"id": made["data"]["id"], "first_name": "Back"})])
    assert "was deleted here" in message, message
    gone = await api.new_customer("gone")
    await api.ok("DELETE", f"/customers/{gone.customer_id}", gone, status=204)
    message = await refused(api, [line("customers", {"id": gone.customer_id, "name": "Back"}, gone.customer_id)])
    assert message.startswith("line 1: ") and "exists already" in message, message
