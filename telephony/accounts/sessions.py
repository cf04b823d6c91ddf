"""The session index: live tokens and who their users are, for cheap authentication.

An in-memory projection folded from the token, user and customer events, so a request
authenticates with one hash and two dictionary lookups. Precise activity times are request
hygiene, not state of record: `Activity` keeps them apart, and they reach the log as
`token.touched` events at most once a `TOUCH_EVERY` seconds per token.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..domain.events.accounts import (
    CustomerDeleted,
    TokenIssued,
    TokenRevoked,
    TokenTouched,
    UserCreated,
    UserDeleted,
    UserUpdated,
)
from ..eventlog import RecordedEvent
from ..projections.memory import MemoryProjection

TOUCH_EVERY = 60.0


@dataclass
class Session:
    token_id: str
    digest: str
    user_id: int
    customer_id: int
    kind: str
    expiry: int
    inactivity: int
    issued: float
    touched: float
    """When the log last heard of the token's use (its issue, or its last `token.touched`)."""

    def expires_at(self, last_seen: float = 0.0) -> float | None:
        """When the token expires if it is not used again (None: never)."""
        moments = []
        if self.expiry:
            moments.append(self.issued + self.expiry)
        if self.inactivity:
            moments.append(max(last_seen, self.touched) + self.inactivity)
        return min(moments) if moments else None

    def expired(self, now: float, last_seen: float = 0.0) -> bool:
        expires = self.expires_at(last_seen)
        return expires is not None and now >= expires


@dataclass
class Account:
    customer_id: int
    is_root: bool
    roles: tuple[str, ...]
    active: bool


class SessionIndex(MemoryProjection):
    name = "sessions"
    handles = frozenset({TokenIssued, TokenTouched, TokenRevoked, UserCreated, UserUpdated, UserDeleted,
                         CustomerDeleted})  # fmt: skip
    kept_as = tuple[list[Session], list[tuple[int, Account]]]

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.by_digest: dict[str, Session] = {}
        self.by_id: dict[str, Session] = {}
        self.accounts: dict[int, Account] = {}

    def state(self) -> tuple:
        return sorted(self.by_id.items()), sorted(self.accounts.items())

    def snapshot(self) -> tuple:
        return list(self.by_id.values()), list(self.accounts.items())

    def restore(self, kept: tuple) -> None:
        sessions, accounts = kept
        self.by_id = {session.token_id: session for session in sessions}
        self.by_digest = {session.digest: session for session in sessions}
        self.accounts = dict(accounts)

    def apply(self, event: RecordedEvent) -> None:
        match event.event:
            case TokenIssued() as t:
                session = Session(t.token_id, t.digest, t.user_id, t.customer_id, t.kind, t.expiry, t.inactivity,
                                  t.issued_epoch, t.issued_epoch)  # fmt: skip
                self.by_digest[session.digest] = session
                self.by_id[session.token_id] = session
            case TokenTouched(token_id=token_id, epoch=epoch):
                if (touched := self.by_id.get(token_id)) is not None:
                    touched.touched = epoch
            case TokenRevoked(token_id=token_id):
                if (revoked := self.by_id.pop(token_id, None)) is not None:
                    self.by_digest.pop(revoked.digest, None)
            case UserCreated(body=b):
                self.accounts[b.id] = Account(b.customer_id_id, b.is_root, tuple(b.roles), b.active)
            case UserUpdated(id=user_id, changes=changes) if isinstance(user_id, int):
                if (account := self.accounts.get(user_id)) is not None:
                    account.is_root = bool(changes.get("is_root", account.is_root))
                    account.roles = tuple(changes.get("roles", account.roles) or ())
                    account.active = changes.get("active", account.active)
            case UserDeleted(id=user_id) if isinstance(user_id, int):
                self.accounts.pop(user_id, None)
            case CustomerDeleted(id=customer_id):
                for user_id in [u for u, a in self.accounts.items() if a.customer_id == customer_id]:
                    del self.accounts[user_id]


class Activity:
    """When each token was last used, to the second, in this process; the log hears of it less often."""

    def __init__(self) -> None:
        self.last_seen: dict[str, float] = {}
        self._told: dict[str, float] = {}

    def seen(self, session: Session, now: float) -> bool:
        """Note a use; True when the log should hear of it (`token.touched`), once per `TOUCH_EVERY`."""
        self.last_seen[session.token_id] = now
        if now - max(session.touched, self._told.get(session.token_id, 0.0)) < TOUCH_EVERY:
            return False
        self._told[session.token_id] = now
        return True

    def last_request(self, session: Session) -> float | None:
        seen = self.last_seen.get(session.token_id, session.touched)
        return seen if seen > session.issued else None
