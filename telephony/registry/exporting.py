"""Export: every live record as import lines (`transfer`), so an import elsewhere answers the same.

Customers, then users with their credentials (password hash, sealed SIP password, remembered
devices), their live API tokens and API keys (digest and sealed copy), uploaded files, every
registry collection by id (the records a derived kind is drawn from together, in the order it drew
them: an import draws it again in that order), then the highest id of each kind. What an export
leaves out, and why, is in `docs/import-export.md`.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator

import msgspec

from .. import accounts
from ..documents import reads
from ..eventlog.connection import Connection
from ..projections import blobs, sequences
from .catalogue import RESOURCES
from .transfer import ID_KINDS, TOKEN_KINDS

_encode = msgspec.json.encode
_RESOURCE_OF_KIND = {kind: resource for resource, kind in TOKEN_KINDS.items()}


def _line(resource: str, customer_id: int, data: object) -> bytes:
    return _encode({"resource": resource, "customer_id": customer_id, "data": data})


def export(conn: Connection) -> Iterator[bytes]:
    """Every live record as an import line, in an order an import can apply."""
    for id_, name, created_at in accounts.live_customers(conn):
        yield _line("customers", id_, {"id": id_, "name": name, "created_at": created_at})
    for customer_id, body, password_hash, sip_sealed, devices in accounts.live_users(conn):
        credentials = {"password_hash": password_hash, "sip_password_sealed": sip_sealed,
                       "devices": msgspec.json.decode(devices)}  # fmt: skip
        yield _line("users", customer_id, {**msgspec.json.decode(body), **credentials})
    for customer_id, token in accounts.live_named_tokens(conn):
        yield _line(_RESOURCE_OF_KIND[token.pop("kind")], customer_id, token)
    for sha, media_type, content in blobs.every(conn):
        yield _line("blobs", 0, {"sha256": sha, "media_type": media_type, "base64": base64.b64encode(content).decode()})
    prefixes = {r.kind: b'{"resource":' + _encode(r.path) + b',"customer_id":' for r in RESOURCES}
    drawn = {kind: derived for derived in RESOURCES for kind in derived.drawn_from}
    listed: set[str] = set()
    for resource in RESOURCES:
        if resource.derived or resource.kind in listed:
            continue
        derived = drawn.get(resource.kind)
        if derived is None:
            rows: Iterator[tuple[str, int, str]] = ((resource.kind, *row) for row in reads.every(conn, resource.kind))
            listed.add(resource.kind)
        else:  # the records a derived kind is drawn from, together, in the order it drew them
            rows = reads.in_order_drawn(conn, derived.kind, derived.drawn_from)
            listed.update(derived.drawn_from)
        for kind, customer_id, body in rows:
            yield prefixes[kind] + str(customer_id).encode() + b',"data":' + body.encode() + b"}"
    for kind, last in sequences.highest(conn):
        if kind in ID_KINDS:
            yield _line("sequences", 0, {"kind": kind, "last": last})
