"""What a scenario run knows as it goes: the server's clients, the names it made, its calls' legs.

Everything is asked of the server over HTTP, as an integrator's program would: the operator's
endpoints with the control key, the API with the API key of the user a step acts as.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ...domain.scenario_file import bare
from ..client import Answer, Http, HttpError, api_path
from .loading import Lines, line_of

_NAMED = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_.-]*)\}")
LIMIT = "?limit=5000&sort=id&dir=ASC"


class Unrunnable(Exception):
    """The scenario cannot run as written (a name nothing has, a setup the server refused): exit 2."""


@dataclass
class Run:
    """One run of a scenario on a server: `control` speaks for the operator, `keys` holds each user's
    API key by name (the customer's root user under ""), `made` what each name stands for."""

    control: Http
    service: str
    source: str
    lines: Lines
    customer_id: int = 0
    root_id: int = 0
    keys: dict[str, str] = field(default_factory=dict)
    made: dict[str, Any] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)

    def where(self, path: str) -> str:
        """`FILE:LINE` of a value of the file."""
        return f"{self.source}:{line_of(path, self.lines)}"

    def api(self, as_: str | None = None) -> Http:
        """The API as the user named `as_` (the root user by default)."""
        user = bare(as_ or "")
        if user not in self.keys:
            raise Unrunnable(f"no user is named {user}")
        return self.control.with_headers({"X-Auth-Token": self.keys[user]})

    def send(self, method: str, path: str, body: Any = None, as_: str | None = None) -> Answer:
        """A request of the API (`/calls`) as a user, or of the operator (`/_telephony/...`), which also
        carries the user's token (a customer's own routes there, its webhooks, need it)."""
        if path.startswith("/_telephony/"):
            return self.api(as_).send(method, path, body, self.control.headers)
        return self.api(as_).send(method, api_path(path, service=self.service), body)

    def get(self, path: str, as_: str | None = None) -> Any:
        answer = self.send("GET", path, as_=as_)
        if not answer.ok:
            raise HttpError("GET", path, answer)
        return answer.body

    def resolve(self, value: Any, path: str) -> Any:
        """`value` with each `${name}` replaced by what the name stands for: a whole `${name}` by the
        value itself (an id stays a number), inside a text by its text."""
        if isinstance(value, str):
            whole = _NAMED.fullmatch(value)
            if whole:
                return self.named(whole.group(1), path)
            return _NAMED.sub(lambda found: str(self.named(found.group(1), path)), value)
        if isinstance(value, dict):
            return {str(self.resolve(k, path)): self.resolve(v, f"{path}.{k}") for k, v in value.items()}
        if isinstance(value, list):
            return [self.resolve(item, f"{path}[{n}]") for n, item in enumerate(value)]
        return value

    def named(self, name: str, path: str) -> Any:
        name = bare(name)
        if name not in self.made:
            raise Unrunnable(f"{self.where(path)}: {path}: nothing is named {name} (yet)")
        return self.made[name]

    def call(self, name: str, path: str) -> int:
        name = bare(name)
        if name not in self.calls:
            raise Unrunnable(f"{self.where(path)}: {path}: no call is named {name} (yet)")
        return self.calls[name]

    def legs(self, call_id: int) -> list[int]:
        """The calls a caller went through from `call_id` on, in order: each leg's child (a transfer, an
        IVR sending the caller on), live or ended."""
        children = {r["parent_id"]: r["id"] for r in self._records("/calls") if r.get("parent_id")}
        children.update({r["parent_live_id"]: r["live_id"] for r in self._records("/cdrs") if r.get("parent_live_id")})
        ids = [call_id]
        while ids[-1] in children and children[ids[-1]] not in ids:
            ids.append(children[ids[-1]])
        return ids

    def records(self, kind: str) -> list[dict]:
        """Every record of a collection of the customer's, in id order."""
        return self._records(f"/{kind}")

    def _records(self, path: str) -> list[dict]:
        return list(self.get(path + LIMIT)["data"])


def sum_of(records: Iterable[dict], key: str) -> float:
    return round(sum(float(r.get(key) or 0) for r in records), 4)
