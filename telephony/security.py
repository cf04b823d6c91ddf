"""Secrets: slow salted password hashes, random tokens, digests for lookup, sealing for re-display.

Passwords are kept only as scrypt hashes. Tokens and keys are 40 lowercase hex characters; the log
keeps their SHA-256 digest for lookup, and, for the ones the API must show again (API tokens, API
keys, SIP passwords, mailed codes), a Fernet-sealed copy whose key lives in the data dir (0600): made
with the data dir, and checked at every start against a secret its log holds.
Every comparison of a secret is constant-time.

Salts, tokens, codes, seal keys and the sealing's own randomness are drawn from an `Entropy`: the
system's, unless a reproducible run (a scenario) seeds one, so the same requests write the same log.
A password hashed while the entropy is seeded gets scrypt at a light cost: its salt is as public as
the seed, so a heavy cost would guard nothing, and it would be most of the work of a scenario's run.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import os
import re
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes, padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.hmac import HMAC

from .datadir import DataDirUnusable

SEAL_KEY_FILE = "secret.key"
_SCRYPT = {"n": 2**14, "r": 8, "p": 1}
_SCRYPT_SEEDED = {"n": 2**8, "r": 8, "p": 1}
"""The cost of a hash whose salt a seeded entropy drew (a reproducible run's: see the module's docstring)."""
_PASSWORD_HASH = re.compile(r"scrypt\$([0-9]{1,8})\$([0-9]{1,3})\$([0-9]{1,3})\$((?:[0-9a-f]{2}){8,64})\$[0-9a-f]{64}")
_SCRYPT_MAX_MEMORY = 32 * 1024 * 1024
"""What `hashlib.scrypt` may use by default: a hash needing more could never be checked."""


class Entropy:
    """Where secrets draw their randomness: the system's (`os.urandom`), or, seeded, a stream of
    SHA-256 blocks of the seed and a counter, the same bytes in the same order for the same seed. A
    seeded entropy is for reproducible runs only (a scenario, a test suite's server): whoever knows
    the seed knows every secret drawn from it."""

    def __init__(self, seed: int | None = None) -> None:
        self._seed = seed
        self._blocks = itertools.count()
        self._left = b""
        self._drawing = threading.Lock()
        """A seeded stream is drawn from one thread at a time (an import seals off the event loop)."""

    def bytes(self, n: int) -> bytes:
        if self._seed is None:
            return os.urandom(n)
        with self._drawing:
            while len(self._left) < n:
                self._left += hashlib.sha256(f"{self._seed}:{next(self._blocks)}".encode()).digest()
            drawn, self._left = self._left[:n], self._left[n:]
            return drawn

    @property
    def seeded(self) -> bool:
        """Whether it draws from its seed (a reproducible run), not from the system."""
        return self._seed is not None

    def forget_seed(self) -> None:
        """Draw from the system from now on: a demo's history is seeded, what comes after is not."""
        with self._drawing:
            self._seed, self._left = None, b""

    def token(self) -> str:
        """A token or API key: 40 lowercase hexadecimal characters."""
        return self.bytes(20).hex()

    def digit(self) -> str:
        """One decimal digit, each as likely (a byte drawn again when it would favour low digits)."""
        while (byte := self.bytes(1)[0]) >= 250:
            pass
        return str(byte % 10)


SYSTEM = Entropy()
"""The system's randomness: it holds no state, so one serves everyone."""


def hash_password(password: str, salt: bytes | None = None, *, seeded: bool = False) -> str:
    """The scrypt hash of `password` with `salt` (16 bytes; drawn from the system when not given), at
    the light cost when the salt came from a `seeded` entropy."""
    salt = os.urandom(16) if salt is None else salt
    cost = _SCRYPT_SEEDED if seeded else _SCRYPT
    digest = hashlib.scrypt(password.encode(), salt=salt, dklen=32, **cost)
    return f"scrypt${cost['n']}${cost['r']}${cost['p']}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str | None) -> bool:
    """Constant-time check; a missing hash still costs one scrypt so timing reveals nothing."""
    if not stored:
        hash_password(password)
        return False
    _, n, r, p, salt, expected = stored.split("$")
    digest = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), dklen=32, n=int(n), r=int(r), p=int(p))
    return hmac.compare_digest(digest, bytes.fromhex(expected))


def is_password_hash(text: str) -> bool:
    """Whether `text` is a hash `check_password` can check: scrypt with a power-of-two cost that fits
    in scrypt's default memory limit, a salt, and a 32-byte digest."""
    match = _PASSWORD_HASH.fullmatch(text)
    if match is None:
        return False
    n, r, p = (int(group) for group in match.groups()[:3])
    return n >= 2 and n & (n - 1) == 0 and r >= 1 and 1 <= p <= 16 and 128 * n * r <= _SCRYPT_MAX_MEMORY // 2


def new_token(entropy: Entropy = SYSTEM) -> str:
    """A token or API key: 40 lowercase hexadecimal characters."""
    return entropy.token()


def new_code(digits: int = 6, entropy: Entropy = SYSTEM) -> str:
    return "".join(entropy.digit() for _ in range(digits))


def digest(secret: str) -> str:
    """The lookup key of a token, key or code: its SHA-256, hex."""
    return hashlib.sha256(secret.encode()).hexdigest()


class SealKeyError(DataDirUnusable):
    """The data dir's `secret.key` is gone, unreadable, or not the key its log's secrets are sealed with."""


class Sealer:
    """Encrypts secrets that must be shown again, with a key kept in the data dir: Fernet tokens, whose
    initialisation vector is drawn from `entropy` and whose time is `wall`'s (real time, transport
    metadata: nothing reads it back)."""

    def __init__(self, key: bytes, entropy: Entropy = SYSTEM, wall: Callable[[], float] = time.time) -> None:
        self._fernet = Fernet(key)
        raw = base64.urlsafe_b64decode(key)
        self._signing, self._encryption = raw[:16], raw[16:]
        self._entropy = entropy
        self._wall = wall

    @classmethod
    def for_data_dir(cls, data_dir: Path, *, written: bool = False, sealed: str | None = None,
                     entropy: Entropy = SYSTEM, wall: Callable[[], float] = time.time) -> Sealer:  # fmt: skip
        """The sealer of a data dir. Its key is made (from `entropy`) when the data dir's log holds
        nothing yet; once the log is `written`, the key must be there, readable, and open `sealed` (a
        secret the log holds): SealKeyError otherwise, since a new or another key would open none of
        its secrets."""
        path = data_dir / SEAL_KEY_FILE
        if not path.exists():
            if written:
                raise SealKeyError(f"{path} is missing, and this data dir's secrets are sealed with it: restore it "
                                   "from a backup of the data dir (a new key would open none of them)")  # fmt: skip
            data_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as out:
                out.write(base64.urlsafe_b64encode(entropy.bytes(32)))  # what Fernet.generate_key makes
        try:
            sealer = cls(path.read_bytes().strip(), entropy, wall)
        except OSError as exc:
            raise SealKeyError(f"cannot read {path}: {exc.strerror or exc}") from None
        except ValueError:
            raise SealKeyError(f"{path} is not a seal key (32 bytes, URL-safe base64): restore it from a backup "
                               "of this data dir") from None  # fmt: skip
        if sealed is not None and not sealer.opens(sealed):
            raise SealKeyError(f"{path} is not the key this data dir's secrets are sealed with (one copied from "
                               "another data dir?): put this data dir's own secret.key back")  # fmt: skip
        return sealer

    def opens(self, sealed: str) -> bool:
        """Whether `sealed` was sealed with this sealer's key."""
        try:
            self._fernet.decrypt(sealed.encode())
        except InvalidToken:
            return False
        return True

    def seal(self, secret: str) -> str:
        """A Fernet token of `secret` (the specification's layout: version, time, IV, AES-128-CBC of the
        padded secret, HMAC-SHA256 of all that), built here so that its IV comes from the entropy."""
        padder = padding.PKCS7(algorithms.AES.block_size).padder()
        padded = padder.update(secret.encode()) + padder.finalize()
        iv = self._entropy.bytes(16)
        encryptor = Cipher(algorithms.AES(self._encryption), modes.CBC(iv)).encryptor()
        parts = b"\x80" + int(self._wall()).to_bytes(8, "big") + iv + encryptor.update(padded) + encryptor.finalize()
        mac = HMAC(self._signing, hashes.SHA256())
        mac.update(parts)
        return base64.urlsafe_b64encode(parts + mac.finalize()).decode()

    def unseal(self, sealed: str) -> str:
        try:
            return self._fernet.decrypt(sealed.encode()).decode()
        except InvalidToken as exc:
            raise ValueError("sealed secret cannot be opened with this data dir's key") from exc


class Resealer:
    """Secrets sealed under another data dir's key (an export's), sealed again under this one's.

    A sealed secret that this data dir's key opens is kept as it is; otherwise each of the other keys
    is tried, and the secret is sealed anew with this data dir's key. ValueError if none opens it.
    """

    def __init__(self, own: Sealer, others: Sequence[Sealer] = ()) -> None:
        self._own = own
        self._others = list(others)

    def reseal(self, sealed: str) -> str:
        try:
            self._own.unseal(sealed)
        except ValueError:
            pass
        else:
            return sealed
        for other in self._others:
            try:
                return self._own.seal(other.unseal(sealed))
            except ValueError:
                continue
        raise ValueError("sealed under a key this import was not given")
