"""Decisions about accounts, run inside the writer's transaction: state in, events out.

Slow work (password hashing, sealing) is done before, by the caller; these functions only read the
projections through `conn`, check the rules and return events.
"""

from __future__ import annotations

import secrets
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from ..api.errors import BadRequest, NotFound
from ..eventlog import NO_STREAM, NewEvent
from ..projections.sequences import next_id
from . import events as ev
from .models import User

FIRST_USER_ID = 1_000_001
FIRST_CUSTOMER_ID = 100_001


@dataclass(frozen=True)
class UserPlan:
    """A user to create, its secrets already hashed or sealed."""

    email: str
    password_hash: str
    sip_password_sealed: str
    created_at: str
    is_root: bool = False
    roles: tuple[str, ...] = ()
    attributes: dict[str, Any] = field(default_factory=dict)


def _email_taken(conn: sqlite3.Connection, email: str) -> bool:
    return conn.execute("SELECT 1 FROM credentials WHERE email = ?", (email.lower(),)).fetchone() is not None


def customer_exists(conn: sqlite3.Connection, customer_id: int) -> bool:
    row = conn.execute("SELECT 1 FROM customers WHERE id = ? AND deleted = 0", (customer_id,)).fetchone()
    return row is not None


def user_created(
    conn: sqlite3.Connection, customer_id: int, plan: UserPlan, *, initial: bool = False, user_id: int | None = None
) -> NewEvent:
    if _email_taken(conn, plan.email):
        raise BadRequest.field("email", "This email is already used")
    user_id = user_id or next_id(conn, "user", FIRST_USER_ID)
    body = User(
        **plan.attributes,
        id=user_id,
        email=plan.email,
        is_root=plan.is_root,
        is_initial=initial,
        roles=list(plan.roles),
        created_at=plan.created_at,
        customer=customer_id,
        customer_id_id=customer_id,
    )
    data = {"id": user_id, "customer_id": customer_id, "body": body,
            "password_hash": plan.password_hash, "sip_password_sealed": plan.sip_password_sealed}  # fmt: skip
    return NewEvent(stream=f"user-{user_id}", type=ev.USER_CREATED, data=data, expected_version=NO_STREAM)


def create_customer(name: str, admin: UserPlan):
    def decide(conn: sqlite3.Connection) -> list[NewEvent]:
        customer_id = next_id(conn, "customer", FIRST_CUSTOMER_ID)
        created = NewEvent(
            stream=f"customer-{customer_id}", type=ev.CUSTOMER_CREATED, expected_version=NO_STREAM,
            data={"id": customer_id, "name": name, "created_at": admin.created_at},
        )  # fmt: skip
        return [created, user_created(conn, customer_id, admin, initial=True)]

    return decide


def create_user(customer_id: int, plan: UserPlan):
    def decide(conn: sqlite3.Connection) -> list[NewEvent]:
        if not customer_exists(conn, customer_id):
            raise NotFound(f"Customer {customer_id} not found")
        return [user_created(conn, customer_id, plan)]

    return decide


def live_tokens(conn: sqlite3.Connection, user_id: int | None = None, customer_id: int | None = None) -> list[str]:
    column, value = ("user_id", user_id) if user_id is not None else ("customer_id", customer_id)
    return [r[0] for r in conn.execute(f"SELECT token_id FROM tokens WHERE {column} = ? AND revoked IS NULL", (value,))]


def revocations(token_ids: list[str], reason: str) -> list[NewEvent]:
    return [NewEvent(stream=f"token-{t}", type=ev.TOKEN_REVOKED, data={"token_id": t, "reason": reason})
            for t in token_ids]  # fmt: skip


@dataclass(frozen=True)
class TokenPlan:
    digest: str
    sealed: str | None
    user_id: int
    customer_id: int
    kind: str
    expiry: int
    inactivity: int
    api_version: str | None
    created_at: str
    issued_epoch: float
    name: str | None = None
    host: str | None = None
    user_agent: str | None = None


def token_issued(plan: TokenPlan) -> NewEvent:
    token_id = secrets.token_hex(8)
    data = {"token_id": token_id, **plan.__dict__}
    return NewEvent(stream=f"token-{token_id}", type=ev.TOKEN_ISSUED, data=data, expected_version=NO_STREAM)


def issue_api_token(plan: TokenPlan):
    """A named API token; names are unique among the user's live tokens."""

    def decide(conn: sqlite3.Connection) -> list[NewEvent]:
        clash = conn.execute(
            "SELECT 1 FROM tokens WHERE user_id = ? AND kind = ? AND name = ? AND revoked IS NULL",
            (plan.user_id, plan.kind, plan.name),
        ).fetchone()
        if clash:
            raise BadRequest.field("name", "This name is already used")
        return [token_issued(plan)]

    return decide
