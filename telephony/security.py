"""Secrets: slow salted password hashes, random tokens, digests for lookup, sealing for re-display.

Passwords are kept only as scrypt hashes. Tokens and keys are 40 lowercase hex characters; the log
keeps their SHA-256 digest for lookup, and, for the ones the API must show again (API tokens, API
keys, SIP passwords, mailed codes), a Fernet-sealed copy whose key lives in the data dir (0600).
Every comparison of a secret is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

SEAL_KEY_FILE = "secret.key"
_SCRYPT = {"n": 2**14, "r": 8, "p": 1}


def hash_password(password: str) -> str:
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, dklen=32, **_SCRYPT)
    return f"scrypt${_SCRYPT['n']}${_SCRYPT['r']}${_SCRYPT['p']}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str | None) -> bool:
    """Constant-time check; a missing hash still costs one scrypt so timing reveals nothing."""
    if not stored:
        hash_password(password)
        return False
    _, n, r, p, salt, expected = stored.split("$")
    digest = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), dklen=32, n=int(n), r=int(r), p=int(p))
    return hmac.compare_digest(digest, bytes.fromhex(expected))


def new_token() -> str:
    """A token or API key: 40 lowercase hexadecimal characters."""
    return secrets.token_hex(20)


def new_code(digits: int = 6) -> str:
    return "".join(secrets.choice("0123456789") for _ in range(digits))


def digest(secret: str) -> str:
    """The lookup key of a token, key or code: its SHA-256, hex."""
    return hashlib.sha256(secret.encode()).hexdigest()


class Sealer:
    """Encrypts secrets that must be shown again, with a key kept in the data dir."""

    def __init__(self, key: bytes) -> None:
        self._fernet = Fernet(key)

    @classmethod
    def for_data_dir(cls, data_dir: Path) -> Sealer:
        path = data_dir / SEAL_KEY_FILE
        if not path.exists():
            data_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as out:
                out.write(Fernet.generate_key())
        return cls(path.read_bytes().strip())

    def seal(self, secret: str) -> str:
        return self._fernet.encrypt(secret.encode()).decode()

    def unseal(self, sealed: str) -> str:
        try:
            return self._fernet.decrypt(sealed.encode()).decode()
        except InvalidToken as exc:
            raise ValueError("sealed secret cannot be opened with this data dir's key") from exc
