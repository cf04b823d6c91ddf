"""Import and export of configuration and history as JSON lines.

One record a line: `{"resource": "<collection path>", "customer_id": N, "data": {...}}`, where the
resource is any registry collection (`contacts`, `cdrs`, `queues`, ...), `customers`, `users`, or
`blobs` (uploaded files, by content; `customer_id` 0).
An import is checked whole first, every line validated like API input; a bad line is reported by
its number and nothing is applied. Then every record is appended in one transaction. Export writes
the same format (customers, then users, then every collection), so export → import reproduces the
same API answers. Records keep their ids; customers and users already present are left as they are.
"""

from __future__ import annotations

import base64
import binascii
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import msgspec

from .. import accounts
from ..accounts import User
from ..api.errors import BadRequest, FieldError
from ..documents import blobs, reads
from ..documents.blobs import sha256_of, store_once
from ..eventlog import NO_STREAM, NewEvent
from ..projections.sequences import next_id
from .catalogue import BY_PATH, RESOURCES
from .coercion import new_document
from .resource import Resource

MAX_REPORTED = 20


class Line(msgspec.Struct):
    resource: str
    customer_id: int
    data: msgspec.Raw


class CustomerRecord(msgspec.Struct, kw_only=True):
    id: int
    name: str
    created_at: str = ""


class UserRecord(User, kw_only=True):
    password_hash: str | None = None


@dataclass(frozen=True)
class Record:
    number: int
    resource: str
    customer_id: int
    value: Any


_line = msgspec.json.Decoder(Line)


class BlobRecord(msgspec.Struct, kw_only=True):
    """An uploaded file (a voicemail announcement's audio), by content."""

    sha256: str
    media_type: str
    base64: str


_SPECIAL = {"customers": CustomerRecord, "users": UserRecord, "blobs": BlobRecord}


def _schema(resource: str) -> type:
    if resource in _SPECIAL:
        return _SPECIAL[resource]
    if resource in BY_PATH:
        return BY_PATH[resource].model
    raise ValueError(f"unknown resource '{resource}'")


def parse(lines: Iterable[bytes]) -> Iterator[Record | FieldError]:
    """Each non-blank line as a validated record, or the problem with it (field names the line)."""
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            line = _line.decode(raw)
            value: Any = msgspec.json.decode(line.data, type=_schema(line.resource), strict=False)
        except (msgspec.ValidationError, msgspec.DecodeError, ValueError) as exc:
            yield FieldError(f"line {number}", f"line {number}: {exc}")
            continue
        yield Record(number, line.resource, line.customer_id, value)


def check(lines: Iterable[bytes], progress: Callable[[int], object] | None = None) -> int:
    """Validate every line; raise a 400 naming the bad lines, else return how many records there are."""
    problems: list[FieldError] = []
    count = 0
    for item in parse(lines):
        if progress is not None:
            progress(1)
        if isinstance(item, FieldError):
            problems.append(item)
            if len(problems) >= MAX_REPORTED:
                break
        else:
            count += 1
    if problems:
        raise BadRequest(f"Import refused, nothing was applied: {problems[0].message}", problems)
    return count


def decide(lines: Callable[[], Iterable[bytes]], *, now: str, sealed_sip_password: Callable[[], str],
           unusable_hash: str, progress: Callable[[int], object] | None = None):  # fmt: skip
    """The import's decision: every record's events, in file order, checked against the state."""

    def events(conn: sqlite3.Connection) -> Iterator[NewEvent]:
        known_customers: set[int] = set()
        for record in parse(lines()):
            if isinstance(record, FieldError):
                raise BadRequest(record.message, [record])
            if progress is not None:
                progress(1)
            try:
                yield from _record_events(conn, record, known_customers, now, sealed_sip_password, unusable_hash)
            except BadRequest as exc:
                message = f"line {record.number}: {exc.message}"
                raise BadRequest(message, [FieldError(f"line {record.number}", message)]) from None

    return events


def _record_events(conn, record: Record, known: set[int], now: str, sip: Callable[[], str],
                   unusable_hash: str) -> Iterator[NewEvent]:  # fmt: skip
    value, customer_id = record.value, record.customer_id
    if record.resource == "blobs":
        yield from store_once(conn, _blob_bytes(value), value.media_type)
        return
    if record.resource == "customers":
        if not accounts.customer_exists(conn, value.id):
            data = {"id": value.id, "name": value.name, "created_at": value.created_at or now}
            yield NewEvent(stream=f"customer-{value.id}", type=accounts.CUSTOMER_CREATED, data=data,
                           expected_version=NO_STREAM)  # fmt: skip
        return
    if customer_id not in known:
        if not accounts.customer_exists(conn, customer_id):
            raise BadRequest(f"customer {customer_id} does not exist")
        known.add(customer_id)
    if record.resource == "users":
        yield from _user_events(conn, value, customer_id, sip, unusable_hash)
        return
    resource = BY_PATH[record.resource]
    yield _document_event(conn, resource, value, customer_id, now)


def _user_events(conn, value: UserRecord, customer_id: int, sip: Callable[[], str],
                 unusable_hash: str) -> Iterator[NewEvent]:  # fmt: skip
    email = accounts.user_email(conn, value.id)
    if email is not None:
        if email != value.email.lower():
            raise BadRequest(f"user {value.id} exists with another email")
        return
    body = msgspec.structs.asdict(value)
    password_hash = body.pop("password_hash") or unusable_hash
    plan = accounts.UserPlan(email=value.email, password_hash=password_hash, sip_password_sealed=sip(),
                             created_at=value.created_at, is_root=value.is_root, roles=tuple(value.roles),
                             attributes={k: v for k, v in body.items() if k not in _USER_SET_BY_PLAN})  # fmt: skip
    yield from accounts.user_created(conn, customer_id, plan, initial=value.is_initial, user_id=value.id)


_USER_SET_BY_PLAN = {"id", "email", "is_root", "is_initial", "roles", "created_at", "customer", "customer_id_id"}


def _document_event(conn, resource: Resource, value: msgspec.Struct, customer_id: int, now: str) -> NewEvent:
    fields = {k: v for k, v in msgspec.to_builtins(value).items() if k in resource.model_fields}
    id_ = fields.pop("id", None) or None
    if resource.prepare is not None:
        fields = resource.prepare(fields, {"creating": True})
    if id_ is None:
        id_ = next_id(conn, resource.kind, resource.first_id)
    elif reads.exists(conn, resource.kind, id_):
        raise BadRequest(f"{resource.path} {id_} already exists")
    body = new_document(resource, fields, id_, customer_id, fields.get("created_at") or now)
    return NewEvent(stream=f"{resource.kind}-{id_}", type=f"{resource.kind}.created", expected_version=NO_STREAM,
                    data={"id": id_, "customer_id": customer_id, "body": body})  # fmt: skip


def _blob_bytes(value: BlobRecord) -> bytes:
    try:
        data = base64.b64decode(value.base64, validate=True)
    except (binascii.Error, ValueError):
        raise BadRequest("blob: base64 is not valid") from None
    if sha256_of(data) != value.sha256:
        raise BadRequest("blob: its bytes do not match its sha256")
    return data


def export(conn: sqlite3.Connection) -> Iterator[bytes]:
    """Every live record as import lines: customers, users, files, then each collection, by id."""
    encode = msgspec.json.encode
    for id_, name, created_at in accounts.live_customers(conn):
        yield encode({"resource": "customers", "customer_id": id_, "data": {"id": id_, "name": name,
                                                                            "created_at": created_at}})  # fmt: skip
    for customer_id, body, password_hash in accounts.live_users(conn):
        data = {**msgspec.json.decode(body), "password_hash": password_hash}
        yield encode({"resource": "users", "customer_id": customer_id, "data": data})
    for sha, media_type, content in blobs.every(conn):
        blob = {"sha256": sha, "media_type": media_type, "base64": base64.b64encode(content).decode()}
        yield encode({"resource": "blobs", "customer_id": 0, "data": blob})
    for resource in RESOURCES:
        for customer_id, body in reads.every(conn, resource.kind):
            yield (
                b'{"resource":'
                + encode(resource.path)
                + b',"customer_id":'
                + str(customer_id).encode()
                + (b',"data":' + body.encode() + b"}")
            )
