"""What the accounts' read models answer to handlers, on the read-only connection."""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from ...documents.conditions import equals
from ...documents.listing import Page, Query, ReadStore, page_of
from ...documents.names import KEYS, Table
from ...domain.events.mail import Attachment

API_TOKENS = Table("api_tokens", KEYS | {"user_id", "kind", "revoked"}, frozenset())
"""The view of the API tokens, as lists read it: its own columns, the others in the body."""


async def api_tokens_page(reader: ReadStore, user_id: int, q: Query) -> Page:
    """A page of a user's live API tokens (the `api_tokens` view's bodies) and the total."""
    return await page_of(reader, API_TOKENS, equals(user_id=user_id, kind="apitoken", revoked=None), q)


@dataclass(frozen=True)
class Login:
    user_id: int
    customer_id: int
    password_hash: str
    two_factor: str
    devices: list[str]


async def login_of(reader: ReadStore, email: str) -> Login | None:
    """What a login by `email` is checked against, if a live user has it."""
    rows = await reader.execute_fetchall(
        "SELECT user_id, customer_id, password_hash, two_factor, devices FROM credentials WHERE email = ? "
        "AND deleted = 0", (email.lower(),),
    )  # fmt: skip
    for user_id, customer_id, password_hash, two_factor, devices in rows:
        return Login(user_id, customer_id, password_hash, two_factor, msgspec.json.decode(devices))
    return None


@dataclass(frozen=True)
class PendingChallenge:
    user_id: int
    customer_id: int
    code_hash: str
    expires_at: float
    device_digest: str | None


async def challenge_of(reader: ReadStore, nonce_digest: str) -> PendingChallenge | None:
    """An unused login challenge of a live user, by the digest of its nonce."""
    rows = await reader.execute_fetchall(
        "SELECT h.user_id, c.customer_id, h.code_hash, h.expires_at, h.device_digest FROM challenges h "
        "JOIN credentials c ON c.user_id = h.user_id WHERE h.nonce_digest = ? AND h.used = 0 AND c.deleted = 0",
        (nonce_digest,),
    )  # fmt: skip
    return PendingChallenge(*rows[0]) if rows else None


async def reset_of(reader: ReadStore, reset_digest: str) -> tuple[int, float] | None:
    """The user and expiry of an unused reset token, by its digest."""
    rows = await reader.execute_fetchall(
        "SELECT user_id, expires_at FROM resets WHERE reset_digest = ? AND used = 0", (reset_digest,)
    )
    return (rows[0][0], rows[0][1]) if rows else None


async def user_id_of(reader: ReadStore, email: str) -> int | None:
    rows = await reader.execute_fetchall("SELECT user_id FROM credentials WHERE email = ? AND deleted = 0",
                                         (email.lower(),))  # fmt: skip
    return rows[0][0] if rows else None


async def customer_name_of(reader: ReadStore, customer_id: int) -> str | None:
    """A live customer's name; None for a deleted or unknown one."""
    rows = await reader.execute_fetchall("SELECT name FROM customers WHERE id = ? AND deleted = 0", (customer_id,))
    return rows[0][0] if rows else None


async def sealed_sip_password_of(reader: ReadStore, user_id: int) -> str | None:
    rows = await reader.execute_fetchall("SELECT sip_password_sealed FROM credentials WHERE user_id = ?", (user_id,))
    return rows[0][0] if rows else None


async def api_keys_of(reader: ReadStore, user_id: int) -> list[tuple[str, str, str, str]]:
    """(token id, name, sealed key, created at) of a user's live API keys, oldest first."""
    rows = await reader.execute_fetchall(
        "SELECT token_id, name, sealed, created_at FROM tokens WHERE user_id = ? AND kind = 'apikey' "
        "AND revoked IS NULL ORDER BY rowid", (user_id,),
    )  # fmt: skip
    return [tuple(row) for row in rows]


MAIL_COLUMNS = "id, recipient, subject, body_sealed, transport, created_at, status, attachments, date, message_id"


async def mail_of(reader: ReadStore, to: str | None = None) -> list[tuple]:
    """(id, to, subject, sealed body, transport, created at, status, attachments JSON, date, Message-ID) of
    the mail sent, oldest first."""
    where, args = (" WHERE recipient = ?", (to,)) if to else ("", ())
    return list(await reader.execute_fetchall(f"SELECT {MAIL_COLUMNS} FROM outbox{where} ORDER BY id", args))


async def attachments_of_mail(reader: ReadStore, mail_id: int) -> list[Attachment] | None:
    """The attachments' descriptions of one mail of the outbox; None when there is no such mail."""
    rows = await reader.execute_fetchall("SELECT attachments FROM outbox WHERE id = ?", (mail_id,))
    return msgspec.json.decode(rows[0][0], type=list[Attachment]) if rows else None
