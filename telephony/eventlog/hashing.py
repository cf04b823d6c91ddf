"""The SHA-256 hash chain over each event's canonical bytes."""

from __future__ import annotations

import hashlib

import msgspec

GENESIS = bytes(32)
_encode = msgspec.json.encode


def canonical_bytes(
    position: int,
    stream: str,
    version: int,
    type_: str,
    schema: int,
    recorded_at: str,
    data: bytes,
    meta: bytes,
) -> bytes:
    """Every stored column of an event, in a fixed order, as bytes."""
    head = _encode((position, stream, version, type_, schema, recorded_at))
    return b"\x1e".join((head, data, meta))


def chain_hash(previous: bytes, canonical: bytes) -> bytes:
    return hashlib.sha256(previous + canonical).digest()


def as_bytes(value: object) -> bytes:
    """A stored column as the bytes it was hashed as (a value edited in as text is hashed as its text)."""
    return bytes(value) if isinstance(value, bytes | bytearray | memoryview) else str(value).encode()
