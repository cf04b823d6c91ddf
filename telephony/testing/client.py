"""A small synchronous HTTP client of a telephony server, as an integrator's test suite or a scenario
drives it: the API's endpoints with a user's token, the operator's with the control key.

Standard library only, so a test suite that installs telephony needs nothing more. Every request may
carry an `X-Request-Id` of the caller's (`ids`), which the server records in its events' metadata:
a scenario run numbers its requests, so the same run writes the same log.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

CONTROL_HEADER = "X-Control-Key"
SERVICE = "voipstudio"


@dataclass(frozen=True)
class Answer:
    """What the server answered: the status, the decoded JSON body (None when empty; the text when not
    JSON), the headers."""

    status: int
    body: Any
    headers: Mapping[str, str]

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def message(self) -> str:
        """The error body's message and the problems it names (`field: message`), or the body itself."""
        if isinstance(self.body, dict) and "message" in self.body:
            named = [f"{e['field']}: {e['message']}" for e in self.body.get("errors", []) if e.get("field")]
            return self.body["message"] if not named else "; ".join(named)
        return str(self.body)


class HttpError(Exception):
    """The server answered a status the caller did not expect."""

    def __init__(self, method: str, path: str, answer: Answer) -> None:
        super().__init__(f"{method} {path} answered {answer.status}: {answer.message}")
        self.method, self.path, self.answer = method, path, answer


class Http:
    """Requests to `base` (`http://host:port`) with `headers` on each; `ids` numbers them."""

    def __init__(self, base: str, headers: Mapping[str, str] | None = None, *, timeout: float = 60,
                 ids: Iterator[str] | None = None) -> None:  # fmt: skip
        self.base, self.headers, self.timeout, self._ids = base.rstrip("/"), dict(headers or {}), timeout, ids

    def with_headers(self, headers: Mapping[str, str]) -> Http:
        """The same server, its requests numbered by the same `ids`, with other headers."""
        return Http(self.base, {**self.headers, **headers}, timeout=self.timeout, ids=self._ids)

    def send(self, method: str, path: str, body: Any = None, headers: Mapping[str, str] | None = None) -> Answer:
        """One request (`body` sent as JSON); any status is an answer."""
        sent = {**self.headers, **(headers or {})}
        if self._ids is not None:
            sent["X-Request-Id"] = next(self._ids)
        data = None if body is None else json.dumps(body).encode()
        if data is not None:
            sent["Content-Type"] = "application/json"
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=sent)  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                return _answer(response.status, response.read(), response.headers)
        except urllib.error.HTTPError as exc:
            with exc:
                return _answer(exc.code, exc.read(), exc.headers)

    def request(self, method: str, path: str, body: Any = None, headers: Mapping[str, str] | None = None) -> Any:
        """One request that must succeed (2xx); its decoded body. HttpError otherwise."""
        answer = self.send(method, path, body, headers)
        if not answer.ok:
            raise HttpError(method, path, answer)
        return answer.body


def _answer(status: int, raw: bytes, headers: Any) -> Answer:
    """An answer of `status` with the `raw` body and the `headers` (an email message of them, as urllib has)."""
    text = raw.decode(errors="replace")
    try:
        body = json.loads(text) if text else None
    except ValueError:
        body = text
    return Answer(status, body, dict(headers.items()))


def api_path(path: str, version: str = "v1.2", service: str = SERVICE) -> str:
    """An API path (`/calls`) under a version's prefix (`/v1.2/voipstudio/calls`)."""
    return f"/{version}/{service}{path}"
