"""What the pytest plugin's fixtures hand a test: the server, a customer of it, its clock.

Each speaks HTTP to the server, as the test's own code does: the operator's endpoints with the
control key, the API with the customer's credentials. A request answered otherwise than 2xx raises
`HttpError`, whose `answer` holds the status and the platform's error body.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ..clock import wire_time
from .client import CONTROL_HEADER, Http, api_path

PASSWORD = "telephony-test-password"


@dataclass
class TelephonyServer:
    """A server running in-process for one test: its base `url`, its `control_key`, its fresh
    `data_dir`, the `seed` its simulator and secrets draw from."""

    url: str
    control_key: str
    data_dir: Path
    seed: int
    service: str = "voipstudio"
    _customers: itertools.count = field(default_factory=lambda: itertools.count(1), repr=False)

    @property
    def base_urls(self) -> dict[str, str]:
        """The API's base URL of each version: what an integrator's client is pointed at."""
        return {version: self.url + api_path("", version, self.service) for version in ("v1.1", "v1.2")}

    @functools.cached_property
    def control(self) -> Http:
        """The operator's endpoints (`/_telephony/...`), with the control key."""
        return Http(self.url, {CONTROL_HEADER: self.control_key})

    def operator(self, method: str, path: str, body: Any = None) -> Any:
        """An operator request (`/customers` is `/_telephony/customers`) that must succeed; its body."""
        return self.control.request(method, "/_telephony" + path, body)

    def customer(self, name: str | None = None) -> TelephonyCustomer:
        """A new customer with its root user, logged in (v1.2), and an API key of that user."""
        n = next(self._customers)
        email = f"root.{n}@customer{n}.test"
        opened = self.operator("POST", "/customers", {"name": name or f"Customer {n}", "admin_email": email,
                                                      "admin_password": PASSWORD})["data"]  # fmt: skip
        user_id = opened["user"]["id"]
        login = Http(self.url).request("POST", api_path("/login", service=self.service),
                                       {"email": email, "password": PASSWORD})  # fmt: skip
        key = self.operator("POST", f"/users/{user_id}/apikeys", {"name": "tests"})["data"]["key"]
        return TelephonyCustomer(self, opened["customer"]["id"], opened["customer"]["name"], user_id, email, PASSWORD,
                                 login["user_token"], key)  # fmt: skip


@dataclass
class TelephonyCustomer:
    """A customer of the server: its root user (`user_id`, `email`, `password`), that user's login
    `token` and an `api_key` (either goes in `X-Auth-Token`)."""

    server: TelephonyServer
    id: int
    name: str
    user_id: int
    email: str
    password: str
    token: str
    api_key: str

    @property
    def headers(self) -> dict[str, str]:
        """The headers that authenticate as the root user: `X-Auth-Token` with the API key."""
        return {"X-Auth-Token": self.api_key}

    def api(self, method: str, path: str, body: Any = None, *, version: str = "v1.2") -> Any:
        """A request of the API (`/cdrs`) as the root user, that must succeed; its body."""
        return Http(self.server.url, self.headers).request(method, api_path(path, version, self.server.service), body)

    def add_user(self, email: str | None = None, password: str = PASSWORD, **attributes: Any) -> dict:
        """A user of the customer with any User attribute (`ext`, `dnd`, `vm_to_email`, ...)."""
        email = email or f"user.{next(self.server._customers)}@customer{self.id}.test"
        body = {"email": email, "password": password, **attributes}
        return dict(self.server.operator("POST", f"/customers/{self.id}/users", body)["data"])

    def add_number(self, e164: str, **settings: Any) -> dict:
        """A number of the customer (`target_type`, `target_id`, `sms_enabled`, ...)."""
        return dict(self.server.operator("POST", f"/customers/{self.id}/ddis", {"e164": e164, **settings})["data"])


@dataclass
class TelephonyClock:
    """The server's controllable clock. It stands still until moved; a move runs everything that fell
    due on the way, each at its own time, and returns once what follows the log has caught up."""

    server: TelephonyServer

    def now(self) -> datetime:
        return _moment(self.server.operator("GET", "/clock"))

    def advance(self, seconds: float | timedelta) -> datetime:
        """Move the clock forward by `seconds`; the time it shows then."""
        seconds = seconds.total_seconds() if isinstance(seconds, timedelta) else seconds
        return _moment(self.server.operator("POST", "/clock", {"advance": seconds, "settle": True}))

    def set(self, moment: datetime | str) -> datetime:
        """Move the clock forward to `moment` (a datetime, UTC when naive, or `YYYY-MM-DD HH:MM:SS`)."""
        text = moment if isinstance(moment, str) else wire_time(moment.replace(tzinfo=moment.tzinfo or UTC))
        return _moment(self.server.operator("POST", "/clock", {"set": text, "settle": True}))


def _moment(answer: dict) -> datetime:
    return datetime.fromtimestamp(answer["data"]["epoch"], UTC)
