"""The in-memory index of live tokens and of who their users are, for cheap authentication.

It is a projection kept in memory: loaded from the `tokens`, `credentials` and `doc_user` tables at
start and kept current by the writer's commit listener, so a request authenticates with one hash
and two dictionary lookups. Activity times are tracked here precisely; they reach the log as
`token.touched` events at most once a `TOUCH_EVERY` seconds per token.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import msgspec

from ..eventlog import RecordedEvent
from . import events as ev

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
    last_seen: float
    last_persisted: float

    def expired(self, now: float) -> bool:
        if self.expiry and now >= self.issued + self.expiry:
            return True
        return bool(self.inactivity) and now >= self.last_seen + self.inactivity


@dataclass
class Account:
    customer_id: int
    is_root: bool
    roles: tuple[str, ...]
    active: bool


class SessionIndex:
    def __init__(self) -> None:
        self.by_digest: dict[str, Session] = {}
        self.by_id: dict[str, Session] = {}
        self.accounts: dict[int, Account] = {}

    def load(self, conn: sqlite3.Connection) -> None:
        for row in conn.execute(
            "SELECT token_id, digest, user_id, customer_id, kind, expiry, inactivity, issued_epoch, "
            "coalesce(last_epoch, issued_epoch) FROM tokens WHERE revoked IS NULL"
        ):
            token_id, digest, user_id, customer_id, kind, expiry, inactivity, issued, last = row
            self._add(Session(token_id, digest, user_id, customer_id, kind, expiry, inactivity, issued, last, last))
        for (body,) in conn.execute(
            "SELECT d.body FROM doc_user d JOIN credentials c ON c.user_id = d.id WHERE c.deleted = 0"
        ):
            self._account(msgspec.json.decode(body))

    def _add(self, session: Session) -> None:
        self.by_digest[session.digest] = session
        self.by_id[session.token_id] = session

    def _drop(self, token_id: str) -> None:
        session = self.by_id.pop(token_id, None)
        if session is not None:
            self.by_digest.pop(session.digest, None)

    def _account(self, body: dict) -> None:
        self.accounts[body["id"]] = Account(
            body["customer_id_id"], bool(body.get("is_root")), tuple(body.get("roles") or ()), body.get("active", True)
        )

    def on_events(self, events: list[RecordedEvent]) -> None:
        """The commit listener: keep the index equal to the projections."""
        for event in events:
            d = event.data
            if event.type == ev.TOKEN_ISSUED:
                issued = d["issued_epoch"]
                self._add(Session(d["token_id"], d["digest"], d["user_id"], d["customer_id"], d["kind"],
                                  d["expiry"], d["inactivity"], issued, issued, issued))  # fmt: skip
            elif event.type == ev.TOKEN_TOUCHED and d["token_id"] in self.by_id:
                self.by_id[d["token_id"]].last_persisted = d["epoch"]
            elif event.type == ev.TOKEN_REVOKED:
                self._drop(d["token_id"])
            elif event.type == ev.USER_CREATED:
                self._account(msgspec.to_builtins(d["body"]))
            elif event.type == ev.USER_UPDATED and d["id"] in self.accounts:
                account, changes = self.accounts[d["id"]], d["changes"]
                account.is_root = bool(changes.get("is_root", account.is_root))
                account.roles = tuple(changes.get("roles", account.roles) or ())
                account.active = changes.get("active", account.active)
            elif event.type == ev.USER_DELETED:
                self.accounts.pop(d["id"], None)
            elif event.type == ev.CUSTOMER_DELETED:
                for user_id in [u for u, a in self.accounts.items() if a.customer_id == d["id"]]:
                    del self.accounts[user_id]

    def expired(self, now: float) -> list[Session]:
        return [s for s in self.by_id.values() if s.expired(now)]
