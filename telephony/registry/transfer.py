"""The import and export format, JSON lines, and what each line must hold.

One record a line: `{"resource": R, "customer_id": N, "data": {...}}`. R is a registry collection
(`contacts`, `cdrs`, `queues`, ...), whose data is checked as the API checks that resource (see
`records`), or a kind beside the registry:

    customers            {id, name, created_at}
    users                a User, with `password_hash`, `sip_password_sealed` and `devices` (digests)
    apitokens, apikeys   a live API token or key: its digest (which authenticates it), its sealed
                         copy (which the API shows again), name, lifetimes, times of issue and last use
    blobs                an uploaded file by content: {sha256, media_type, base64}, customer_id 0
    sequences            the highest id a kind ever had: {kind, last}, customer_id 0 (so the ids of
                         records deleted before the export are not handed out again)

Secrets travel as the log keeps them: password hashes, token digests, and copies sealed under the
exporting data dir's key (`secret.key`); never in plain text, never with the key. `parse` opens
each sealed copy with the keys it is given and seals it again under the importing data dir's key.
A bad line is reported by its number; nothing is applied unless every line is good.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Annotated, Any

import msgspec

from ..accounts import User
from ..api.errors import BadRequest, FieldError
from ..api.wire import INT64, validation_error
from ..clock import LATEST
from ..domain import acl
from ..domain.bodies import read
from ..domain.dictionaries import RESOURCE_DICTIONARIES
from ..domain.media import MEDIA_TYPES, sniff_audio
from ..domain.types import Email, NonNegative, PositiveId, WireTime
from ..projections.blobs import sha256_of
from ..security import Resealer, is_password_hash
from .catalogue import BY_PATH, RESOURCES
from .import_checks import code_problems, decode_checked, document_fields, time_problems

MAX_REPORTED = 20
Digest = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]
Epoch = Annotated[float, msgspec.Meta(ge=0, le=LATEST)]
TOKEN_KINDS = {"apitokens": "apitoken", "apikeys": "apikey"}
ID_KINDS = frozenset({"customer", "user", *(r.kind for r in RESOURCES if not r.text_ids and not r.one_per_customer)})
UNOPENED = ("This secret is sealed under another data dir's key: give that key to the import "
            "(telephony import --seal-key <exporting data dir>/secret.key).")  # fmt: skip


class Line(msgspec.Struct):
    resource: str
    customer_id: Annotated[int, msgspec.Meta(ge=0, le=INT64[1])]
    data: msgspec.Raw


class CustomerRecord(msgspec.Struct, kw_only=True):
    id: Annotated[int, msgspec.Meta(ge=1, le=INT64[1])]
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
    created_at: str = ""


class UserRecord(User, kw_only=True):
    password_hash: str | None = None
    sip_password_sealed: str | None = None
    devices: list[Digest] = []


class _UserIdentity(msgspec.Struct):
    """The checks a new user's email and id get from the API."""

    id: Annotated[int, msgspec.Meta(ge=1, le=INT64[1])]
    email: Email


class TokenRecord(msgspec.Struct, kw_only=True):
    """A live API token or API key, as the tokens projection holds it."""

    token_id: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{16}$")]
    user_id: PositiveId
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
    digest: Digest
    sealed: str
    expiry: Annotated[int, msgspec.Meta(ge=0, le=INT64[1])] = 0
    inactivity: NonNegative = 0
    api_version: Annotated[str, msgspec.Meta(max_length=16)] | None = None
    host: Annotated[str, msgspec.Meta(max_length=255)] | None = None
    user_agent: Annotated[str, msgspec.Meta(max_length=1024)] | None = None
    created_at: WireTime
    issued_epoch: Epoch
    last_request_at: WireTime | None = None
    last_epoch: Epoch | None = None


class SequenceRecord(msgspec.Struct, kw_only=True):
    kind: str
    last: Annotated[int, msgspec.Meta(ge=0, le=INT64[1])]


class BlobRecord(msgspec.Struct, kw_only=True):
    """An uploaded file (a voicemail announcement's audio), by content."""

    sha256: Digest
    media_type: str
    base64: str


@dataclass(frozen=True)
class Record:
    number: int
    resource: str
    customer_id: int
    value: Any
    """The checked record: a registry document's fields (dict), or one of the records above."""


_line = msgspec.json.Decoder(Line)


def parse(lines: Iterable[bytes], resealer: Resealer) -> Iterator[Record | FieldError]:
    """Each non-blank line as a checked record, or the problem with it (its field names the line)."""
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            line = _decode_line(raw)
            value = _checked(line, resealer)
        except BadRequest as exc:
            yield FieldError(f"line {number}", f"line {number}: {exc.message}")
            continue
        except RecursionError:
            yield FieldError(f"line {number}", f"line {number}: the record is nested too deeply")
            continue
        yield Record(number, line.resource, line.customer_id, value)


def check(lines: Iterable[bytes], resealer: Resealer, progress: Callable[[int], object] | None = None) -> int:
    """Check every line; raise a 400 naming the bad lines, else return how many records there are."""
    problems: list[FieldError] = []
    count = 0
    for item in parse(lines, resealer):
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


def _decode_line(raw: bytes) -> Line:
    try:
        return _line.decode(raw)
    except msgspec.ValidationError as exc:
        raise validation_error(exc) from None
    except msgspec.DecodeError as exc:
        raise BadRequest(f"not a JSON record: {exc}") from None


def _checked(line: Line, resealer: Resealer) -> Any:
    if line.resource in BY_PATH:
        if BY_PATH[line.resource].derived:
            raise BadRequest.field("resource", f"'{line.resource}' is drawn from other records, never imported")
        return document_fields(BY_PATH[line.resource], line.data)
    if line.resource == "customers":
        customer = decode_checked(line.data, CustomerRecord)
        if problems := time_problems(msgspec.to_builtins(customer), ["created_at"]):
            raise BadRequest.of(problems)
        return customer
    if line.resource == "users":
        return _checked_user(line.data, resealer)
    if line.resource in TOKEN_KINDS:
        token = decode_checked(line.data, TokenRecord)
        return msgspec.structs.replace(token, sealed=_resealed(resealer, "sealed", token.sealed))
    if line.resource == "blobs":
        return _checked_blob(decode_checked(line.data, BlobRecord))
    if line.resource == "sequences":
        sequence = decode_checked(line.data, SequenceRecord)
        if sequence.kind not in ID_KINDS:
            raise BadRequest.field("kind", f"unknown kind {sequence.kind!r}")
        return sequence
    raise BadRequest.field("resource", f"unknown resource '{line.resource}'")


def _checked_user(raw: bytes | msgspec.Raw, resealer: Resealer) -> UserRecord:
    user = decode_checked(raw, UserRecord)
    problems = read({"id": user.id, "email": user.email}, _UserIdentity)[1]
    fields = msgspec.to_builtins(user)
    problems += time_problems(fields, ["created_at"]) + code_problems(fields, RESOURCE_DICTIONARIES["users"])
    roles = []
    for role in user.roles:
        try:
            roles.append(acl.role_name(role))
        except ValueError as exc:
            problems.append(("roles", str(exc)))
    if user.password_hash is not None and not is_password_hash(user.password_hash):
        problems.append(("password_hash", "This is not a password hash this server can check."))
    if problems:
        raise BadRequest.of(problems)
    sip = user.sip_password_sealed
    checked = msgspec.convert({k: v for k, v in fields.items() if k != "roles"}, UserRecord)
    return msgspec.structs.replace(checked, roles=roles,
                                   sip_password_sealed=_resealed(resealer, "sip_password_sealed", sip))  # fmt: skip


def _resealed(resealer: Resealer, field: str, sealed: str | None) -> str | None:
    if sealed is None:
        return None
    try:
        return resealer.reseal(sealed)
    except ValueError:
        raise BadRequest.field(field, UNOPENED) from None


def _checked_blob(blob: BlobRecord) -> tuple[bytes, str]:
    try:
        data = base64.b64decode(blob.base64, validate=True)
    except (binascii.Error, ValueError):
        raise BadRequest.field("base64", "This is not valid base64.") from None
    if sha256_of(data) != blob.sha256:
        raise BadRequest.field("sha256", "The file's bytes do not have this SHA-256.")
    found = sniff_audio(data)
    if found is None or MEDIA_TYPES[found] != blob.media_type:
        raise BadRequest.field("media_type", f"The file is not {blob.media_type} audio.")
    return data, blob.media_type
