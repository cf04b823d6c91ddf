"""Answers the accounts handlers build as dicts, described as Structs for the OpenAPI document."""

from __future__ import annotations

import msgspec


class LoginResult(msgspec.Struct, kw_only=True):
    message: str
    user_token: str
    user_id: int


class Challenge(msgspec.Struct, kw_only=True):
    """A second factor is needed: a code was mailed; send it with this nonce to /login2fa."""

    message: str
    nonce: str


class Me(msgspec.Struct, kw_only=True):
    """`GET /me`: the fields it shares with the User model hold what `/users` shows (null when unset)."""

    id: int
    email: str
    first_name: str
    last_name: str
    customer_id: int
    balance: float
    cc: str | None
    cli: str | None
    currency_iso: str
    is_root: bool
    language: str
    sip_domain: str
    sip_password: str | None


class Audio(msgspec.Struct, kw_only=True):
    user_id: int
    vm_announcement_id: int | None
    fm_announcement_id: int | None
