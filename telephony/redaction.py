"""Masks secret-bearing fields (hashes, sealed tokens) when events are shown to a person."""

from __future__ import annotations

from typing import Any

MASK = "[redacted]"
SECRET_SUFFIXES = ("_hash", "_sealed", "_digest")
SECRET_NAMES = frozenset({"password", "token", "api_key", "secret", "code", "sip_password", "digest", "sealed"})


def is_secret(name: str) -> bool:
    return name in SECRET_NAMES or name.endswith(SECRET_SUFFIXES)


def redact(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: MASK if is_secret(k) and v is not None else redact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    return value
