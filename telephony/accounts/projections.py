"""Read models of accounts: customers, credentials, login challenges, resets, tokens, outbox.

Public user documents live in the generic `doc_user` table; this module keeps what
authentication needs (hashes, digests, sealed copies), never a usable secret in plain text.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgspec

from ..documents.connections import Reader
from ..documents.listing import Page, Query, page_of
from ..documents.names import table_of
from ..eventlog import RecordedEvent
from ..mail import message_id
from ..projections import Projection
from ..projections.holding import HeldRows
from . import events as ev

_json = msgspec.json.encode


class Customers(Projection):
    name = "customers"
    tables = ("customers",)
    handles = frozenset({ev.CUSTOMER_CREATED, ev.CUSTOMER_DELETED})

    def create(self, conn: sqlite3.Connection) -> None:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
            "created_at TEXT NOT NULL, deleted INTEGER NOT NULL DEFAULT 0)"
        )

    def apply(self, conn: sqlite3.Connection, event: RecordedEvent) -> None:
        d = event.data
        if event.type == ev.CUSTOMER_CREATED:
            conn.execute("INSERT INTO customers VALUES (?, ?, ?, 0)", (d["id"], d["name"], d["created_at"]))
        else:
            conn.execute("UPDATE customers SET deleted = 1 WHERE id = ?", (d["id"],))


class Credentials(Projection):
    name = "credentials"
    version = 3  # 2: challenges keep the device fingerprint; 3: the email index is built after rebuilds
    tables = ("credentials", "challenges", "resets")
    handles = frozenset({
        ev.USER_CREATED, ev.USER_UPDATED, ev.USER_DELETED, ev.PASSWORD_CHANGED, ev.DEVICE_ADDED,
        ev.CHALLENGE_ISSUED, ev.CHALLENGE_PASSED, ev.RESET_REQUESTED, ev.RESET_USED, ev.CUSTOMER_DELETED,
    })  # fmt: skip
    INSERT = ("INSERT INTO credentials (user_id, customer_id, email, password_hash, sip_password_sealed, "
              "two_factor, devices, deleted) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")  # fmt: skip
    EMAIL, PASSWORD_HASH, TWO_FACTOR, DEVICES, DELETED = 2, 3, 5, 6, 7
    """Places in a credentials row (the columns of `INSERT`)."""

    def __init__(self) -> None:
        self._held: HeldRows[int, list] = HeldRows(self.INSERT)
        """During a rebuild: credentials of users created lately, as rows."""

    def create(self, conn: sqlite3.Connection) -> None:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS credentials (user_id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, "
            "email TEXT NOT NULL, password_hash TEXT NOT NULL, sip_password_sealed TEXT, "
            "two_factor TEXT NOT NULL DEFAULT 'D', devices TEXT NOT NULL DEFAULT '[]', "
            "deleted INTEGER NOT NULL DEFAULT 0)"
        )
        conn.execute(
            "CREATE TABLE IF NOT EXISTS challenges (nonce_digest TEXT PRIMARY KEY, user_id INTEGER NOT NULL, "
            "code_hash TEXT NOT NULL, expires_at REAL NOT NULL, used INTEGER NOT NULL DEFAULT 0, device_digest TEXT)"
        )
        conn.execute(
            "CREATE TABLE IF NOT EXISTS resets (reset_digest TEXT PRIMARY KEY, user_id INTEGER NOT NULL, "
            "expires_at REAL NOT NULL, used INTEGER NOT NULL DEFAULT 0)"
        )

    def settle(self, conn: sqlite3.Connection) -> None:
        self._held.flush(conn)

    def index(self, conn: sqlite3.Connection) -> None:
        conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS credentials_email ON credentials (email)")

    def apply(self, conn: sqlite3.Connection, event: RecordedEvent) -> None:
        d, t = event.data, event.type
        if t in _CHALLENGES:
            _apply_challenge(conn, t, d)
        elif t == ev.USER_CREATED:
            row = [d["id"], d["customer_id"], d["body"]["email"].lower(), d["password_hash"],
                   d.get("sip_password_sealed"), d["body"].get("two_factor_auth", "D"), "[]", 0]  # fmt: skip
            if self.rebuilding:
                self._held.hold(conn, d["id"], row)
            else:
                conn.execute(self.INSERT, row)
        elif t == ev.CUSTOMER_DELETED:
            self._held.flush(conn)
            conn.execute("UPDATE credentials SET deleted = 1, email = email || '#deleted-' || user_id "
                         "WHERE customer_id = ? AND deleted = 0", (d["id"],))  # fmt: skip
        elif (held := self._held.get(d["id"])) is not None:
            self._change_held(held, t, d)
        else:
            self._change_stored(conn, t, d)

    def _change_held(self, held: list, t: str, d: dict) -> None:
        """What `_change_stored` does, on a row held back by a rebuild."""
        if t == ev.USER_UPDATED and "two_factor_auth" in d["changes"]:
            held[self.TWO_FACTOR] = d["changes"]["two_factor_auth"]
        elif t == ev.USER_DELETED:
            held[self.DELETED] = 1
            held[self.EMAIL] = f"{held[self.EMAIL]}#deleted-{d['id']}"
        elif t == ev.PASSWORD_CHANGED:
            held[self.PASSWORD_HASH] = d["password_hash"]
        elif t == ev.DEVICE_ADDED:
            held[self.DEVICES] = _json([*msgspec.json.decode(held[self.DEVICES]), d["device_digest"]]).decode()

    @staticmethod
    def _change_stored(conn: sqlite3.Connection, t: str, d: dict) -> None:
        if t == ev.USER_UPDATED and "two_factor_auth" in d["changes"]:
            conn.execute("UPDATE credentials SET two_factor = ? WHERE user_id = ?",
                         (d["changes"]["two_factor_auth"], d["id"]))  # fmt: skip
        elif t == ev.USER_DELETED:
            conn.execute("UPDATE credentials SET deleted = 1, email = email || '#deleted-' || user_id "
                         "WHERE user_id = ?", (d["id"],))  # fmt: skip
        elif t == ev.PASSWORD_CHANGED:
            conn.execute("UPDATE credentials SET password_hash = ? WHERE user_id = ?", (d["password_hash"], d["id"]))
        elif t == ev.DEVICE_ADDED:
            conn.execute("UPDATE credentials SET devices = json_insert(devices, '$[#]', ?) WHERE user_id = ?",
                         (d["device_digest"], d["id"]))  # fmt: skip


_CHALLENGES = frozenset({ev.CHALLENGE_ISSUED, ev.CHALLENGE_PASSED, ev.RESET_REQUESTED, ev.RESET_USED})


def _apply_challenge(conn: sqlite3.Connection, t: str, d: dict) -> None:
    """Login challenges and password resets: single-use records, written as they come."""
    if t == ev.CHALLENGE_ISSUED:
        row = (d["nonce_digest"], d["id"], d["code_hash"], d["expires_at"], d.get("device_digest"))
        conn.execute("INSERT INTO challenges VALUES (?, ?, ?, ?, 0, ?)", row)
    elif t == ev.CHALLENGE_PASSED:
        conn.execute("UPDATE challenges SET used = 1 WHERE nonce_digest = ?", (d["nonce_digest"],))
    elif t == ev.RESET_REQUESTED:
        conn.execute("INSERT INTO resets VALUES (?, ?, ?, 0)", (d["reset_digest"], d["id"], d["expires_at"]))
    elif t == ev.RESET_USED:
        conn.execute("UPDATE resets SET used = 1 WHERE reset_digest = ?", (d["reset_digest"],))


class Tokens(Projection):
    name = "tokens"
    version = 2
    tables = ("tokens",)
    handles = frozenset({ev.TOKEN_ISSUED, ev.TOKEN_TOUCHED, ev.TOKEN_REVOKED})
    COLUMNS = ("token_id", "digest", "sealed", "user_id", "customer_id", "kind", "name", "expiry",
               "inactivity", "api_version", "host", "user_agent", "created_at", "issued_epoch")  # fmt: skip
    INSERT = f"INSERT INTO tokens ({', '.join(COLUMNS)}, last_request_at, last_epoch, revoked) VALUES " + (
        f"({', '.join('?' * (len(COLUMNS) + 3))})"
    )

    def __init__(self) -> None:
        self._held: HeldRows[str, list] = HeldRows(self.INSERT)
        """During a rebuild: tokens issued lately, as rows."""

    def create(self, conn: sqlite3.Connection) -> None:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS tokens (token_id TEXT PRIMARY KEY, digest TEXT NOT NULL, "
            "sealed TEXT, user_id INTEGER NOT NULL, customer_id INTEGER NOT NULL, kind TEXT NOT NULL, "
            "name TEXT, expiry INTEGER NOT NULL, inactivity INTEGER NOT NULL, api_version TEXT, host TEXT, "
            "user_agent TEXT, created_at TEXT NOT NULL, issued_epoch REAL NOT NULL, last_request_at TEXT, "
            "last_epoch REAL, revoked TEXT)"
        )
        conn.execute(
            "CREATE VIEW IF NOT EXISTS api_tokens AS SELECT rowid AS id, user_id, customer_id, kind, revoked, "
            "json_object('user_id', user_id, 'sealed', sealed, 'customer_id', customer_id, 'name', name, "
            "'host', host, 'user_agent', user_agent, 'expiry', expiry, 'last_request_at', last_request_at, "
            "'created_at', created_at, '_token_id', token_id) AS body FROM tokens"
        )

    def settle(self, conn: sqlite3.Connection) -> None:
        self._held.flush(conn)

    def index(self, conn: sqlite3.Connection) -> None:
        conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS tokens_digest ON tokens (digest)")
        conn.execute("CREATE INDEX IF NOT EXISTS tokens_user ON tokens (user_id, kind)")

    def drop(self, conn: sqlite3.Connection) -> None:
        conn.execute("DROP VIEW IF EXISTS api_tokens")
        super().drop(conn)

    def apply(self, conn: sqlite3.Connection, event: RecordedEvent) -> None:
        d = event.data
        held = self._held.get(d["token_id"])
        if event.type == ev.TOKEN_ISSUED:
            row = [d.get(c) for c in self.COLUMNS] + [None, None, None]
            if self.rebuilding:
                self._held.hold(conn, d["token_id"], row)
            else:
                conn.execute(self.INSERT, row)
        elif event.type == ev.TOKEN_TOUCHED:
            if held is not None:
                held[-3:-1] = [d["at"], d["epoch"]]
                return
            conn.execute("UPDATE tokens SET last_request_at = ?, last_epoch = ? WHERE token_id = ?",
                         (d["at"], d["epoch"], d["token_id"]))  # fmt: skip
        elif held is not None:
            held[-1] = d["reason"]
        else:
            conn.execute("UPDATE tokens SET revoked = ? WHERE token_id = ?", (d["reason"], d["token_id"]))


class Outbox(Projection):
    """Every message, with its status: `queued` for the SMTP server, then `sent` or `failed`."""

    name = "outbox"
    version = 5  # 2: a status column; 3: mail queued for SMTP, its delivery recorded apart; 4: attachments;
    # 5: the Date and Message-ID headers
    tables = ("outbox",)
    handles = frozenset({ev.MAIL_QUEUED, ev.MAIL_SENT, ev.MAIL_FAILED})
    reads_envelope = True  # a message's Message-ID is drawn from its event's position and hash

    def create(self, conn: sqlite3.Connection) -> None:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY, recipient TEXT NOT NULL, "
            "subject TEXT NOT NULL, body_sealed TEXT NOT NULL, transport TEXT NOT NULL, created_at TEXT NOT NULL, "
            "status TEXT NOT NULL, attachments TEXT NOT NULL DEFAULT '[]', date TEXT, message_id TEXT NOT NULL)"
        )

    def apply(self, conn: sqlite3.Connection, event: RecordedEvent) -> None:
        d = event.data
        status = {ev.MAIL_QUEUED: "queued", ev.MAIL_SENT: "sent", ev.MAIL_FAILED: "failed"}[event.type]
        if "queued" in d:  # the delivery of a queued message
            conn.execute("UPDATE outbox SET status = ? WHERE id = ?", (status, d["queued"]))
            return
        attachments = msgspec.json.encode(d.get("attachments", [])).decode()
        row = (event.position, d["to"], d["subject"], d["body_sealed"], d["transport"], d["created_at"], status,
               attachments, d.get("date"), message_id(event))  # fmt: skip
        conn.execute("INSERT INTO outbox VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)


# --- reads: inside the writer's transaction (decisions) ---------------------------------------------


def email_in_use(conn: sqlite3.Connection, email: str) -> bool:
    return conn.execute("SELECT 1 FROM credentials WHERE email = ?", (email.lower(),)).fetchone() is not None


def token_name_in_use(conn: sqlite3.Connection, user_id: int, kind: str, name: str) -> bool:
    row = conn.execute("SELECT 1 FROM tokens WHERE user_id = ? AND kind = ? AND name = ? AND revoked IS NULL",
                       (user_id, kind, name)).fetchone()  # fmt: skip
    return row is not None


def a_sealed_secret(conn: sqlite3.Connection) -> str | None:
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


def token_facts(conn: sqlite3.Connection, token_id: str) -> tuple[int, str, str | None] | None:
    """(user id, kind, revocation reason) of a token: its state, without folding its many touches."""
    return conn.execute("SELECT user_id, kind, revoked FROM tokens WHERE token_id = ?", (token_id,)).fetchone()


def live_tokens(conn: sqlite3.Connection, *, user_id: int | None = None, customer_id: int | None = None) -> list[str]:
    """The ids of the live tokens of a user, or of every user of a customer."""
    column, value = ("user_id", user_id) if user_id is not None else ("customer_id", customer_id)
    return [r[0] for r in conn.execute(f"SELECT token_id FROM tokens WHERE {column} = ? AND revoked IS NULL", (value,))]


def user_email(conn: sqlite3.Connection, user_id: int) -> str | None:
    """The email of a user's credentials, deleted or not (a deleted one ends in `#deleted-<id>`)."""
    row = conn.execute("SELECT email FROM credentials WHERE user_id = ?", (user_id,)).fetchone()
    return row[0] if row is not None else None


def first_customer() -> tuple[str, tuple]:
    """The statement that reads the first live customer's id."""
    return "SELECT id FROM customers WHERE deleted = 0 ORDER BY id LIMIT 1", ()


def live_customers(conn: sqlite3.Connection) -> sqlite3.Cursor:
    """(id, name, created_at) of every customer not deleted, by id."""
    return conn.execute("SELECT id, name, created_at FROM customers WHERE deleted = 0 ORDER BY id")


def live_users(conn: sqlite3.Connection) -> sqlite3.Cursor:
    """(customer id, user document, password hash, sealed SIP password, remembered devices as a JSON
    array of digests) of every user not deleted, by id."""
    return conn.execute(
        f"SELECT d.customer_id, d.body, c.password_hash, c.sip_password_sealed, c.devices FROM {table_of('user')} d "
        "JOIN credentials c ON c.user_id = d.id WHERE c.deleted = 0 ORDER BY d.id"
    )


EXPORTED_TOKEN_COLUMNS = ("token_id", "user_id", "kind", "name", "digest", "sealed", "expiry", "inactivity",
                          "api_version", "host", "user_agent", "created_at", "issued_epoch", "last_request_at",
                          "last_epoch")  # fmt: skip


def live_named_tokens(conn: sqlite3.Connection) -> Iterator[tuple[int, dict[str, Any]]]:
    """(customer id, {column: value}) of every live API token and API key of a live user, in issue order."""
    columns = ", ".join(f"t.{c}" for c in EXPORTED_TOKEN_COLUMNS)
    rows = conn.execute(
        f"SELECT t.customer_id, {columns} FROM tokens t JOIN credentials c ON c.user_id = t.user_id "
        "WHERE t.kind IN ('apitoken', 'apikey') AND t.revoked IS NULL AND c.deleted = 0 ORDER BY t.rowid"
    )
    return ((row[0], dict(zip(EXPORTED_TOKEN_COLUMNS, row[1:], strict=True))) for row in rows)


def token_known(conn: sqlite3.Connection, token_id: str, token_digest: str) -> bool:
    """Whether a token of this id, or with this digest, was ever issued."""
    row = conn.execute("SELECT 1 FROM tokens WHERE token_id = ? OR digest = ?", (token_id, token_digest)).fetchone()
    return row is not None


# --- reads: for handlers, on the read-only connection ----------------------------------------------


async def api_tokens_page(reader: Reader, user_id: int, q: Query) -> Page:
    """A page of a user's live API tokens (the `api_tokens` view's bodies) and the total."""
    return await page_of(reader, "api_tokens", ("user_id = ? AND kind = 'apitoken' AND revoked IS NULL", (user_id,)), q)


@dataclass(frozen=True)
class Login:
    user_id: int
    customer_id: int
    password_hash: str
    two_factor: str
    devices: list[str]


async def login_of(reader: Reader, email: str) -> Login | None:
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


async def challenge_of(reader: Reader, nonce_digest: str) -> PendingChallenge | None:
    """An unused login challenge of a live user, by the digest of its nonce."""
    rows = await reader.execute_fetchall(
        "SELECT h.user_id, c.customer_id, h.code_hash, h.expires_at, h.device_digest FROM challenges h "
        "JOIN credentials c ON c.user_id = h.user_id WHERE h.nonce_digest = ? AND h.used = 0 AND c.deleted = 0",
        (nonce_digest,),
    )  # fmt: skip
    return PendingChallenge(*rows[0]) if rows else None


async def reset_of(reader: Reader, reset_digest: str) -> tuple[int, float] | None:
    """The user and expiry of an unused reset token, by its digest."""
    rows = await reader.execute_fetchall(
        "SELECT user_id, expires_at FROM resets WHERE reset_digest = ? AND used = 0", (reset_digest,)
    )
    return (rows[0][0], rows[0][1]) if rows else None


async def user_id_of(reader: Reader, email: str) -> int | None:
    rows = await reader.execute_fetchall("SELECT user_id FROM credentials WHERE email = ? AND deleted = 0",
                                         (email.lower(),))  # fmt: skip
    return rows[0][0] if rows else None


async def customer_name_of(reader: Reader, customer_id: int) -> str | None:
    """A live customer's name; None for a deleted or unknown one."""
    rows = await reader.execute_fetchall("SELECT name FROM customers WHERE id = ? AND deleted = 0", (customer_id,))
    return rows[0][0] if rows else None


async def sealed_sip_password_of(reader: Reader, user_id: int) -> str | None:
    rows = await reader.execute_fetchall("SELECT sip_password_sealed FROM credentials WHERE user_id = ?", (user_id,))
    return rows[0][0] if rows else None


async def api_keys_of(reader: Reader, user_id: int) -> list[tuple[str, str, str, str]]:
    """(token id, name, sealed key, created at) of a user's live API keys, oldest first."""
    rows = await reader.execute_fetchall(
        "SELECT token_id, name, sealed, created_at FROM tokens WHERE user_id = ? AND kind = 'apikey' "
        "AND revoked IS NULL ORDER BY rowid", (user_id,),
    )  # fmt: skip
    return [tuple(row) for row in rows]


MAIL_COLUMNS = "id, recipient, subject, body_sealed, transport, created_at, status, attachments, date, message_id"


async def mail_of(reader: Reader, to: str | None = None) -> list[tuple]:
    """(id, to, subject, sealed body, transport, created at, status, attachments JSON, date, Message-ID) of
    the mail sent, oldest first."""
    where, args = (" WHERE recipient = ?", (to,)) if to else ("", ())
    return list(await reader.execute_fetchall(f"SELECT {MAIL_COLUMNS} FROM outbox{where} ORDER BY id", args))


async def attachments_of_mail(reader: Reader, mail_id: int) -> list[dict] | None:
    """The attachments' descriptions of one mail of the outbox; None when there is no such mail."""
    rows = await reader.execute_fetchall("SELECT attachments FROM outbox WHERE id = ?", (mail_id,))
    return msgspec.json.decode(rows[0][0]) if rows else None


def projections() -> list[Projection]:
    return [Customers(), Credentials(), Tokens(), Outbox()]
