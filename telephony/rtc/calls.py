"""The media calls of this process: a session per INVITE to a phone, up to `[sip] max_media_calls`.

`offer` opens a session for a call's INVITE and gives the sip room its handle (`Leg`); above the
limit, or when the offer cannot be made, it gives None and the INVITE goes out without media, as it
did before media existed (its offer names an address that answers nothing): the call itself is the
engine's and goes on. A leg's `end` closes its session in a task of this room; `close` (at
shutdown) ends every session and waits for them.
"""

from __future__ import annotations

import asyncio
import logging

from ..domain.calls.call import Call
from . import addresses, guard
from .session import MediaSession

log = logging.getLogger(__name__)


class Leg:
    """The handle the sip room holds for one INVITE's media (`sip.media.MediaLeg`)."""

    def __init__(self, room: MediaCalls, session: MediaSession) -> None:
        self._room = room
        self.session = session
        self.sdp = session.sdp

    def usable(self, answer: bytes) -> bool:
        return self.session.usable(answer)

    async def connect(self, answer: bytes) -> None:
        try:
            await self.session.connect(answer)
        except Exception:
            log.exception("call %s: the phone's answer could not be set", self.session.call_id)
            self.end()

    def end(self) -> None:
        self._room.end(self.session)


class MediaCalls:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.sessions: set[MediaSession] = set()
        self._closing: set[asyncio.Task[None]] = set()

    async def offer(self, call: Call, host: str) -> Leg | None:
        """A media session for the INVITE to the phone of the call's `dst` leg, or None (no media)."""
        if len(self.sessions) >= self.limit:
            log.warning("call %s: no media, %s media calls run already ([sip] max_media_calls)", call.id, self.limit)
            return None
        addresses.install()
        guard.install()
        try:
            session = await MediaSession.open(call, host)
        except Exception:
            log.exception("call %s: no media, its offer could not be made", call.id)
            return None
        self.sessions.add(session)
        return Leg(self, session)

    def end(self, session: MediaSession) -> None:
        if session not in self.sessions:
            return
        self.sessions.discard(session)
        task = asyncio.get_running_loop().create_task(session.close(), name=f"media-close-{session.call_id}")
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    @property
    def busy(self) -> int:
        """Sessions open or closing."""
        return len(self.sessions) + len(self._closing)

    async def close(self) -> None:
        for session in list(self.sessions):
            self.end(session)
        await asyncio.gather(*self._closing, return_exceptions=True)
