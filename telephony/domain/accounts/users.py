"""A user of a customer: made, changed, deleted; its password, second-factor challenges and resets."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import Invalid, Unknown
from ..events import Event, NewEvent
from ..events.accounts import (
    USER,
    ChallengeIssued,
    ChallengePassed,
    DeviceAdded,
    PasswordChanged,
    ResetRequested,
    ResetUsed,
    UserCreated,
    UserDeleted,
    UserUpdated,
)
from .customers import Customer, require_customer
from .tokens import revocations

BAD_CODE = "Invalid code and/or nonce"
BAD_RESET = "Invalid or expired reset token"


def user_stream(user_id: int) -> str:
    return f"user-{user_id}"


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


def evolve_user(state: User, event: Event) -> User:
    state = replace(state, version=state.version + 1)
    match event:
        case UserCreated(customer_id=customer_id, body=body):
            return replace(state, customer_id=customer_id, email=body.email.lower())
        case UserDeleted():
            return replace(state, deleted=True)
        case DeviceAdded(device_digest=device):
            return replace(state, devices=state.devices | {device})
        case ChallengeIssued(nonce_digest=nonce):
            challenge = Challenge(event.code_hash, event.expires_at, event.device_digest)
            return replace(state, challenges={**state.challenges, nonce: challenge})
        case ChallengePassed(nonce_digest=nonce):
            passed = replace(state.challenges[nonce], used=True)
            return replace(state, challenges={**state.challenges, nonce: passed})
        case ResetRequested(reset_digest=digest, expires_at=expires_at):
            return replace(state, resets={**state.resets, digest: Reset(expires_at)})
        case ResetUsed(reset_digest=digest):
            return replace(state, resets={**state.resets, digest: replace(state.resets[digest], used=True)})
    return state


def register_user(customer: Customer, user: User, body: Mapping[str, Any], password_hash: str,
                  sip_password_sealed: str, *, email_in_use: bool) -> list[NewEvent]:  # fmt: skip
    """A new user of an existing customer; emails are unique across all customers."""
    require_customer(customer)
    if user.version:
        raise Invalid.field("id", f"User {user.id} exists already")
    if email_in_use:
        raise Invalid.field("email", "This email is already used")
    created = UserCreated(id=user.id, customer_id=customer.id, body=USER.body(body), password_hash=password_hash,
                          sip_password_sealed=sip_password_sealed)  # fmt: skip
    return [NewEvent(stream=user_stream(user.id), event=created, expected_version=0)]


def change_user(user: User, customer_id: int, changes: Mapping[str, Any]) -> list[NewEvent]:
    """Attributes of a user of the customer change."""
    require_user(user, customer_id)
    changed = UserUpdated(id=user.id, changes=dict(changes))
    return [NewEvent(stream=user_stream(user.id), event=changed, expected_version=user.version)]


def remove_user(user: User, customer_id: int, actor_id: int, live_tokens: Iterable[str]) -> list[NewEvent]:
    """A user is deleted by another (a root user cannot delete itself); its live tokens die with it."""
    require_user(user, customer_id)
    if user.id == actor_id:
        raise Invalid("You cannot delete your own user")
    removed = NewEvent(stream=user_stream(user.id), event=UserDeleted(id=user.id), expected_version=user.version)
    return [removed, *revocations(live_tokens, "user_deleted")]


def issue_challenge(user: User, nonce_digest: str, code_hash: str, expires_at: float,
                    device_digest: str | None) -> list[NewEvent]:  # fmt: skip
    """A login code is mailed: the login must be completed with it and its nonce before it expires."""
    require_user(user)
    issued = ChallengeIssued(id=user.id, nonce_digest=nonce_digest, code_hash=code_hash, expires_at=expires_at,
                             device_digest=device_digest)  # fmt: skip
    return [NewEvent(stream=user_stream(user.id), event=issued, expected_version=user.version)]


def pass_challenge(user: User, nonce_digest: str, *, code_matches: bool, now: float,
                   device_digest: str | None, add_device: bool) -> list[NewEvent]:  # fmt: skip
    """The second factor is passed with a right, unused, unexpired code; `add_device` remembers the
    device (the one that logged in, unless another is named) so its next login skips the code."""
    challenge = user.challenges.get(nonce_digest) if user.exists else None
    if challenge is None or challenge.used or challenge.expires_at < now or not code_matches:
        raise Invalid(BAD_CODE)
    stream = user_stream(user.id)
    passed = [NewEvent(stream=stream, event=ChallengePassed(id=user.id, nonce_digest=nonce_digest),
                       expected_version=user.version)]  # fmt: skip
    device = device_digest or challenge.device_digest
    if add_device and device:
        passed.append(NewEvent(stream=stream, event=DeviceAdded(id=user.id, device_digest=device)))
    return passed


def remember_devices(user: User, device_digests: Iterable[str]) -> list[NewEvent]:
    """Devices whose next login skips the code (an import carries what the exporting log remembered)."""
    require_user(user)
    return [NewEvent(stream=user_stream(user.id), event=DeviceAdded(id=user.id, device_digest=digest))
            for digest in device_digests]  # fmt: skip


def request_reset(user: User, reset_digest: str, expires_at: float) -> list[NewEvent]:
    """A single-use reset token is mailed."""
    require_user(user)
    requested = ResetRequested(id=user.id, reset_digest=reset_digest, expires_at=expires_at)
    return [NewEvent(stream=user_stream(user.id), event=requested, expected_version=user.version)]


def complete_reset(user: User, reset_digest: str, password_hash: str, now: float,
                   live_tokens: Iterable[str]) -> list[NewEvent]:  # fmt: skip
    """A password is reset with an unused, unexpired token; every token and API key of the user dies."""
    reset = user.resets.get(reset_digest) if user.exists else None
    if reset is None or reset.used or reset.expires_at < now:
        raise Invalid.field("token", BAD_RESET)
    stream = user_stream(user.id)
    return [
        NewEvent(stream=stream, event=ResetUsed(id=user.id, reset_digest=reset_digest), expected_version=user.version),
        NewEvent(stream=stream, event=PasswordChanged(id=user.id, password_hash=password_hash)),
        *revocations(live_tokens, "password_reset"),
    ]


def require_user(user: User, customer_id: int | None = None) -> None:
    if not user.exists or (customer_id is not None and user.customer_id != customer_id):
        raise Unknown(f"User {user.id} not found")
