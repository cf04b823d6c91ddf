"""The demo's own client of the server: the operator's endpoints with the control key, the API with the
demo's API token, over HTTP like any integrator's program.

Each request carries an `X-Request-Id` of the demo's own numbering (`<prefix>-<n>`), which the event
log keeps in its metadata: with the rest of the history drawn from the seed, two demos of one seed
write the same log.
"""

from __future__ import annotations

import itertools
from typing import Any

import aiohttp

SERVICE_VERSION = "v1.2"


class DemoError(RuntimeError):
    """The server refused a request of the demo: its method, path, status and answer."""


class Operator:
    """Requests to one server: `control(...)` under `/_telephony`, `api(...)` under `/v1.2/<service>`."""

    def __init__(self, session: aiohttp.ClientSession, base: str, service: str, control_key: str,
                 prefix: str) -> None:  # fmt: skip
        self._session, self._base, self._api = session, base.rstrip("/"), f"/{SERVICE_VERSION}/{service}"
        self._control_key, self._prefix, self._ids = control_key, prefix, itertools.count(1)
        self.token: str | None = None

    async def control(self, method: str, path: str, body: Any = None) -> Any:
        return await self._request(method, "/_telephony" + path, body, {"X-Control-Key": self._control_key})

    async def api(self, method: str, path: str, body: Any = None) -> Any:
        return await self._request(method, self._api + path, body, {"X-Auth-Token": self.token or ""})

    async def _request(self, method: str, path: str, body: Any, headers: dict[str, str]) -> Any:
        headers = {**headers, "X-Request-Id": f"{self._prefix}-{next(self._ids)}"}
        async with self._session.request(method, self._base + path, json=body, headers=headers) as response:
            answer = await response.json(content_type=None) if response.status != 204 else None
            if response.status >= 400:
                raise DemoError(f"{method} {path}: {response.status} {answer}")
            return answer
