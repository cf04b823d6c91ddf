"""A token (login token, API token or API key): issued to a live user, touched when used, revoked once."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..errors import Invalid, Unknown
from ..events import Event, NewEvent
from ..events.accounts import TokenIssued, TokenRevoked, TokenTouched

if TYPE_CHECKING:
    from .users import User


def token_stream(token_id: str) -> str:
    return f"token-{token_id}"


@dataclass(frozen=True)
class Token:
    token_id: str
    version: int = 0
    user_id: int = 0
    kind: str = ""
    revoked: str | None = None

    @property
    def live(self) -> bool:
        return self.version > 0 and self.revoked is None


def evolve_token(state: Token, event: Event) -> Token:
    state = replace(state, version=state.version + 1)
    match event:
        case TokenIssued(user_id=user_id, kind=kind):
            return replace(state, user_id=user_id, kind=kind)
        case TokenRevoked(reason=reason):
            return replace(state, revoked=reason)
    return state


def issue_token(token: Token, user: User, grant: Mapping[str, Any], *, name_in_use: bool = False) -> list[NewEvent]:
    """A token for a live user: `grant` holds its digest, kind, lifetimes and the rest of `token.issued`.
    Names of API tokens and keys are unique among the user's live tokens of that kind."""
    if not user.exists:
        raise Unknown(f"User {user.id} not found")
    if token.version:
        raise Invalid.field("token", "This token exists already")
    if name_in_use:
        raise Invalid.field("name", "This name is already used")
    issued = TokenIssued(**{"token_id": token.token_id, **grant, "user_id": user.id})
    return [NewEvent(stream=token_stream(token.token_id), event=issued, expected_version=0)]


def touch_token(token: Token, at: str, epoch: float) -> list[NewEvent]:
    """The token was used: the log hears of it (a revoked token's use is not news)."""
    if not token.live:
        return []
    touched = TokenTouched(token_id=token.token_id, at=at, epoch=epoch)
    return [NewEvent(stream=token_stream(token.token_id), event=touched, expected_version=token.version)]


def revoke_token(token: Token, reason: str) -> list[NewEvent]:
    """The token dies; revoking a dead token changes nothing."""
    if not token.live:
        return []
    revoked = TokenRevoked(token_id=token.token_id, reason=reason)
    return [NewEvent(stream=token_stream(token.token_id), event=revoked, expected_version=token.version)]


def revocations(token_ids: Iterable[str], reason: str) -> list[NewEvent]:
    """Live tokens named by a projection, revoked as a consequence of another change."""
    return [NewEvent(stream=token_stream(t), event=TokenRevoked(token_id=t, reason=reason)) for t in token_ids]
