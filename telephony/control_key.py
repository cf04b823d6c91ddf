"""The operator key that guards `/_telephony/` control endpoints.

Set `[control] key` to choose it. Left empty, a random key is made at first start, printed once,
and only its SHA-256 digest is kept in the data dir (mode 0600): the key itself is stored nowhere.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import sys
from pathlib import Path

from .datadir import DataDirUnusable

DIGEST_FILE = "control-key.sha256"


def digest(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest()


def ensure(data_dir: Path, configured: str, *, announce=None) -> bytes:
    """The digest of the control key in force, generating and announcing one if none exists."""
    if configured:
        return digest(configured)
    path = data_dir / DIGEST_FILE
    if path.exists():
        return _stored(path)
    key = secrets.token_hex(20)
    data_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(digest(key).hex() + "\n")
    (announce or _print)(key)
    return digest(key)


def _stored(path: Path) -> bytes:
    """The digest kept in `path`; DataDirUnusable when it cannot be read or is not a SHA-256 digest."""
    try:
        stored = bytes.fromhex(path.read_text().strip())
    except OSError as exc:
        raise DataDirUnusable(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError:
        stored = b""
    if len(stored) != hashlib.sha256().digest_size:
        raise DataDirUnusable(f"{path} is not a SHA-256 digest (64 hexadecimal digits): restore it from a "
                              "backup, set [control] key, or delete it to have a new key made")  # fmt: skip
    return stored


def matches(presented: str | None, expected_digest: bytes) -> bool:
    """Constant-time comparison of a presented key with the stored digest."""
    return presented is not None and hmac.compare_digest(digest(presented), expected_digest)


def _print(key: str) -> None:
    print(f"Generated control key (shown once, keep it): {key}", file=sys.stderr, flush=True)
