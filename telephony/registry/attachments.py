"""Audio files uploaded in a body field (base64): checked, stored once, described on the record."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from ..domain.media import MEDIA_TYPES, decode_audio
from ..eventlog import NewEvent
from ..eventlog.connection import Connection
from ..projections.blobs import sha256_of, store_once
from .resource import Resource

Store = Callable[[Connection], list[NewEvent]]


def _nothing(_conn: Connection) -> list[NewEvent]:
    return []


def attached(resource: Resource, body: msgspec.Struct) -> tuple[dict[str, Any], Store]:
    """The record fields describing the uploaded file, and the decision that stores it."""
    raw = getattr(body, resource.attachment, None) if resource.attachment else None
    if not isinstance(raw, str):
        return {}, _nothing
    data, kind = decode_audio(raw)  # already checked by the resource's validator
    fields = {"format": kind, "size": len(data), "sha256": sha256_of(data)}
    return fields, lambda conn: store_once(conn, data, MEDIA_TYPES[kind])


def after_storing(store: Store, decide: Callable[[Connection], Iterable[NewEvent]]) -> Store:
    """The decision `decide`, run in the same transaction after `store` has stored the uploaded file."""
    return lambda conn: [*store(conn), *decide(conn)]
