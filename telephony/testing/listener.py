"""The listener behind `telephony listen`: follows a server's event stream and forwards each event,
signed as a webhook is, to a local URL, one after another, resuming where it stopped.

Where it stands is a place in the stream (`Place`): every message before a position, and the first
`sent` messages of it (an event may make two: a missed call's end). With a URL to forward to, the
place is saved in a small JSON file (with the signing secret it drew) after each delivery, and the
stream is followed again after that place: after the listener's restart, or after the stream broke
(the server restarted). A first run starts at the server's head. A POST that gets no 2xx is tried
again after 1 s, 2, 4 ... 30 s, for as long as it takes; `stop` lets a POST under way finish (and be
saved), then ends the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from ..domain.webhooks import new_secret, sign
from .sse import Event, Reader

STREAM, HEALTH = "/_telephony/events/stream", "/_telephony/health"
POST_SECONDS = 10.0
QUIET_SECONDS = 75.0
"""A stream silent this long (no event, no heartbeat) is followed again."""
LONGEST_WAIT = 30.0
USER_AGENT = "telephony-listen/1.0"


class Refused(Exception):
    """The server refused the stream (a bad key, a bad request: a 4xx): listening cannot go on. A 5xx
    is a broken stream, followed again later."""


async def events(content: aiohttp.StreamReader) -> AsyncIterator[Event]:
    """The messages of a `text/event-stream` body as they arrive."""
    reader = Reader()
    async for raw in content:
        if (event := reader.line(raw)) is not None:
            yield event


@dataclass(frozen=True)
class Place:
    """Every message before `position` is done, and the first `sent` messages of it."""

    position: int
    sent: int = 0

    def done(self, event: Event) -> bool:
        return event.position < self.position or (event.position == self.position and event.index < self.sent)

    def after(self, event: Event) -> Place:
        return Place(event.position, event.index + 1)


class State:
    """The place and the signing secret, kept in a JSON file (0600: it holds the secret)."""

    def __init__(self, path: Path | None, secret: str | None) -> None:
        self.path = path
        kept = json.loads(path.read_text()) if path is not None and path.exists() else {}
        self.place = Place(kept["position"], kept["sent"]) if "position" in kept else None
        self.secret = secret or kept.get("secret") or new_secret(secrets.token_bytes(32))
        self._keep_secret = secret is None

    def save(self, place: Place) -> None:
        self.place = place
        if self.path is None:
            return
        kept: dict[str, object] = {"position": place.position, "sent": place.sent}
        if self._keep_secret:
            kept["secret"] = self.secret
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fresh = self.path.with_name(self.path.name + ".new")
        fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(json.dumps(kept))
        os.replace(fresh, self.path)


Report = Callable[[Event, str], None]
"""Told each event and what became of it (the forward's status, or "" when nothing is forwarded)."""


class Listener:
    def __init__(self, server: str, key: str, state: State, *, forward_to: str | None = None,
                 names: str | None = None, say: Callable[[str], None] = print, report: Report | None = None
                 ) -> None:  # fmt: skip
        self._server = server.rstrip("/")
        self._key = key
        self._state = state
        self._forward_to = forward_to
        self._names = names
        self._say = say
        self._report = report or (lambda event, outcome: None)
        self._posting = False
        self._task: asyncio.Task | None = None
        self.stopping = False

    def stop(self) -> None:
        """End the run: at once, or once the POST under way has an answer (a delivery is saved)."""
        self.stopping = True
        if self._posting:
            self._say("Stopping once the delivery under way is answered.")
        elif self._task is not None:
            self._task.cancel()

    async def run(self) -> None:
        """Follow the stream until stopped; `Refused` when the server will not have it."""
        self._task = asyncio.current_task()
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=POST_SECONDS, sock_read=QUIET_SECONDS)
        with contextlib.suppress(asyncio.CancelledError):
            async with aiohttp.ClientSession(timeout=timeout, read_bufsize=2**20) as session:
                await self._follow(session)

    async def _follow(self, session: aiohttp.ClientSession) -> None:
        wait, said = 1.0, False
        while not self.stopping:
            try:
                place = self._state.place or await self._start(session)
                params = {"events": self._names} if self._names else None
                async with session.get(self._server + STREAM, headers=self._headers(place), params=params) as response:
                    if response.status == 400 and "Last-Event-ID" in await response.text():
                        self._say(f"The server's log ends before position {place.position}: another log; "
                                  "listening from its end.")  # fmt: skip
                        self._state.place = None
                        continue
                    if response.status >= 500:
                        raise aiohttp.ClientResponseError(response.request_info, (), status=response.status)
                    if response.status != 200:
                        raise Refused(f"the server answered {response.status}: {await response.text()}")
                    self._say(self._ready(place, again=said))
                    said = True
                    wait = 1.0
                    async for event in events(response.content):
                        if not place.done(event):
                            moved = await self._handle(session, event, place)
                            if moved is None:
                                return
                            place = moved
                        if self.stopping:
                            return
                    self._say(f"The server ended the stream (it stops); following it again in {wait:g} s.")
            except (aiohttp.ClientError, TimeoutError) as exc:
                why = f"the server answered {exc.status}" if isinstance(exc, aiohttp.ClientResponseError) else (
                    type(exc).__name__)  # fmt: skip
                self._say(f"The stream broke ({why}); following it again in {wait:g} s.")
            await asyncio.sleep(wait)
            wait = min(LONGEST_WAIT, wait * 2)

    async def _start(self, session: aiohttp.ClientSession) -> Place:
        """A first run's place, saved: the server's head (open `health` tells it)."""
        async with session.get(self._server + HEALTH) as response:
            place = Place(int((await response.json())["position"]) + 1)
        self._state.save(place)
        return place

    def _headers(self, place: Place) -> dict[str, str]:
        return {"X-Control-Key": self._key, "Last-Event-ID": str(place.position - 1), "User-Agent": USER_AGENT}

    def _ready(self, place: Place, again: bool) -> str:
        where = f"from position {place.position}" + (f" (its message {place.sent + 1} on)" if place.sent else "")
        if again:
            return f"Following the stream again {where}."
        if self._forward_to is None:
            return f"Ready: listening to {self._server} {where}."
        return (f"Ready: forwarding the events of {self._server} to {self._forward_to} {where}; "
                f"the webhook signing secret is {self._state.secret}")  # fmt: skip

    async def _handle(self, session: aiohttp.ClientSession, event: Event, place: Place) -> Place | None:
        """Forward (when asked) and report an event: the place after it, saved; None when stopped first."""
        outcome = ""
        if self._forward_to is not None:
            status = await self._forward(session, event)
            if status is None:
                return None  # not delivered: the next run sends it
            outcome = str(status)
        self._state.save(place.after(event))
        self._report(event, outcome)
        return place.after(event)

    async def _forward(self, session: aiohttp.ClientSession, event: Event) -> int | None:
        """POST the event until a 2xx answers (its status); None when stopped first."""
        assert self._forward_to is not None
        body, wait = event.data.encode(), 1.0
        while True:
            stamp = int(time.time())  # transport: real time, as a webhook's
            headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT, "telephony-event": event.name,
                       "webhook-id": event.webhook_id, "webhook-timestamp": str(stamp),
                       "webhook-signature": sign(self._state.secret, event.webhook_id, stamp, body)}  # fmt: skip
            self._posting = True
            try:
                async with session.post(self._forward_to, data=body, headers=headers, allow_redirects=False,
                                        timeout=aiohttp.ClientTimeout(total=POST_SECONDS)) as response:  # fmt: skip
                    status, said = response.status, str(response.status)
            except (aiohttp.ClientError, TimeoutError) as exc:
                status, said = None, type(exc).__name__
            finally:
                self._posting = False
            if status is not None and 200 <= status < 300:
                return status
            if self.stopping:
                return None
            self._report(event, f"{said}, again in {wait:g} s")
            await asyncio.sleep(wait)
            wait = min(LONGEST_WAIT, wait * 2)
