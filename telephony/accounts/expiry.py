"""Token expiry on clock time: one timer per live token, set at the moment it would expire.

A timer that fires early (the token was used meanwhile) sets itself again for the new moment; one
that finds its token expired records `token.revoked` (reason `expired`). The timers are derived from
the session index at every start and set when a token is issued, so the scheduler keeps nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

from ..reactors.scheduler import Job, Timers
from .sessions import Activity, Session, SessionIndex

Revoke = Callable[[str], Awaitable[object]]


class TokenExpiry:
    def __init__(self, index: SessionIndex, activity: Activity, scheduler: Timers, revoke: Revoke) -> None:
        self._index = index
        self._activity = activity
        self._scheduler = scheduler
        self._revoke = revoke

    def watch(self, token_id: str) -> None:
        """Set the timer of a token (just issued, or found alive by its timer)."""
        session = self._index.by_id.get(token_id)
        if session is not None and (due := self._due(session)) is not None:
            self._scheduler.at(due, _key(token_id), self._job(token_id))

    def timers(self) -> Iterator[tuple[float, str, Job]]:
        """The expiry timer of every live token, derived from the session index at every start."""
        for session in self._index.by_id.values():
            if (due := self._due(session)) is not None:
                yield due, _key(session.token_id), self._job(session.token_id)

    def _due(self, session: Session) -> float | None:
        return session.expires_at(self._activity.last_seen.get(session.token_id, 0.0))

    def _job(self, token_id: str) -> Job:
        async def expire() -> None:
            session = self._index.by_id.get(token_id)
            if session is None:
                return
            due = self._due(session)
            if due is not None and due <= self._scheduler.now():
                await self._revoke(token_id)
            else:
                self.watch(token_id)

        return expire


def _key(token_id: str) -> str:
    return f"token-expiry:{token_id}"
