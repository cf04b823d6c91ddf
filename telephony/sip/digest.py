"""Digest authentication of SIP requests (RFC 3261 section 22, RFC 8760): SHA-256 and MD5, qop=auth.

A connection keeps its own `Nonces`. A challenge offers a fresh nonce twice, for SHA-256 first and
MD5 (browser clients such as SIP.js 0.9.2 know MD5 only). A nonce is good for `lifetime` seconds of
the clock; each use must carry a nonce count (`nc`) above the last one accepted with it (without
qop, a nonce is good once). An unknown, used-up or expired nonce is `STALE` (the client is challenged
again, `stale=true`, which is no failed attempt); a wrong answer is `WRONG`. Answers are compared
in constant time; the password itself is never kept here.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections import OrderedDict
from collections.abc import Callable
from typing import Literal

from sipmessage import AuthChallenge, AuthCredentials, AuthParameters

ALGORITHMS: dict[str, Callable[..., hashlib._Hash]] = {"SHA-256": hashlib.sha256, "MD5": hashlib.md5}
KEPT = 16
"""Outstanding nonces of one connection; issuing more forgets the oldest."""
Verdict = Literal["ok", "stale", "wrong"]


def _hex(algorithm: str, *parts: str) -> str:
    return ALGORITHMS[algorithm](":".join(parts).encode()).hexdigest()


def answer(algorithm: str, username: str, realm: str, password: str, method: str, uri: str, nonce: str,
           nc: str = "", cnonce: str = "", qop: str = "") -> str:  # fmt: skip
    """The `response` a client that knows the password computes (RFC 2617 / 8760)."""
    ha1, ha2 = _hex(algorithm, username, realm, password), _hex(algorithm, method, uri)
    return _hex(algorithm, ha1, nonce, nc, cnonce, qop, ha2) if qop else _hex(algorithm, ha1, nonce, ha2)


class Nonces:
    """The nonces issued on one connection: when each expires, and the last count used with it."""

    def __init__(self, now: Callable[[], float], lifetime: float) -> None:
        self._now = now
        self._lifetime = lifetime
        self._issued: OrderedDict[str, tuple[float, int]] = OrderedDict()

    def challenges(self, realm: str, *, stale: bool = False) -> list[str]:
        """`WWW-Authenticate` values for a fresh nonce: SHA-256, then MD5."""
        nonce = secrets.token_hex(16)
        self._issued[nonce] = (self._now() + self._lifetime, 0)
        while len(self._issued) > KEPT:
            self._issued.popitem(last=False)
        extra = {"stale": "true"} if stale else {}
        return [str(AuthChallenge(scheme="Digest", parameters=AuthParameters(
                    realm=realm, nonce=nonce, algorithm=algorithm, qop="auth", **extra)))
                for algorithm in ALGORITHMS]  # fmt: skip

    def check(self, credentials: AuthCredentials, method: str, password: str, realm: str) -> Verdict:
        """Whether `credentials` answer a live nonce of this connection for `password`; the nonce's count
        moves on only when they do."""
        given = credentials.parameters
        if given is None or credentials.scheme.lower() != "digest":
            return "wrong"
        algorithm, nonce, qop = given.get("algorithm", "MD5"), given.get("nonce", ""), given.get("qop", "")
        if algorithm not in ALGORITHMS or qop not in ("", "auth") or given.get("realm") != realm:
            return "wrong"
        issued = self._issued.get(nonce)
        count = _count(given.get("nc", "")) if qop else 1
        if issued is None or issued[0] < self._now() or count is None or count <= issued[1]:
            return "stale"
        expected = answer(algorithm, given.get("username", ""), realm, password, method, given.get("uri", ""),
                          nonce, given.get("nc", ""), given.get("cnonce", ""), qop)  # fmt: skip
        if not hmac.compare_digest(expected.encode(), given.get("response", "").lower().encode()):
            return "wrong"
        self._issued[nonce] = (issued[0], count) if qop else (0.0, count)
        return "ok"


def _count(nc: str) -> int | None:
    return int(nc, 16) if len(nc) == 8 and all(c in "0123456789abcdefABCDEF" for c in nc) else None
