"""The import's decision: checked records (`transfer.parse`) to events, against the state they meet.

It runs inside the writer's transaction, in file order, so a record may refer to one earlier in the
file (a user's customer, a token's user). Records keep their ids. Customers, users and tokens already
present are left as they are; a registry record whose id is taken is refused, naming its line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import msgspec

from .. import accounts
from ..api.errors import BadRequest, FieldError
from ..documents import reads
from ..domain import phone
from ..domain.errors import DomainError
from ..domain.events import events_of
from ..domain.events.log import SequenceReserved
from ..eventlog import NewEvent, store
from ..eventlog.connection import Connection
from ..projections.blobs import store_once
from ..projections.sequences import next_id
from ..security import Resealer
from .catalogue import BY_PATH
from .coercion import new_document
from .resource import Resource
from .transfer import TOKEN_KINDS, CustomerRecord, Record, TokenRecord, UserRecord, parse

Progress = Callable[[int], object]


def decide(lines: Callable[[], Iterable[bytes]], resealer: Resealer, *, now: str, new_sip_password: Callable[[], str],
           unusable_hash: str, progress: Progress | None = None):  # fmt: skip
    """Every record's events, in file order, checked against the state."""

    def events(conn: Connection) -> Iterator[NewEvent]:
        known_customers: set[int] = set()
        for record in parse(lines(), resealer):
            if isinstance(record, FieldError):
                raise BadRequest(record.message, [record])
            if progress is not None:
                progress(1)
            try:
                yield from _record_events(conn, record, known_customers, now, new_sip_password, unusable_hash)
            except (BadRequest, DomainError) as exc:
                message = f"line {record.number}: {exc.message}"
                raise BadRequest(message, [FieldError(f"line {record.number}", message)]) from None

    return events


def _record_events(conn: Connection, record: Record, known: set[int], now: str, sip: Callable[[], str],
                   unusable_hash: str) -> Iterator[NewEvent]:  # fmt: skip
    value, customer_id = record.value, record.customer_id
    if record.resource == "blobs":
        data, media_type = value
        yield from store_once(conn, data, media_type)
        return
    if record.resource == "customers":
        yield from _customer_events(conn, value, now)
        return
    if record.resource == "sequences":
        if value.last >= next_id(conn, value.kind):
            yield NewEvent(stream=f"sequence-{value.kind}", event=SequenceReserved(kind=value.kind, last=value.last))
        return
    if customer_id not in known:
        if not accounts.customer_exists(conn, customer_id):
            raise BadRequest(f"customer {customer_id} does not exist")
        known.add(customer_id)
    if record.resource == "users":
        yield from _user_events(conn, value, customer_id, sip, unusable_hash)
    elif record.resource in TOKEN_KINDS:
        yield from _token_events(conn, value, TOKEN_KINDS[record.resource], customer_id)
    else:
        yield _document_event(conn, BY_PATH[record.resource], value, customer_id, now)


def _customer_events(conn: Connection, value: CustomerRecord, now: str) -> Iterator[NewEvent]:
    if not accounts.customer_exists(conn, value.id):
        yield from accounts.customer_opened(conn, value.id, value.name, value.created_at or now)


def _user_events(conn: Connection, value: UserRecord, customer_id: int, sip: Callable[[], str],
                 unusable_hash: str) -> Iterator[NewEvent]:  # fmt: skip
    email = accounts.user_email(conn, value.id)
    if email is not None:
        if email != value.email.lower():
            raise BadRequest(f"user {value.id} exists with another email")
        return
    body = msgspec.structs.asdict(value)
    for carried in ("password_hash", "sip_password_sealed", "devices"):
        body.pop(carried)
    plan = accounts.UserPlan(email=value.email, password_hash=value.password_hash or unusable_hash,
                             sip_password_sealed=value.sip_password_sealed or sip(), created_at=value.created_at,
                             is_root=value.is_root, roles=tuple(value.roles),
                             attributes={k: v for k, v in body.items() if k not in _USER_SET_BY_PLAN},
                             sip_clients=value.nb_sip_locations)  # fmt: skip
    yield from accounts.user_created(conn, customer_id, plan, initial=value.is_initial, user_id=value.id)
    if value.devices:
        yield from accounts.devices_remembered(conn, value.id, value.devices)


_USER_SET_BY_PLAN = {"id", "email", "is_root", "is_initial", "roles", "created_at", "customer", "customer_id_id",
                     "nb_sip_locations"}  # fmt: skip
"""User fields the plan sets; `nb_sip_locations` is how many simulated SIP clients register with the user."""


def _token_events(conn: Connection, value: TokenRecord, kind: str, customer_id: int) -> Iterator[NewEvent]:
    """A live API token or key, issued again with its digest: it authenticates as before."""
    if accounts.token_known(conn, value.token_id, value.digest):
        return
    if not reads.owned(conn, "user", [value.user_id], customer_id):
        raise BadRequest.field("user_id", f"user {value.user_id} of customer {customer_id} does not exist")
    grant = {"digest": value.digest, "sealed": value.sealed, "customer_id": customer_id, "kind": kind,
             "expiry": value.expiry, "inactivity": value.inactivity, "api_version": value.api_version,
             "created_at": value.created_at, "issued_epoch": value.issued_epoch, "name": value.name,
             "host": value.host, "user_agent": value.user_agent}  # fmt: skip
    yield from accounts.issue_token(value.token_id, value.user_id, grant)(conn)
    if value.last_epoch is not None and value.last_request_at is not None:
        yield from accounts.touch_token(value.token_id, value.last_request_at, value.last_epoch)(conn)


def _document_event(conn: Connection, resource: Resource, fields: dict, customer_id: int,
                    now: str) -> NewEvent:  # fmt: skip
    fields = dict(fields)
    id_ = fields.pop("id", None) or None
    if resource.text_ids:  # a number: its id is its E.164 with a '+'
        number = fields.get(resource.id_name) or id_
        if not number:
            raise BadRequest.field(resource.id_name, "This field is required.")
        id_ = fields[resource.id_name] = phone.e164(str(number))
        if reads.exists(conn, resource.kind, id_):
            raise BadRequest.field(resource.id_name, f"{id_} is already provisioned")
    elif id_ is None:
        id_ = next_id(conn, resource.kind, resource.first_id)
    elif reads.exists(conn, resource.kind, id_):
        raise BadRequest(f"{resource.path} {id_} already exists")
    lived = store.stream_version(conn, f"{resource.kind}-{id_}")
    if lived and not resource.text_ids:  # a number names one stream across its lives; an id, one record
        raise BadRequest(f"{resource.path} {id_} was deleted here: the id of a deleted record is not used again")
    body = new_document(resource, fields, id_, customer_id, fields.get("created_at") or now)
    made = events_of(resource.kind).made(id_, customer_id, body)
    return NewEvent(stream=f"{resource.kind}-{id_}", event=made, expected_version=lived)
