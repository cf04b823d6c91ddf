"""The messages of a `text/event-stream` body, as the event stream sends them: `id:` (a log
position), `event:` and `data:` lines, a blank line ending each; comments (`: heartbeat`) skipped.

`Reader` takes the body a line at a time, so the listener (aiohttp, async) and `wait_for_event`
(standard library, sync) read it alike.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Event:
    """One message of the stream: its log position, which of that position's messages it is, its name
    and data (JSON text)."""

    position: int
    index: int
    name: str
    data: str

    @property
    def webhook_id(self) -> str:
        """The body's `id` (a webhook event's), else `evt_<position>_<index>`."""
        with contextlib.suppress(ValueError, AttributeError):
            found = json.loads(self.data).get("id")
            if isinstance(found, str):
                return found
        return f"evt_{self.position}_{self.index}"


class Reader:
    """Reads a stream's lines in order: `line` answers the message a line completes, else None."""

    def __init__(self) -> None:
        self._name, self._data = "message", list[str]()
        self._position: int | None = None
        self._last: int | None = None
        self._index = 0

    def line(self, raw: bytes) -> Event | None:
        line = raw.decode().rstrip("\r\n")
        if line.startswith(":"):
            return None
        if line:
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "data":
                self._data.append(value)
            elif field == "event":
                self._name = value
            elif field == "id" and value.isdecimal():
                self._position = int(value)
            return None
        event = None
        if self._data and self._position is not None:
            self._index = self._index + 1 if self._position == self._last else 0
            event = Event(self._position, self._index, self._name, "\n".join(self._data))
            self._last = self._position
        self._name, self._data = "message", []
        return event
