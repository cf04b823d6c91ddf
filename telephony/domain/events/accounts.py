"""The events of accounts: customers, users and their credentials, tokens, SIP clients.

Streams: `customer-<id>`, `user-<id>` (the user's record, its credentials, login challenges and
resets), `token-<id>` (login tokens, API tokens and API keys alike) and `sip-<user id>` (the user's
registered SIP clients). No secret is stored in plain text: passwords as hashes, codes and tokens as
digests, a SIP password or an API key sealed with the data dir's key.
"""

from __future__ import annotations

from typing import ClassVar

from .base import Event
from .resources import ResourceCreated, resource_events


class CustomerCreated(Event, frozen=True, kw_only=True, tag="customer.created"):
    """A customer account is opened."""

    id: int
    name: str
    created_at: str
    """Wire time (`YYYY-MM-DD HH:MM:SS`, UTC)."""


class CustomerDeleted(Event, frozen=True, kw_only=True, tag="customer.deleted"):
    """A customer is closed: every record of it goes, every token of its users dies."""

    id: int


class UserCreated(ResourceCreated, frozen=True, kw_only=True, tag="user.created"):
    """A user of a customer is made: its record and its credentials."""

    kind: ClassVar[str] = "user"
    password_hash: str
    sip_password_sealed: str | None
    """The SIP password, sealed with the data dir's key."""


USER = resource_events("user", created=UserCreated)
UserUpdated, UserDeleted = USER.updated, USER.deleted


class PasswordChanged(Event, frozen=True, kw_only=True, tag="user.password_changed"):
    id: int
    password_hash: str


class DeviceAdded(Event, frozen=True, kw_only=True, tag="user.device_added"):
    """A device whose next login skips the second factor."""

    id: int
    device_digest: str


class ChallengeIssued(Event, frozen=True, kw_only=True, tag="user.challenge_issued"):
    """A login code is mailed: the login completes with it and its nonce before it expires."""

    id: int
    nonce_digest: str
    code_hash: str
    expires_at: float
    device_digest: str | None


class ChallengePassed(Event, frozen=True, kw_only=True, tag="user.challenge_passed"):
    id: int
    nonce_digest: str


class ResetRequested(Event, frozen=True, kw_only=True, tag="user.reset_requested"):
    """A single-use password reset token is mailed."""

    id: int
    reset_digest: str
    expires_at: float


class ResetUsed(Event, frozen=True, kw_only=True, tag="user.reset_used"):
    id: int
    reset_digest: str


class TokenIssued(Event, frozen=True, kw_only=True, tag="token.issued"):
    """A login token, API token (`apitoken`) or API key (`apikey`) of a user."""

    token_id: str
    digest: str
    """The SHA-256 of the token: what authenticates a request."""
    sealed: str | None
    """The token itself, sealed (API keys, which the dashboard shows again)."""
    customer_id: int
    kind: str
    expiry: int
    """Seconds it lives from its issue (0: for ever)."""
    inactivity: int
    """Seconds it lives unused (0: for ever)."""
    api_version: str | None
    created_at: str
    issued_epoch: float
    name: str | None
    host: str | None
    user_agent: str | None
    user_id: int


class TokenTouched(Event, frozen=True, kw_only=True, tag="token.touched"):
    """A token was used (heard of at most once a minute)."""

    token_id: str
    at: str
    epoch: float


class TokenRevoked(Event, frozen=True, kw_only=True, tag="token.revoked"):
    token_id: str
    reason: str
    """`logout`, `deleted`, `expired`, `user_deleted`, `customer_deleted`, `password_reset`, ..."""


class SipRegistered(Event, frozen=True, kw_only=True, tag="sip.registered"):
    """A SIP client of a user registers."""

    user_id: int
    customer_id: int
    registration_id: int
    user_agent: str
    contact: str
    registered_at: str
    locations: int
    """The user's registrations after this one."""


class SipUnregistered(Event, frozen=True, kw_only=True, tag="sip.unregistered"):
    user_id: int
    customer_id: int
    registration_id: int
    locations: int
    """The user's registrations after this one went."""


ACCOUNT_EVENTS = (CustomerCreated, CustomerDeleted, PasswordChanged, DeviceAdded, ChallengeIssued, ChallengePassed,
                  ResetRequested, ResetUsed, TokenIssued, TokenTouched, TokenRevoked, SipRegistered,
                  SipUnregistered)  # fmt: skip
"""The accounts' own events (a user's record events are `USER`'s)."""
