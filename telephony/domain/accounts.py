"""The rules of accounts (customers, users, tokens) as pure decisions over folded state.

Each aggregate is frozen state folded from its own stream by `evolve_*`. A command is a function
of that state, of the facts across streams it needs (an email in use elsewhere, a token name in
use, the live tokens to revoke) given by the caller, and of ids and times given by the caller too;
it returns the events to record as `Fact`s, or raises a domain error. Nothing here reads a clock,
draws a random id or does I/O, so the tests read: given these events, when this command, then
these events (tests/domain/test_accounts.py).

Stored event tags and data shapes are the log's, never renamed (`customer.created`, ...).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .errors import Invalid, Unknown

CUSTOMER_CREATED, CUSTOMER_DELETED = "customer.created", "customer.deleted"
USER_CREATED, USER_UPDATED, USER_DELETED = "user.created", "user.updated", "user.deleted"
PASSWORD_CHANGED, DEVICE_ADDED = "user.password_changed", "user.device_added"
CHALLENGE_ISSUED, CHALLENGE_PASSED = "user.challenge_issued", "user.challenge_passed"
RESET_REQUESTED, RESET_USED = "user.reset_requested", "user.reset_used"
TOKEN_ISSUED, TOKEN_TOUCHED, TOKEN_REVOKED = "token.issued", "token.touched", "token.revoked"

BAD_CODE = "Invalid code and/or nonce"
BAD_RESET = "Invalid or expired reset token"


@dataclass(frozen=True)
class Fact:
    """An event to record: on `stream`, of `type`, with `data`; `expected` is the version the stream
    must be at (0: it must not exist yet; None: whatever it is)."""

    stream: str
    type: str
    data: dict[str, Any]
    expected: int | None = None


def customer_stream(customer_id: int) -> str:
    return f"customer-{customer_id}"


def user_stream(user_id: int) -> str:
    return f"user-{user_id}"


def token_stream(token_id: str) -> str:
    return f"token-{token_id}"


# --- customers -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Customer:
    id: int
    version: int = 0
    name: str = ""
    deleted: bool = False

    @property
    def exists(self) -> bool:
        return self.version > 0 and not self.deleted


def evolve_customer(state: Customer, type_: str, data: Mapping[str, Any]) -> Customer:
    state = replace(state, version=state.version + 1)
    if type_ == CUSTOMER_CREATED:
        return replace(state, name=data["name"])
    if type_ == CUSTOMER_DELETED:
        return replace(state, deleted=True)
    return state


def open_customer(customer: Customer, name: str, created_at: str) -> list[Fact]:
    """A new customer account; its id must never have been used."""
    if customer.version:
        raise Invalid.field("id", f"Customer {customer.id} exists already")
    data = {"id": customer.id, "name": name, "created_at": created_at}
    return [Fact(customer_stream(customer.id), CUSTOMER_CREATED, data, expected=0)]


def close_customer(customer: Customer, live_tokens: Iterable[str]) -> list[Fact]:
    """The customer is deleted; every live token of its users dies with it."""
    _require_customer(customer)
    closed = Fact(customer_stream(customer.id), CUSTOMER_DELETED, {"id": customer.id}, expected=customer.version)
    return [closed, *revocations(live_tokens, "customer_deleted")]


def _require_customer(customer: Customer) -> None:
    if not customer.exists:
        raise Unknown(f"Customer {customer.id} not found")


# --- users -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Challenge:
    """A login code mailed for a second factor, known by the digest of its nonce."""

    code_hash: str
    expires_at: float
    device_digest: str | None = None
    used: bool = False


@dataclass(frozen=True)
class Reset:
    expires_at: float
    used: bool = False


@dataclass(frozen=True)
class User:
    id: int
    version: int = 0
    customer_id: int = 0
    email: str = ""
    deleted: bool = False
    devices: frozenset[str] = frozenset()
    challenges: Mapping[str, Challenge] = field(default_factory=dict)
    resets: Mapping[str, Reset] = field(default_factory=dict)

    @property
    def exists(self) -> bool:
        return self.version > 0 and not self.deleted

    def belongs_to(self, customer_id: int) -> bool:
        return self.exists and self.customer_id == customer_id


def evolve_user(state: User, type_: str, data: Mapping[str, Any]) -> User:
    state = replace(state, version=state.version + 1)
    if type_ == USER_CREATED:
        return replace(state, customer_id=data["customer_id"], email=data["body"]["email"].lower())
    if type_ == USER_DELETED:
        return replace(state, deleted=True)
    if type_ == DEVICE_ADDED:
        return replace(state, devices=state.devices | {data["device_digest"]})
    if type_ == CHALLENGE_ISSUED:
        challenge = Challenge(data["code_hash"], data["expires_at"], data.get("device_digest"))
        return replace(state, challenges={**state.challenges, data["nonce_digest"]: challenge})
    if type_ == CHALLENGE_PASSED:
        passed = replace(state.challenges[data["nonce_digest"]], used=True)
        return replace(state, challenges={**state.challenges, data["nonce_digest"]: passed})
    if type_ == RESET_REQUESTED:
        return replace(state, resets={**state.resets, data["reset_digest"]: Reset(data["expires_at"])})
    if type_ == RESET_USED:
        used = replace(state.resets[data["reset_digest"]], used=True)
        return replace(state, resets={**state.resets, data["reset_digest"]: used})
    return state


def register_user(customer: Customer, user: User, body: Mapping[str, Any], password_hash: str,
                  sip_password_sealed: str, *, email_in_use: bool) -> list[Fact]:  # fmt: skip
    """A new user of an existing customer; emails are unique across all customers."""
    _require_customer(customer)
    if user.version:
        raise Invalid.field("id", f"User {user.id} exists already")
    if email_in_use:
        raise Invalid.field("email", "This email is already used")
    data = {"id": user.id, "customer_id": customer.id, "body": dict(body), "password_hash": password_hash,
            "sip_password_sealed": sip_password_sealed}  # fmt: skip
    return [Fact(user_stream(user.id), USER_CREATED, data, expected=0)]


def change_user(user: User, customer_id: int, changes: Mapping[str, Any]) -> list[Fact]:
    """Attributes of a user of the customer change."""
    _require_user(user, customer_id)
    return [Fact(user_stream(user.id), USER_UPDATED, {"id": user.id, "changes": dict(changes)}, user.version)]


def remove_user(user: User, customer_id: int, actor_id: int, live_tokens: Iterable[str]) -> list[Fact]:
    """A user is deleted by another (a root user cannot delete itself); its live tokens die with it."""
    _require_user(user, customer_id)
    if user.id == actor_id:
        raise Invalid("You cannot delete your own user")
    removed = Fact(user_stream(user.id), USER_DELETED, {"id": user.id}, expected=user.version)
    return [removed, *revocations(live_tokens, "user_deleted")]


def issue_challenge(user: User, nonce_digest: str, code_hash: str, expires_at: float,
                    device_digest: str | None) -> list[Fact]:  # fmt: skip
    """A login code is mailed: the login must be completed with it and its nonce before it expires."""
    _require_user(user)
    data = {"id": user.id, "nonce_digest": nonce_digest, "code_hash": code_hash, "expires_at": expires_at,
            "device_digest": device_digest}  # fmt: skip
    return [Fact(user_stream(user.id), CHALLENGE_ISSUED, data, expected=user.version)]


def pass_challenge(user: User, nonce_digest: str, *, code_matches: bool, now: float,
                   device_digest: str | None, add_device: bool) -> list[Fact]:  # fmt: skip
    """The second factor is passed with a right, unused, unexpired code; `add_device` remembers the
    device (the one that logged in, unless another is named) so its next login skips the code."""
    challenge = user.challenges.get(nonce_digest) if user.exists else None
    if challenge is None or challenge.used or challenge.expires_at < now or not code_matches:
        raise Invalid(BAD_CODE)
    stream = user_stream(user.id)
    facts = [Fact(stream, CHALLENGE_PASSED, {"id": user.id, "nonce_digest": nonce_digest}, expected=user.version)]
    device = device_digest or challenge.device_digest
    if add_device and device:
        facts.append(Fact(stream, DEVICE_ADDED, {"id": user.id, "device_digest": device}))
    return facts


def remember_devices(user: User, device_digests: Iterable[str]) -> list[Fact]:
    """Devices whose next login skips the code (an import carries what the exporting log remembered)."""
    _require_user(user)
    return [Fact(user_stream(user.id), DEVICE_ADDED, {"id": user.id, "device_digest": digest})
            for digest in device_digests]  # fmt: skip


def request_reset(user: User, reset_digest: str, expires_at: float) -> list[Fact]:
    """A single-use reset token is mailed."""
    _require_user(user)
    data = {"id": user.id, "reset_digest": reset_digest, "expires_at": expires_at}
    return [Fact(user_stream(user.id), RESET_REQUESTED, data, expected=user.version)]


def complete_reset(user: User, reset_digest: str, password_hash: str, now: float,
                   live_tokens: Iterable[str]) -> list[Fact]:  # fmt: skip
    """A password is reset with an unused, unexpired token; every token and API key of the user dies."""
    reset = user.resets.get(reset_digest) if user.exists else None
    if reset is None or reset.used or reset.expires_at < now:
        raise Invalid.field("token", BAD_RESET)
    stream = user_stream(user.id)
    return [
        Fact(stream, RESET_USED, {"id": user.id, "reset_digest": reset_digest}, expected=user.version),
        Fact(stream, PASSWORD_CHANGED, {"id": user.id, "password_hash": password_hash}),
        *revocations(live_tokens, "password_reset"),
    ]


def _require_user(user: User, customer_id: int | None = None) -> None:
    if not user.exists or (customer_id is not None and user.customer_id != customer_id):
        raise Unknown(f"User {user.id} not found")


# --- tokens ----------------------------------------------------------------------------------------


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


def evolve_token(state: Token, type_: str, data: Mapping[str, Any]) -> Token:
    state = replace(state, version=state.version + 1)
    if type_ == TOKEN_ISSUED:
        return replace(state, user_id=data["user_id"], kind=data["kind"])
    if type_ == TOKEN_REVOKED:
        return replace(state, revoked=data["reason"])
    return state


def issue_token(token: Token, user: User, grant: Mapping[str, Any], *, name_in_use: bool = False) -> list[Fact]:
    """A token for a live user: `grant` holds its digest, kind, lifetimes and the rest of `token.issued`.
    Names of API tokens and keys are unique among the user's live tokens of that kind."""
    _require_user(user)
    if token.version:
        raise Invalid.field("token", "This token exists already")
    if name_in_use:
        raise Invalid.field("name", "This name is already used")
    data = {"token_id": token.token_id, **grant, "user_id": user.id}
    return [Fact(token_stream(token.token_id), TOKEN_ISSUED, data, expected=0)]


def touch_token(token: Token, at: str, epoch: float) -> list[Fact]:
    """The token was used: the log hears of it (a revoked token's use is not news)."""
    if not token.live:
        return []
    data = {"token_id": token.token_id, "at": at, "epoch": epoch}
    return [Fact(token_stream(token.token_id), TOKEN_TOUCHED, data, expected=token.version)]


def revoke_token(token: Token, reason: str) -> list[Fact]:
    """The token dies; revoking a dead token changes nothing."""
    if not token.live:
        return []
    return [Fact(token_stream(token.token_id), TOKEN_REVOKED, {"token_id": token.token_id, "reason": reason},
                 expected=token.version)]  # fmt: skip


def revocations(token_ids: Iterable[str], reason: str) -> list[Fact]:
    """Live tokens named by a projection, revoked as a consequence of another change."""
    return [Fact(token_stream(t), TOKEN_REVOKED, {"token_id": t, "reason": reason}) for t in token_ids]


# --- folding ---------------------------------------------------------------------------------------


def fold(evolve, state, events: Sequence[tuple[str, Mapping[str, Any]]]):
    """The state after `events` (type, data pairs), from `state`."""
    for type_, data in events:
        state = evolve(state, type_, data)
    return state
