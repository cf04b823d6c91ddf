"""Export, then import into a fresh data dir: every endpoint answers the same, credentials included.

A data dir is seeded through the API with records of every resource of the registry for two
customers (and a third, deleted), users (one deleted, one patched, one with two-factor login and a
remembered device), API tokens (one revoked) and API keys. `telephony export` writes it (0600),
`telephony import --seal-key` loads it into a fresh data dir, and every GET route of the API, with
every id it can take, answers the same status and body there for each caller; the API tokens and
keys authenticate as before, and the next record of every kind gets the same id.
"""

from __future__ import annotations

import base64
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
from msgspec import inspect as mi

from telephony import wiring
from telephony.api.route_table import template
from telephony.app import create_app
from telephony.collections import Kind
from telephony.config import Control, EventLogSettings, Settings, Storage
from telephony.domain.dictionaries import DICTIONARIES, RESOURCE_DICTIONARIES
from telephony.registry.catalogue import RESOURCES
from telephony.registry.resource import Op, Resource
from tests.serving import log_env, telephony

from .conftest import CONTROL, CONTROL_KEY, PASSWORD, Api, Caller, example_body, linked_body, sample

ADMIN = ("admin@example.com", "change-me-now")
UNKNOWN_ID = "999999999"
FINGERPRINT = "the-office-laptop"


@dataclass
class Seeded:
    """Who can log in (email, password), the credentials to try again, and ids without a list route."""

    logins: list[tuple[str, str]]
    api_tokens: list[tuple[int, str]] = field(default_factory=list)
    ids: dict[str, list[str]] = field(default_factory=dict)


def valid_record(resource: Resource, caller: Caller, n: int) -> dict[str, Any]:
    """A record of a resource the platform writes: every model field set to a value the import accepts."""
    coded = RESOURCE_DICTIONARIES.get(resource.path, {})
    info = mi.type_info(resource.model)
    assert isinstance(info, mi.StructType)
    record: dict[str, Any] = {}
    for f in info.fields:
        name = f.encode_name
        if name in coded:
            record[name] = DICTIONARIES[coded[name]].codes[n % len(DICTIONARIES[coded[name]].codes)]
        elif resource.props[name] is Kind.TIME:
            record[name] = f"2026-07-{1 + n:02d} 12:00:00"
        elif name not in ("id", "customer_id", "customer"):
            record[name] = sample(f.type)
    overrides = {"user_id": caller.user_id, "user": caller.user_id, "from": "+447700900001", "to": "+447700900002",
                 "duration": 30 + n, "billsec": 20 + n, "live_id": 500 + n}  # fmt: skip
    record.update({k: v for k, v in overrides.items() if k in record})
    return record


async def seed(api: Api) -> Seeded:
    home = await api.login(*ADMIN)
    other = await api.new_customer("roundtrip")
    seeded = Seeded([ADMIN, ("root@roundtrip.example.com", PASSWORD)])
    agent = await api.new_user(home.customer_id, "agent@example.com", first_name="Ann", roles=["ROLE_AGENT"],
                               ext="201", mobile="+447700900321")  # fmt: skip
    gone = await api.new_user(home.customer_id, "gone@example.com")
    await api.ok("DELETE", f"/users/{gone['id']}", home, status=204)
    await api.ok("PATCH", "/users", home, json=[{"id": agent["id"], "location_id": 7}])
    await api.new_user(home.customer_id, "twofa@example.com", two_factor_auth="E")
    seeded.logins += [("agent@example.com", PASSWORD)]
    await remember_a_device(api, "twofa@example.com")
    for caller, numbers in ((home, ("+442071234567", "+442071234568")), (other, ("+13125550100",))):
        for number in numbers:
            body = {"e164": number, "sms_enabled": True}
            reply = await api.call("POST", f"/_telephony/customers/{caller.customer_id}/ddis", json=body,
                                   headers=CONTROL)  # fmt: skip
            assert reply.status == 201, reply
        await seed_registry(api, caller, seeded)
        await seed_ledger(api, caller)
        for name, expiry in (("ci", 0), ("week", 7 * 86400), ("revoked", 0)):
            made = await api.ok("POST", "/apitokens", caller, status=201, json={"name": name, "expiry": expiry})
            seeded.api_tokens.append((caller.user_id, made["data"]["token"]))
        await api.ok("DELETE", f"/apitokens/{seeded.api_tokens.pop()[1]}", caller, status=204)
    closed = await api.new_customer("closed")
    await api.ok("POST", "/contacts", closed, status=201, json={"first_name": "Left behind"})
    await api.ok("POST", "/apitokens", closed, status=201, json={"name": "ci"})
    await api.ok("DELETE", f"/customers/{closed.customer_id}", closed, status=204)
    for user_id in (home.user_id, agent["id"]):
        reply = await api.call("POST", f"/_telephony/users/{user_id}/apikeys", json={"name": "crm"}, headers=CONTROL)
        assert reply.status == 201, reply
        seeded.api_tokens.append((user_id, reply.data["key"]))
    return seeded


LEDGER = ("balances", "tariffcards")
"""What the ledger keeps per customer, made by its operator endpoints (and carried by an export)."""


async def seed_ledger(api: Api, caller: Caller) -> None:
    """A customer's credit, adjustment and own tariffs: its balance, transactions and tariff card."""
    for body in ({"amount": 12.5, "note": "Card"}, {"amount": -2.25, "type": "adjustment"}):
        reply = await api.call("POST", f"/_telephony/customers/{caller.customer_id}/credit", json=body,
                               headers=CONTROL)  # fmt: skip
        assert reply.status == 201, reply
    reply = await api.call("PUT", f"/_telephony/customers/{caller.customer_id}/tariffs", headers=CONTROL,
                           json=[{"prefix": "44", "name": "Own UK", "per_minute": 0.015}])  # fmt: skip
    assert reply.status == 200, reply


async def seed_registry(api: Api, caller: Caller, seeded: Seeded) -> None:
    """Two records of every resource: POSTed where the API creates them, imported where the platform writes
    them; one of each POSTed pair patched, and a third POSTed and deleted."""
    lines = []
    for resource in RESOURCES:
        if resource.text_ids or resource.derived or resource.path in LEDGER:
            continue
        if Op.CREATE not in resource.all_ops:
            lines += [{"resource": resource.path, "customer_id": caller.customer_id,
                       "data": valid_record(resource, caller, n)} for n in range(2)]  # fmt: skip
            continue
        made = [(await api.ok("POST", f"/{resource.path}", caller, status=201,
                              json=await linked_body(api, resource, caller)))["data"] for _ in range(3)]  # fmt: skip
        seeded.ids.setdefault(resource.path, []).extend(str(m["id"]) for m in made[:2])
        if Op.UPDATE in resource.all_ops:
            await api.ok("PATCH", f"/{resource.path}/{made[0]['id']}", caller, json=patch_of(resource))
        if resource.all_ops & {Op.DELETE, Op.DELETE_MANY}:
            await api.ok("DELETE", f"/{resource.path}/{made[2]['id']}", caller,
                         status=resource.delete_status if Op.DELETE in resource.all_ops else
                         resource.delete_many_status)  # fmt: skip
    body = b"\n".join(msgspec.json.encode(line) for line in lines)
    assert (await api.call("POST", "/_telephony/import", data=body, headers=CONTROL)).status == 200
    monitor = (await api.rows("/monitors", caller))[0]
    await api.ok("PATCH", f"/monitors/{monitor['id']}", caller, json={"transcript": "hello", "sentiment": 1})


def changed(before: Any, after: Any) -> Any:
    """What differs between two answers: the fields of a single record, or both answers."""
    old, new = before[1].get("data"), after[1].get("data")
    if isinstance(old, dict) and isinstance(new, dict):
        return {k: (v, new.get(k)) for k, v in old.items() if new.get(k) != v}
    return before, after


def patch_of(resource: Resource) -> dict[str, Any]:
    """A small change a PATCH of `resource` accepts."""
    body = example_body(resource)
    for name in ("name", "description", "first_name", "transcript"):
        if name in body:
            return {name: f"patched {name}"}
    return {}


async def remember_a_device(api: Api, email: str) -> None:
    """A two-factor login from a device, completed with the mailed code, remembering the device."""
    answer = await api.call("POST", "/login", json={"email": email, "password": PASSWORD,
                                                    "device_fingerprint": FINGERPRINT})  # fmt: skip
    assert answer.status == 202, answer
    mails = await api.call("GET", "/_telephony/outbox", params={"to": email}, headers=CONTROL)
    code = mails.data[-1]["body"].rsplit(" ", 1)[1]
    passed = await api.call("POST", "/login2fa", json={"code": code, "nonce": answer.body["nonce"],
                                                       "add_device": True})  # fmt: skip
    assert passed.status == 200, passed


# --- what every endpoint answers -------------------------------------------------------------------

LEFT_OUT = {"/_telephony/health", "/_telephony/clock", "/_telephony/outbox", "/_telephony/export", "/_telephony/faults",
            "/_telephony/events/stream"}  # fmt: skip
"""Operator endpoints an export does not carry (the README says why): the log's position, the clock,
mail already sent, fault rules, the log's events as they come; the export itself is compared line by
line apart."""
LEFT_OUT_UNDER = ("/_telephony/webhooks", "/_telephony/dashboard", "/_telephony/calls/", "/_telephony/outbox/")
"""Webhooks and their deliveries (receivers of the exporting place, never carried), the dashboard, and the
attachments of mail already sent."""


def get_templates() -> list[str]:
    api = [template(r.path) for r in wiring.api_routes() if r.method == "GET"]
    control = [template(r.path) for r in wiring.control_routes() if r.method == "GET"]
    return [f"/v1.2/voipstudio{p}" for p in api] + [
        p for p in control if p not in LEFT_OUT and not p.startswith(LEFT_OUT_UNDER)
    ]


def concrete(path: str, values: dict[str, list[str]]) -> list[str]:
    """Every path the template takes with the known values of its parameters (and an unknown id)."""
    paths = [path]
    for name in re.findall(r"\{(\w+)\}", path):
        prefix = path.split("/{" + name + "}")[0]
        key = {"id": prefix.removeprefix("/v1.2/voipstudio"), "e164": "e164", "from": "from", "to": "to",
               "format": "format"}[name]  # fmt: skip
        choices = values.get(key, []) + ([UNKNOWN_ID] if name == "id" else [])
        paths = [p.replace("{" + name + "}", choice, 1) for p in paths for choice in choices]
    return paths


async def known_values(api: Api, caller: Caller, seeded: Seeded) -> dict[str, list[str]]:
    """Ids of every list, numbers, SMS ends and file formats, as `caller` sees them."""
    values = {path: list(ids) for path, ids in seeded.ids.items()}
    for resource in RESOURCES:
        if Op.LIST in resource.all_ops:
            rows = await api.rows(f"/{resource.path}", caller)
            values[f"/{resource.path}"] = sorted(
                {str(r["id"]) for r in rows} | set(values.get(f"/{resource.path}", []))
            )
    values["/users"] = [str(u["id"]) for u in await api.rows("/users", caller)]
    values["/_telephony/users"] = values["/users"]
    values["/aclroles"] = ["1", "4"]
    values["/calls"] = []
    values["e164"] = [r["id"] for r in await api.rows("/ddis", caller)]
    sms = await api.rows("/sms", caller)
    values["from"], values["to"] = sorted({r["from"] for r in sms}), sorted({r["to"] for r in sms})
    values["format"] = sorted({r["format"] for r in await api.rows("/vmannouncements", caller)})
    return values


async def answers(api: Api, seeded: Seeded) -> dict[str, Any]:
    """(status, body) of every GET path, for every user who can log in (the server's own address, which
    `GET /` gives in its links, written as ORIGIN: the two servers listen on different ports)."""
    seen: dict[str, Any] = {}
    origin = str(api.client.make_url("/")).rstrip("/").encode()
    for email, password in seeded.logins:
        caller = await api.login(email, password)
        values = await known_values(api, caller, seeded)
        for path in [p for t in get_templates() for p in concrete(t, values)]:
            headers = CONTROL if path.startswith("/_telephony") else caller.headers
            response = await api.client.get(path, headers=headers)
            raw = (await response.read()).replace(origin, b"ORIGIN")
            body = msgspec.json.decode(raw) if response.content_type == "application/json" else raw
            seen[f"{email} {path}"] = (response.status, body)
    return seen


def unsealed(export: bytes) -> list[dict]:
    """An export's lines without their sealed copies (sealed again, under its own key, by an import)."""
    lines = [msgspec.json.decode(line) for line in export.splitlines()]
    for line in lines:
        line["data"].pop("sip_password_sealed", None)
        line["data"].pop("sealed", None)
    return lines


async def test_export_then_import_gives_the_same_answers_on_every_endpoint(
    another_eventlog_url, aiohttp_client, client, settings, tmp_path
):
    source_api = Api(client)
    seeded = await seed(source_api)
    before = await answers(source_api, seeded)
    source_dir, url = Path(settings.storage.data_dir), settings.eventlog.url
    exported = tmp_path / "seed.jsonl"
    done = telephony("--data-dir", source_dir, "export", "--out", exported, cwd=tmp_path, **log_env(url))
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(exported.stat().st_mode) == 0o600
    fresh = tmp_path / "fresh"
    done = telephony("--data-dir", fresh, "import", exported, "--seal-key", source_dir, cwd=tmp_path,
                     **log_env(another_eventlog_url))  # fmt: skip
    assert done.returncode == 0, done.stderr
    restored_settings = Settings(storage=Storage(data_dir=str(fresh)), control=Control(key=CONTROL_KEY),
                                 eventlog=EventLogSettings(url=another_eventlog_url))  # fmt: skip
    restored = Api(await aiohttp_client(create_app(restored_settings)))
    after = await answers(restored, seeded)
    assert after.keys() == before.keys()
    different = [key for key in before if before[key] != after[key]]
    assert not different, [(key, changed(before[key], after[key])) for key in different[:3]]
    again = await restored.call("GET", "/_telephony/export", headers=CONTROL)
    assert unsealed(again.body) == unsealed(exported.read_bytes())
    for user_id, token in seeded.api_tokens:
        for headers in ({"X-Auth-Token": token}, basic(user_id, token)):
            mine = await restored.call("GET", "/me", headers=headers)
            assert mine.status == 200 and mine.data["id"] == user_id, mine
    remembered = await restored.call("POST", "/login", json={"email": "twofa@example.com", "password": PASSWORD,
                                                             "device_fingerprint": FINGERPRINT})  # fmt: skip
    assert remembered.status == 200 and remembered.body["user_token"], remembered
    assert await next_ids(restored) == await next_ids(source_api)


async def next_ids(api: Api) -> dict[str, Any]:
    """The id the next record of every kind gets (ids of deleted records are never handed out again)."""
    home = await api.login(*ADMIN)
    ids = {"customer": (await api.new_customer("next")).customer_id,
           "user": (await api.new_user(home.customer_id, "next@example.com"))["id"]}  # fmt: skip
    for resource in RESOURCES:
        if Op.CREATE in resource.all_ops:
            made = await api.ok("POST", f"/{resource.path}", home, status=201, json=example_body(resource, home))
            ids[resource.path] = made["data"]["id"]
    return ids


def basic(user_id: int, token: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user_id}:{token}".encode()).decode()}
