"""Waiting for an event of the server's log, as its event stream sends them.

`GET /_telephony/events/stream` sends each call, SMS and webhook-delivery event as server-sent
events: `id:` the log position, `event:` the webhook event name (`call.hangup`) or the log's type,
`data:` the webhook body (or the event's data). Read from the start (`Last-Event-ID: 0`), so an
event recorded before the wait began counts too. Standard library only, as `client` is.
"""

from __future__ import annotations

import fnmatch
import json
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

from .client import CONTROL_HEADER
from .sse import Event, Reader

STREAM = "/_telephony/events/stream"


def events(url: str, control_key: str, timeout: float, after: int = 0) -> Iterator[Event]:
    """The stream's messages after position `after`, as they come, for about `timeout` seconds of
    real time (TimeoutError then: the stream's heartbeats let the wait end while nothing happens)."""
    deadline = time.monotonic() + timeout
    headers = {CONTROL_HEADER: control_key, "Last-Event-ID": str(after), "Accept": "text/event-stream"}
    request = urllib.request.Request(url.rstrip("/") + STREAM, headers=headers)  # noqa: S310
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
        reader = Reader()
        for raw in response:
            if time.monotonic() > deadline:
                raise TimeoutError
            if (event := reader.line(raw)) is not None:
                yield event


def wait_for(url: str, control_key: str, name: str, timeout: float = 10.0, **match: Any) -> dict[str, Any]:
    """The data of the first event named `name` (a pattern: `call.*`) whose data holds every field of
    `match`; AssertionError, naming what came, when none does within `timeout` seconds: each event
    with its `call_id` and the fields `match` names, as it had them."""
    seen = []
    try:
        for event in events(url, control_key, timeout):
            data = json.loads(event.data)
            if fnmatch.fnmatchcase(event.name, name) and all(data.get(k) == v for k, v in match.items()):
                return dict(data)
            seen.append(event.name + _fields(data, ("call_id", *match)))
    except TimeoutError:
        pass
    wanted = name + "".join(f" {k}={v!r}" for k, v in match.items())
    raise AssertionError(f"no event {wanted} within {timeout} s (the stream sent: {', '.join(seen) or 'nothing'})")


def _fields(data: Any, names: tuple[str, ...]) -> str:
    """` call_id=7 src='+44...'`: the fields of `names` an event's data has, each once."""
    held = data if isinstance(data, dict) else {}
    return "".join(f" {key}={held[key]!r}" for key in dict.fromkeys(names) if key in held)
