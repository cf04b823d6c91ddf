"""What the accounts' read models answer inside the writer's transaction (decisions, imports, exports)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...documents.names import table_of
from ...eventlog.connection import Connection, Cursor


def email_in_use(conn: Connection, email: str) -> bool:
    return conn.execute("SELECT 1 FROM credentials WHERE email = ?", (email.lower(),)).fetchone() is not None


def token_name_in_use(conn: Connection, user_id: int, kind: str, name: str) -> bool:
    row = conn.execute("SELECT 1 FROM tokens WHERE user_id = ? AND kind = ? AND name = ? AND revoked IS NULL",
                       (user_id, kind, name)).fetchone()  # fmt: skip
    return row is not None


def a_sealed_secret(conn: Connection) -> str | None:
    """One secret the read models keep sealed (a SIP password, else an API token's or a mail's body),
    which the data dir's seal key must open; None when there is none yet."""
    for sql in (
        "SELECT sip_password_sealed FROM credentials WHERE sip_password_sealed IS NOT NULL LIMIT 1",
        "SELECT sealed FROM tokens WHERE sealed IS NOT NULL LIMIT 1",
        "SELECT body_sealed FROM outbox LIMIT 1",
    ):
        if (row := conn.execute(sql).fetchone()) is not None:
            return row[0]
    return None


def token_facts(conn: Connection, token_id: str) -> tuple[int, str, str | None] | None:
    """(user id, kind, revocation reason) of a token: its state, without folding its many touches."""
    return conn.execute("SELECT user_id, kind, revoked FROM tokens WHERE token_id = ?", (token_id,)).fetchone()


def live_tokens(conn: Connection, *, user_id: int | None = None, customer_id: int | None = None) -> list[str]:
    """The ids of the live tokens of a user, or of every user of a customer."""
    column, value = ("user_id", user_id) if user_id is not None else ("customer_id", customer_id)
    return [r[0] for r in conn.execute(f"SELECT token_id FROM tokens WHERE {column} = ? AND revoked IS NULL", (value,))]


def user_email(conn: Connection, user_id: int) -> str | None:
    """The email of a user's credentials, deleted or not (a deleted one ends in `#deleted-<id>`)."""
    row = conn.execute("SELECT email FROM credentials WHERE user_id = ?", (user_id,)).fetchone()
    return row[0] if row is not None else None


def first_customer() -> tuple[str, tuple]:
    """The statement that reads the first live customer's id."""
    return "SELECT id FROM customers WHERE deleted = 0 ORDER BY id LIMIT 1", ()


def live_customers(conn: Connection) -> Cursor:
    """(id, name, created_at) of every customer not deleted, by id."""
    return conn.execute("SELECT id, name, created_at FROM customers WHERE deleted = 0 ORDER BY id")


def live_users(conn: Connection) -> Cursor:
    """(customer id, user document, password hash, sealed SIP password, remembered devices as a JSON
    array of digests) of every user not deleted, by id."""
    return conn.execute(
        f"SELECT d.customer_id, d.body, c.password_hash, c.sip_password_sealed, c.devices FROM {table_of('user')} d "
        "JOIN credentials c ON c.user_id = d.id WHERE c.deleted = 0 ORDER BY d.id"
    )


EXPORTED_TOKEN_COLUMNS = ("token_id", "user_id", "kind", "name", "digest", "sealed", "expiry", "inactivity",
                          "api_version", "host", "user_agent", "created_at", "issued_epoch", "last_request_at",
                          "last_epoch")  # fmt: skip


def live_named_tokens(conn: Connection) -> Iterator[tuple[int, dict[str, Any]]]:
    """(customer id, {column: value}) of every live API token and API key of a live user, in issue order."""
    columns = ", ".join(f"t.{c}" for c in EXPORTED_TOKEN_COLUMNS)
    rows = conn.execute(
        f"SELECT t.customer_id, {columns} FROM tokens t JOIN credentials c ON c.user_id = t.user_id "
        "WHERE t.kind IN ('apitoken', 'apikey') AND t.revoked IS NULL AND c.deleted = 0 ORDER BY t.rowid"
    )
    return ((row[0], dict(zip(EXPORTED_TOKEN_COLUMNS, row[1:], strict=True))) for row in rows)


def token_known(conn: Connection, token_id: str, token_digest: str) -> bool:
    """Whether a token of this id, or with this digest, was ever issued."""
    row = conn.execute("SELECT 1 FROM tokens WHERE token_id = ? OR digest = ?", (token_id, token_digest)).fetchone()
    return row is not None
