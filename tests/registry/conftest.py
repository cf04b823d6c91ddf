"""Fixtures and helpers of the registry tests: one app per test module, three callers, example bodies
built from the create structs, and seeding of records that have no create endpoint.

Each test module runs on one event loop with one app (`pytestmark = LOOP` in the module), so the
scrypt cost of bootstrapping and logging in is paid once per module, not once per test. Tests
therefore never assume a collection is empty: each makes the records it looks at.
"""

from __future__ import annotations

import base64
import io
import itertools
import json
import re
import wave
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec
import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient, TestServer
from msgspec import inspect as mi

from telephony.app import create_app
from telephony.clock import Clock
from telephony.config import Control, EventLogSettings, Settings, Storage
from telephony.documents import reads
from telephony.documents.names import table_of
from telephony.domain.dictionaries import DICTIONARIES, FINAL_DST_TYPE
from telephony.domain.events import events_of
from telephony.domain.references import DESTINATION_KINDS, Destination, Ref, Reference
from telephony.domain.types import dictionary_fields
from telephony.eventlog import NewEvent
from telephony.keys import EVENT_LOG
from telephony.projections.sequences import next_id
from telephony.registry.catalogue import BY_PATH, RESOURCES
from telephony.registry.resource import Op, Resource
from tests.conftest import CONTROL_KEY

LOOP = pytest.mark.asyncio(loop_scope="module")
SERVICE = "voipstudio"
VERSIONS = ("v1.1", "v1.2")
CONTROL = {"X-Control-Key": CONTROL_KEY}
PASSWORD = "correct-horse-battery-staple"
E164_SAMPLE = "+447700900123"

# --- callers and requests ------------------------------------------------------------------------


@dataclass(frozen=True)
class Caller:
    """A logged-in user: its customer and the headers that authenticate it."""

    customer_id: int
    user_id: int
    headers: Mapping[str, str]


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any
    headers: Mapping[str, str] = field(repr=False)

    @property
    def data(self) -> Any:
        return self.body["data"]

    def error(self, status: int) -> dict:
        """The `{message, errors: [{field, message}]}` body of a reply that must have `status`."""
        assert self.status == status, self
        assert isinstance(self.body, dict) and set(self.body) == {"message", "errors"}, self.body
        assert isinstance(self.body["message"], str) and self.body["message"]
        assert self.body["errors"] and all(set(e) == {"field", "message"} for e in self.body["errors"])
        return self.body

    def field_error(self, status: int = 400) -> str | None:
        """The field the first error names."""
        return self.error(status)["errors"][0]["field"]


class Api:
    """The app over HTTP, as clients (and the operator) call it."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.app = client.app

    async def call(
        self,
        method: str,
        path: str,
        caller: Caller | None = None,
        *,
        version: str = "v1.2",
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        data: bytes | None = None,
    ) -> Reply:
        url = path if path.startswith("/_telephony") else f"/{version}/{SERVICE}{path}"
        sent = {**(caller.headers if caller else {}), **(headers or {})}
        kwargs: dict[str, Any] = {"params": params, "headers": sent}
        if data is not None:
            kwargs["data"] = data
        elif json is not None:
            kwargs["json"] = json
        response = await self.client.request(method, url, **kwargs)
        raw = await response.read()
        body = msgspec.json.decode(raw) if raw and response.content_type == "application/json" else raw
        return Reply(response.status, body, response.headers)

    async def ok(self, method: str, path: str, caller: Caller, status: int = 200, **kwargs: Any) -> Any:
        """The body of a call that must answer `status`."""
        reply = await self.call(method, path, caller, **kwargs)
        assert reply.status == status, reply
        return reply.body

    async def rows(self, path: str, caller: Caller, **params: Any) -> list[dict]:
        """Every record a list shows (one page of the maximum size)."""
        return (await self.ok("GET", path, caller, params={"limit": 5000, **params}))["data"]

    async def login(self, email: str, password: str) -> Caller:
        reply = await self.call("POST", "/login", json={"email": email, "password": password})
        assert reply.status == 200, reply
        me = await self.ok("GET", "/me", Caller(0, 0, {"X-Auth-Token": reply.body["user_token"]}))
        return Caller(me["data"]["customer_id"], reply.body["user_id"], {"X-Auth-Token": reply.body["user_token"]})

    async def new_customer(self, name: str) -> Caller:
        email = f"root@{name}.example.com"
        body = {"name": name, "admin_email": email, "admin_password": PASSWORD}
        reply = await self.call("POST", "/_telephony/customers", json=body, headers=CONTROL)
        assert reply.status == 201, reply
        return await self.login(email, PASSWORD)

    async def new_user(self, customer_id: int, email: str, **fields: Any) -> dict:
        body = {"email": email, "password": PASSWORD, **fields}
        reply = await self.call("POST", f"/_telephony/customers/{customer_id}/users", json=body, headers=CONTROL)
        assert reply.status == 201, reply
        return reply.data


@pytest.fixture(scope="module")
def module_settings(tmp_path_factory, module_eventlog_url) -> Settings:
    data_dir = tmp_path_factory.mktemp("registry") / "data"
    return Settings(storage=Storage(data_dir=str(data_dir)), control=Control(key=CONTROL_KEY),
                    eventlog=EventLogSettings(url=module_eventlog_url))  # fmt: skip


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def api(module_settings):
    client = TestClient(TestServer(create_app(module_settings, clock=Clock())))
    await client.start_server()
    yield Api(client)
    await client.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def home(api, module_settings) -> Caller:
    """The bootstrap customer's root user."""
    return await api.login(module_settings.bootstrap.admin_email, module_settings.bootstrap.admin_password)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def other(api) -> Caller:
    """The root user of a second customer, whose records `home` must never see."""
    return await api.new_customer("other")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def reader(api, home) -> Caller:
    """A user of `home`'s customer with only ROLE_READ_ONLY."""
    await api.new_user(home.customer_id, "reader@example.com", roles=["ROLE_READ_ONLY"])
    return await api.login("reader@example.com", PASSWORD)


# --- the catalogue as test parameters ------------------------------------------------------------


def with_op(*ops: Op) -> list[Any]:
    """`pytest.param(resource)` for every resource declaring any of `ops`, named by its path."""
    return [pytest.param(r, id=r.path) for r in RESOURCES if r.all_ops & set(ops)]


def with_op_and_version(*ops: Op) -> list[Any]:
    return [pytest.param(r, v, id=f"{v} {r.path}") for r in RESOURCES if r.all_ops & set(ops) for v in VERSIONS]


def every_op(ops: frozenset[Op] | set[Op] | None = None) -> list[Any]:
    """`pytest.param(resource, op)` for every operation of every resource (limited to `ops`)."""
    return [
        pytest.param(r, op, id=f"{op.value} {r.path}")
        for r in RESOURCES
        for op in sorted(r.all_ops, key=lambda o: o.value)
        if ops is None or op in ops
    ]


def first_required(resource: Resource) -> str | None:
    """The first field the create body requires, if any."""
    assert resource.create is not None
    return next((f.encode_name for f in mi.type_info(resource.create).fields if f.required), None)


WRITES = (Op.CREATE, Op.UPDATE, Op.DELETE, Op.DELETE_MANY, Op.DELETE_ALL, Op.BULK_PATCH)
COLLECTION_OPS = {Op.LIST: "GET", Op.CREATE: "POST", Op.BULK_PATCH: "PATCH", Op.DELETE_ALL: "DELETE"}
ITEM_OPS = {Op.GET: "GET", Op.UPDATE: "PATCH", Op.DELETE: "DELETE", Op.DELETE_MANY: "DELETE"}


def item_path(resource: Resource, id_: Any) -> str:
    return f"/{resource.path}/{id_}"


def unknown_id(resource: Resource) -> Any:
    return "+19999999999" if resource.text_ids else 999_999_999


def request_of(resource: Resource, op: Op, id_: Any) -> tuple[str, str, Any]:
    """Method, path and a valid body of one operation on the record `id_`."""
    if op in COLLECTION_OPS:
        body = example_body(resource) if op is Op.CREATE else [{"id": id_}] if op is Op.BULK_PATCH else None
        return COLLECTION_OPS[op], f"/{resource.path}", body
    if op is Op.DICTIONARIES:
        return "GET", f"/{resource.path}/dictionaries", None
    return ITEM_OPS[op], item_path(resource, id_), {} if op is Op.UPDATE else None


# --- example bodies, read off the create structs -------------------------------------------------


def wav_base64() -> str:
    """A tiny valid WAV file (ten samples of silence), base64-encoded."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as audio:
        audio.setnchannels(1)
        audio.setsampwidth(2)
        audio.setframerate(8000)
        audio.writeframes(b"\x00\x00" * 10)
    return base64.b64encode(buffer.getvalue()).decode()


# Valid values of the constrained strings the schemas use; a pattern takes the first it matches.
PATTERN_SAMPLES = ("x", "1234", E164_SAMPLE, "someone@example.com", "2026-07-01", "2026-07-01 12:00:00", "#1e90ff")
# Fields the platform always sets on the records it writes (a voicemessage is in a folder).
SEEDED: Mapping[str, Mapping[str, Any]] = {"voicemessages": {"folder": 0, "is_new": True}}
# Values no type can express.
OVERRIDES: Mapping[str, Mapping[str, Any]] = {
    "vmannouncements": {"data": wav_base64()},
    "reportschedules": {"timezone": "Europe/London"},
}


def sample(info: mi.Type) -> Any:
    """A valid value of a msgspec type: the lowest allowed number, a short string, one list item."""
    if isinstance(info, mi.Metadata):
        if info.extra and "dictionary" in info.extra:
            return DICTIONARIES[info.extra["dictionary"]].codes[0]
        return sample(info.type)
    if isinstance(info, mi.UnionType):
        return sample(next(t for t in info.types if not isinstance(t, mi.NoneType)))
    if isinstance(info, mi.StrType):
        if info.pattern is not None:
            return next(s for s in PATTERN_SAMPLES if re.search(info.pattern, s))
        return "x"
    if isinstance(info, mi.BoolType):
        return True
    if isinstance(info, mi.IntType):
        return info.ge if info.ge is not None else 1
    if isinstance(info, mi.FloatType):
        return 1.5
    if isinstance(info, mi.ListType | mi.SetType | mi.VarTupleType):
        return [sample(info.item_type)]
    if isinstance(info, mi.StructType):
        return struct_sample(info.cls)
    if isinstance(info, mi.DictType):
        return {}
    return "x"


def struct_sample(struct: type[msgspec.Struct]) -> dict[str, Any]:
    """A value for every field of `struct`, dictionary-coded fields set to their dictionary's first code."""
    coded = dictionary_fields(struct)
    info = mi.type_info(struct)
    assert isinstance(info, mi.StructType)
    return {
        f.encode_name: DICTIONARIES[coded[f.encode_name]].codes[0] if f.encode_name in coded else sample(f.type)
        for f in info.fields
    }


def example_body(resource: Resource, owner: Caller | None = None) -> dict[str, Any]:
    """A valid create body for `resource`, with every field of its create struct set: those naming other
    records null, or `owner`'s user where one is required (see `linked_body` for a body naming more)."""
    assert resource.create is not None
    required = {f.encode_name for f in msgspec.structs.fields(resource.create) if f.required}
    unlinked: dict[str, Any] = {}
    for ref in resource.refs:
        name = resource.wire_names.get(ref.blamed, ref.blamed)
        if name not in required:
            unlinked[name] = None
        elif owner is not None:
            assert isinstance(ref, Ref) and ref.kind == "user" and not ref.many, f"{resource.path}: {name}"
            unlinked[name] = owner.user_id
    body = {**struct_sample(resource.create), **OVERRIDES.get(resource.path, {}), **unlinked}
    return {name: value for name, value in body.items() if name in struct_fields(resource.create)}


def struct_fields(struct: type[msgspec.Struct]) -> set[str]:
    return {f.encode_name for f in msgspec.structs.fields(struct)}


# One value of each JSON kind; `wrong_value` picks the first a type refuses.
_KINDS: list[tuple[tuple[type, ...], Any]] = [
    ((mi.StrType,), "wrong"),
    ((mi.IntType, mi.FloatType), 12345),
    ((mi.BoolType,), True),
    ((mi.ListType, mi.SetType, mi.VarTupleType, mi.TupleType), ["wrong"]),
    ((mi.StructType, mi.DictType, mi.TypedDictType), {"wrong": True}),
]


def _accepted(info: mi.Type) -> set[type]:
    if isinstance(info, mi.Metadata):
        return _accepted(info.type)
    if isinstance(info, mi.UnionType):
        return set().union(*(_accepted(t) for t in info.types))
    return {type(info)}


def wrong_value(info: mi.Type) -> Any:
    """A JSON value of a kind the type does not accept; None when it accepts anything."""
    accepted = _accepted(info)
    if mi.AnyType in accepted:
        return None
    for kinds, value in _KINDS:
        if not accepted & set(kinds):
            return value
    return None


def wrong_field(struct: type[msgspec.Struct]) -> tuple[str, Any]:
    """The first field of `struct` that some value's type can break, and that value."""
    info = mi.type_info(struct)
    assert isinstance(info, mi.StructType)
    for f in info.fields:
        value = wrong_value(f.type)
        if value is not None and f.encode_name != "id":
            return f.encode_name, value
    raise AssertionError(f"{struct.__name__} accepts any value in every field")


def scalar_fields(resource: Resource, struct: type[msgspec.Struct] | None = None) -> list[tuple[str, mi.Type]]:
    """Fields of a request body (the create struct by default) stored under their own name as sent:
    plain strings, numbers and booleans."""
    struct = struct or resource.create
    assert struct is not None
    renamed = set(getattr(struct, "stored_as", {}))
    info = mi.type_info(struct)
    assert isinstance(info, mi.StructType)
    plain = (mi.StrType, mi.IntType, mi.FloatType, mi.BoolType)
    out = []
    for f in info.fields:
        base = f.type
        if isinstance(base, mi.UnionType):
            members = [t for t in base.types if not isinstance(t, mi.NoneType)]
            base = members[0] if len(members) == 1 else base
        if isinstance(base, mi.Metadata) and not base.extra:
            base = base.type
        stored = f.encode_name in resource.model_fields and f.encode_name not in renamed | {"id"}
        if isinstance(base, plain) and stored and not (isinstance(base, mi.StrType) and base.pattern):
            out.append((f.encode_name, base))
    return out


def a_change(
    resource: Resource, before: Mapping[str, Any], struct: type[msgspec.Struct] | None = None
) -> tuple[str, Any]:
    """A field a PATCH body (`struct`, the create struct by default) may change, and a valid value
    different from the one `before` holds."""
    name, info = next((n, t) for n, t in scalar_fields(resource, struct) if n not in resource.fixed)
    current = before.get(name)
    if isinstance(info, mi.BoolType):
        return name, not current
    if isinstance(info, mi.StrType):
        return name, "patched" if current != "patched" else "patched again"
    value = sample(info)
    return name, value if value != current else value + 1


# --- records -------------------------------------------------------------------------------------


async def append_event(api: Api, event: NewEvent) -> None:
    """A change the platform makes itself (calls delete and amend CDRs), appended as its event."""
    await api.app[EVENT_LOG].transact(lambda conn: [event])


async def seed(api: Api, resource: Resource, customer_id: int, **fields: Any) -> dict:
    """A stored record of a resource the platform writes (no create endpoint), appended as its
    `<kind>.created` event with every field of the model; the stored document."""
    return (await seed_many(api, resource, customer_id, [fields]))[0]


async def seed_many(api: Api, resource: Resource, customer_id: int, rows: list[dict[str, Any]]) -> list[dict]:
    """`seed` for many records at once, in one transaction. A derived resource (conversations) is made
    the way the platform makes it: from records it is drawn from (faxes), its documents answered."""
    if resource.derived:
        faxes = await seed_many(api, BY_PATH["faxes"], customer_id, rows)
        among = {"channel": ["fax"], "source_id": [fax["id"] for fax in faxes]}
        drawn = await api.app[EVENT_LOG].query(lambda conn: reads.holding(conn, resource.kind, customer_id, among))
        return sorted(drawn, key=lambda document: document["id"])
    documents = [msgspec.to_builtins(msgspec.convert(fields, resource.model)) for fields in rows]

    def decide(conn):
        events = []
        first = None if resource.text_ids else next_id(conn, resource.kind, resource.first_id)
        for n, document in enumerate(documents):
            document["id"] = id_ = document["e164"] if first is None else first + n
            for owner in ("customer_id", "customer"):
                if owner in document:
                    document[owner] = customer_id
            if "created_at" in document and not document["created_at"]:
                document["created_at"] = "2026-01-01 00:00:00"  # as the platform stamps what it provisions
            made = events_of(resource.kind).made(id_, customer_id, document)
            events.append(NewEvent(stream=f"{resource.kind}-{id_}", event=made))
        return events

    await api.app[EVENT_LOG].transact(decide)
    return documents


_numbers = iter(range(10**9))


def fresh_number() -> str:
    """A number never used before in this run (numbers are the ids of DDIs)."""
    return f"+4420{next(_numbers):08d}"


async def make(api: Api, resource: Resource, caller: Caller) -> dict:
    """A new record of `caller`'s customer: POSTed when the resource has a create operation, seeded
    otherwise. The record as the API shows it."""
    if Op.CREATE in resource.all_ops:
        reply = await api.call("POST", f"/{resource.path}", caller, json=example_body(resource, caller))
        assert reply.status == 201, reply
        return reply.data
    extra = {"e164": fresh_number()} if resource.text_ids else {}
    return await seed(api, resource, caller.customer_id, **extra, **SEEDED.get(resource.path, {}))


async def make_many(api: Api, resource: Resource, caller: Caller, n: int) -> list[dict]:
    return [await make(api, resource, caller) for _ in range(n)]


async def shown(api: Api, resource: Resource, caller: Caller, id_: Any) -> dict | None:
    """The record as `caller` reads it (by GET, else through the list), None when it is not there."""
    if Op.GET in resource.all_ops:
        reply = await api.call("GET", item_path(resource, id_), caller)
        if reply.status == 404:
            return None
        assert reply.status == 200, reply
        return reply.data
    if Op.LIST in resource.all_ops:
        rows = await api.rows(f"/{resource.path}", caller, filter=filter_of(("id", "eq", id_)))
        return rows[0] if rows else None
    return await stored(api, resource, id_, caller.customer_id)


async def stored(api: Api, resource: Resource, id_: Any, customer_id: int) -> dict | None:
    """The document in the resource's read model (for resources that cannot be read through the API)."""

    def read(conn):
        row = conn.execute(
            f'SELECT body FROM "{table_of(resource.kind)}" WHERE id = ? AND customer_id = ?', (id_, customer_id)
        ).fetchone()
        return None if row is None else json.loads(row[0])

    return await api.app[EVENT_LOG].query(read)


# --- references ----------------------------------------------------------------------------------

BY_KIND = {resource.kind: resource for resource in RESOURCES}
_emails = itertools.count()


def destination_code(kind: str) -> str:
    """The final destination letter that points to `kind` (`Q` for a queue)."""
    return next(code for code, name in FINAL_DST_TYPE.entries.items() if DESTINATION_KINDS[name] == kind)


def target_kind(ref: Reference) -> str:
    """The kind the tests point `ref` to: its own, or a queue for a final destination."""
    return ref.kind if isinstance(ref, Ref) else "queue"


async def a_record(api: Api, kind: str, caller: Caller) -> Any:
    """The id of a new record of `kind` of `caller`'s customer."""
    if kind == "user":
        return (await api.new_user(caller.customer_id, f"linked-{next(_emails)}@example.com"))["id"]
    return (await make(api, BY_KIND[kind], caller))["id"]


def absent_id(kind: str) -> Any:
    """An id no record of `kind` has."""
    return fresh_number() if kind in BY_KIND and BY_KIND[kind].text_ids else 999_999_999


def _field_type(struct: type[msgspec.Struct], name: str) -> mi.Type:
    info = mi.type_info(struct)
    assert isinstance(info, mi.StructType)
    found = next(f.type for f in info.fields if f.encode_name == name)
    while isinstance(found, mi.UnionType | mi.Metadata):
        found = next(t for t in found.types if not isinstance(t, mi.NoneType)) if isinstance(found, mi.UnionType) \
            else found.type  # fmt: skip
    return found


def naming(struct: type[msgspec.Struct], names: Mapping[str, str], ref: Reference, id_: Any) -> dict[str, Any]:
    """The body fields (of `struct`, the request's names by `names`) that name the record `id_` through
    `ref`, shaped as the body takes them: a list for a list, `{id}` for a member, digits for an integer."""
    if isinstance(ref, Destination):
        return {ref.type_field: destination_code(target_kind(ref)), ref.id_field: id_}
    name = names.get(ref.field, ref.field)
    info = _field_type(struct, name)
    item_info = info.item_type if isinstance(info, mi.ListType) else info
    while isinstance(item_info, mi.UnionType | mi.Metadata):
        item_info = item_info.types[-1] if isinstance(item_info, mi.UnionType) else item_info.type
    value: Any = int(str(id_).lstrip("+")) if isinstance(item_info, mi.IntType) and ref.number else id_
    value = {"id": value} if isinstance(item_info, mi.StructType) else value
    return {name: [value] if isinstance(info, mi.ListType) else value}


async def linked_body(api: Api, resource: Resource, caller: Caller) -> dict[str, Any]:
    """`example_body` with every reference naming a new record of `caller`'s customer."""
    assert resource.create is not None
    body = example_body(resource, caller)
    for ref in resource.refs:
        target = await a_record(api, target_kind(ref), caller)
        body.update(naming(resource.create, resource.wire_names, ref, target))
    return body


def filter_of(*conditions: tuple[str, str, Any]) -> str:
    """The `filter` query value: a JSON array of `{property, operator, value}`."""
    return json.dumps([{"property": p, "operator": o, "value": v} for p, o, v in conditions])


def ids_of(rows: Iterable[Mapping[str, Any]]) -> list[Any]:
    return [row["id"] for row in rows]
