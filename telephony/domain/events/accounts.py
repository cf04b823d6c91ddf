"""The events of accounts: customers, users and their credentials, tokens, SIP clients.

Streams: `customer-<id>`, `user-<id>` (the user's record, its credentials, login challenges and
resets), `token-<id>` (login tokens, API tokens and API keys alike) and `sip-<user id>` (the user's
registered SIP clients). No secret is stored in plain text: passwords as hashes, codes and tokens as
digests, a SIP password or an API key sealed with the data dir's key.
"""

from __future__ import annotations

from typing import ClassVar

from ..schemas import User
from .base import Event
from .resources import ResourceCreated, resource_events


class CustomerCreated(Event, frozen=True, kw_only=True, tag="customer.created"):
    """A customer account is opened."""

    id: int
    """The customer's id."""
    name: str
    """The customer's name."""
    created_at: str
    """Wire time (`YYYY-MM-DD HH:MM:SS`, UTC)."""


class CustomerDeleted(Event, frozen=True, kw_only=True, tag="customer.deleted"):
    """A customer is closed: every record of it goes, every token of its users dies."""

    id: int
    """The customer's id."""


class UserCreated(ResourceCreated, frozen=True, kw_only=True, tag="user.created"):
    """A user of a customer is made: its record and its credentials."""

    kind: ClassVar[str] = "user"
    body: User
    """The user's record, as the API shows it."""
    password_hash: str
    """The password's hash (scrypt)."""
    sip_password_sealed: str | None
    """The SIP password, sealed with the data dir's key."""


USER = resource_events("user", User, created=UserCreated)
UserUpdated, UserDeleted = USER.updated, USER.deleted


class PasswordChanged(Event, frozen=True, kw_only=True, tag="user.password_changed"):
    id: int
    """The user's id."""
    password_hash: str
    """The new password's hash (scrypt)."""


class DeviceAdded(Event, frozen=True, kw_only=True, tag="user.device_added"):
    """A device whose next login skips the second factor."""

    id: int
    """The user's id."""
    device_digest: str
    """The SHA-256 of the device's fingerprint."""


class ChallengeIssued(Event, frozen=True, kw_only=True, tag="user.challenge_issued"):
    """A login code is mailed: the login completes with it and its nonce before it expires."""

    id: int
    """The user's id."""
    nonce_digest: str
    """The SHA-256 of the nonce the login completes with."""
    code_hash: str
    """The hash of the code mailed."""
    expires_at: float
    """When the code expires (clock time, epoch seconds)."""
    device_digest: str | None
    """The device to remember when the code is given (`add_device`), by its digest."""


class ChallengePassed(Event, frozen=True, kw_only=True, tag="user.challenge_passed"):
    id: int
    """The user's id."""
    nonce_digest: str
    """The SHA-256 of the challenge's nonce."""


class ResetRequested(Event, frozen=True, kw_only=True, tag="user.reset_requested"):
    """A single-use password reset token is mailed."""

    id: int
    """The user's id."""
    reset_digest: str
    """The SHA-256 of the reset token mailed."""
    expires_at: float
    """When the token expires (clock time, epoch seconds)."""


class ResetUsed(Event, frozen=True, kw_only=True, tag="user.reset_used"):
    id: int
    """The user's id."""
    reset_digest: str
    """The SHA-256 of the reset token used."""


class TokenIssued(Event, frozen=True, kw_only=True, tag="token.issued"):
    """A login token, API token (`apitoken`) or API key (`apikey`) of a user."""

    token_id: str
    """The token's id (its stream is `token-<id>`)."""
    digest: str
    """The SHA-256 of the token: what authenticates a request."""
    sealed: str | None
    """The token itself, sealed (API keys, which the dashboard shows again)."""
    customer_id: int
    """The customer of its user."""
    kind: str
    """`login`, `apitoken` or `apikey`."""
    expiry: int
    """Seconds it lives from its issue (0: for ever)."""
    inactivity: int
    """Seconds it lives unused (0: for ever)."""
    api_version: str | None
    """The API version it was issued on (`v1.1`, `v1.2`)."""
    created_at: str
    """When it was issued (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    issued_epoch: float
    """When it was issued (clock time, epoch seconds)."""
    name: str | None
    """An API token's or key's name."""
    host: str | None
    """The host the request that made it came from."""
    user_agent: str | None
    """The user agent of the request that made it."""
    user_id: int
    """The user it authenticates as."""


class TokenTouched(Event, frozen=True, kw_only=True, tag="token.touched"):
    """A token was used (heard of at most once a minute)."""

    token_id: str
    """The token's id."""
    at: str
    """When it was used (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    epoch: float
    """When it was used (clock time, epoch seconds)."""


class TokenRevoked(Event, frozen=True, kw_only=True, tag="token.revoked"):
    token_id: str
    """The token's id."""
    reason: str
    """`logout`, `deleted`, `expired`, `user_deleted`, `customer_deleted`, `password_reset`, ..."""


class SipRegistered(Event, frozen=True, kw_only=True, tag="sip.registered"):
    """A SIP client of a user registers."""

    user_id: int
    """The user the client registers for."""
    customer_id: int
    """The user's customer."""
    registration_id: int
    """The registration's id, one of the user's (never given twice)."""
    user_agent: str
    """The client's user agent."""
    contact: str
    """The client's SIP contact (`sip:<user>@<host>:<port>`)."""
    registered_at: str
    """When it registered (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    locations: int
    """The user's registrations after this one."""


class SipUnregistered(Event, frozen=True, kw_only=True, tag="sip.unregistered"):
    user_id: int
    """The user the client was registered for."""
    customer_id: int
    """The user's customer."""
    registration_id: int
    """The registration that went."""
    locations: int
    """The user's registrations after this one went."""


ACCOUNT_EVENTS = (CustomerCreated, CustomerDeleted, PasswordChanged, DeviceAdded, ChallengeIssued, ChallengePassed,
                  ResetRequested, ResetUsed, TokenIssued, TokenTouched, TokenRevoked, SipRegistered,
                  SipUnregistered)  # fmt: skip
"""The accounts' own events (a user's record events are `USER`'s)."""
