"""Read models of accounts: customers, credentials, login challenges, resets, tokens, outbox.

Public user documents live in the generic `doc_user` table; these keep what authentication needs
(hashes, digests, sealed copies), never a usable secret in plain text.
"""

from __future__ import annotations

import msgspec

from ...domain.events import Event
from ...domain.events.accounts import (
    ChallengeIssued,
    ChallengePassed,
    CustomerCreated,
    CustomerDeleted,
    DeviceAdded,
    PasswordChanged,
    ResetRequested,
    ResetUsed,
    TokenIssued,
    TokenRevoked,
    TokenTouched,
    UserCreated,
    UserDeleted,
    UserUpdated,
)
from ...domain.events.mail import MailFailed, MailQueued, MailSent
from ...eventlog import Connection, RecordedEvent
from ...mail import message_id
from ...projections import Projection
from ...projections.holding import HeldRows

_json = msgspec.json.encode


class Customers(Projection):
    name = "customers"
    tables = ("customers",)
    handles = frozenset({CustomerCreated, CustomerDeleted})

    def create(self, conn: Connection) -> None:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
            "created_at TEXT NOT NULL, deleted INTEGER NOT NULL DEFAULT 0)"
        )

    def apply(self, conn: Connection, event: RecordedEvent) -> None:
        match event.event:
            case CustomerCreated(id=id_, name=name, created_at=created_at):
                conn.execute("INSERT INTO customers VALUES (?, ?, ?, 0)", (id_, name, created_at))
            case CustomerDeleted(id=id_):
                conn.execute("UPDATE customers SET deleted = 1 WHERE id = ?", (id_,))


class Credentials(Projection):
    name = "credentials"
    version = 3  # 2: challenges keep the device fingerprint; 3: the email index is built after rebuilds
    tables = ("credentials", "challenges", "resets")
    handles = frozenset({UserCreated, UserUpdated, UserDeleted, PasswordChanged, DeviceAdded, ChallengeIssued,
                         ChallengePassed, ResetRequested, ResetUsed, CustomerDeleted})  # fmt: skip
    INSERT = ("INSERT INTO credentials (user_id, customer_id, email, password_hash, sip_password_sealed, "
              "two_factor, devices, deleted) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")  # fmt: skip
    EMAIL, PASSWORD_HASH, TWO_FACTOR, DEVICES, DELETED = 2, 3, 5, 6, 7
    """Places in a credentials row (the columns of `INSERT`)."""

    def __init__(self) -> None:
        self._held: HeldRows[int, list] = HeldRows(self.INSERT)
        """During a rebuild: credentials of users created lately, as rows."""

    def create(self, conn: Connection) -> None:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS credentials (user_id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, "
            "email TEXT NOT NULL, password_hash TEXT NOT NULL, sip_password_sealed TEXT, "
            "two_factor TEXT NOT NULL DEFAULT 'D', devices TEXT NOT NULL DEFAULT '[]', "
            "deleted INTEGER NOT NULL DEFAULT 0)"
        )
        conn.execute(
            "CREATE TABLE IF NOT EXISTS challenges (nonce_digest TEXT PRIMARY KEY, user_id INTEGER NOT NULL, "
            "code_hash TEXT NOT NULL, expires_at DOUBLE PRECISION NOT NULL, used INTEGER NOT NULL DEFAULT 0, "
            "device_digest TEXT)"
        )
        conn.execute(
            "CREATE TABLE IF NOT EXISTS resets (reset_digest TEXT PRIMARY KEY, user_id INTEGER NOT NULL, "
            "expires_at DOUBLE PRECISION NOT NULL, used INTEGER NOT NULL DEFAULT 0)"
        )

    def settle(self, conn: Connection) -> None:
        self._held.flush(conn)

    def index(self, conn: Connection) -> None:
        conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS credentials_email ON credentials (email)")

    def apply(self, conn: Connection, event: RecordedEvent) -> None:
        match event.event:  # the most frequent first
            case (
                UserUpdated(id=id_) | UserDeleted(id=id_) | PasswordChanged(id=id_) | DeviceAdded(id=id_) as changed
            ) if isinstance(id_, int):
                if (held := self._held.get(id_)) is not None:
                    self._change_held(held, changed)
                else:
                    self._change_stored(conn, changed)
            case UserCreated(id=id_, customer_id=customer_id, body=body) as created if isinstance(id_, int):
                row = [id_, customer_id, body.email.lower(), created.password_hash, created.sip_password_sealed,
                       body.two_factor_auth, "[]", 0]  # fmt: skip
                if self.rebuilding:
                    self._held.hold(conn, id_, row)
                else:
                    conn.execute(self.INSERT, row)
            case ChallengeIssued() | ChallengePassed() | ResetRequested() | ResetUsed() as once:
                _apply_challenge(conn, once)
            case CustomerDeleted(id=customer_id):
                self._held.flush(conn)
                conn.execute("UPDATE credentials SET deleted = 1, email = email || '#deleted-' || user_id "
                             "WHERE customer_id = ? AND deleted = 0", (customer_id,))  # fmt: skip

    def _change_held(self, held: list, event: Event) -> None:
        """What `_change_stored` does, on a row held back by a rebuild."""
        match event:
            case UserUpdated(changes=changes) if "two_factor_auth" in changes:
                held[self.TWO_FACTOR] = changes["two_factor_auth"]
            case UserDeleted(id=id_):
                held[self.DELETED] = 1
                held[self.EMAIL] = f"{held[self.EMAIL]}#deleted-{id_}"
            case PasswordChanged(password_hash=password_hash):
                held[self.PASSWORD_HASH] = password_hash
            case DeviceAdded(device_digest=device):
                held[self.DEVICES] = _json([*msgspec.json.decode(held[self.DEVICES]), device]).decode()

    @staticmethod
    def _change_stored(conn: Connection, event: Event) -> None:
        match event:
            case UserUpdated(id=id_, changes=changes) if "two_factor_auth" in changes:
                two_factor = changes["two_factor_auth"]
                conn.execute("UPDATE credentials SET two_factor = ? WHERE user_id = ?", (two_factor, id_))
            case UserDeleted(id=id_):
                conn.execute("UPDATE credentials SET deleted = 1, email = email || '#deleted-' || user_id "
                             "WHERE user_id = ?", (id_,))  # fmt: skip
            case PasswordChanged(id=id_, password_hash=password_hash):
                conn.execute("UPDATE credentials SET password_hash = ? WHERE user_id = ?", (password_hash, id_))
            case DeviceAdded(id=id_, device_digest=device):  # appended as a rebuild holds it, on either store
                row = conn.execute("SELECT devices FROM credentials WHERE user_id = ?", (id_,)).fetchone()
                if row is not None:
                    devices = _json([*msgspec.json.decode(row[0]), device]).decode()
                    conn.execute("UPDATE credentials SET devices = ? WHERE user_id = ?", (devices, id_))


def _apply_challenge(conn: Connection, event: Event) -> None:
    """Login challenges and password resets: single-use records, written as they come."""
    match event:
        case ChallengeIssued():
            row = (event.nonce_digest, event.id, event.code_hash, event.expires_at, event.device_digest)
            conn.execute("INSERT INTO challenges VALUES (?, ?, ?, ?, 0, ?)", row)
        case ChallengePassed(nonce_digest=nonce):
            conn.execute("UPDATE challenges SET used = 1 WHERE nonce_digest = ?", (nonce,))
        case ResetRequested(id=id_, reset_digest=digest, expires_at=expires_at):
            conn.execute("INSERT INTO resets VALUES (?, ?, ?, 0)", (digest, id_, expires_at))
        case ResetUsed(reset_digest=digest):
            conn.execute("UPDATE resets SET used = 1 WHERE reset_digest = ?", (digest,))


class Tokens(Projection):
    name = "tokens"
    version = 2
    tables = ("tokens",)
    handles = frozenset({TokenIssued, TokenTouched, TokenRevoked})
    COLUMNS = ("token_id", "digest", "sealed", "user_id", "customer_id", "kind", "name", "expiry",
               "inactivity", "api_version", "host", "user_agent", "created_at", "issued_epoch")  # fmt: skip
    INSERT = f"INSERT INTO tokens ({', '.join(COLUMNS)}, last_request_at, last_epoch, revoked) VALUES " + (
        f"({', '.join('?' * (len(COLUMNS) + 3))})"
    )

    def __init__(self) -> None:
        self._held: HeldRows[str, list] = HeldRows(self.INSERT)
        """During a rebuild: tokens issued lately, as rows."""

    def create(self, conn: Connection) -> None:
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

    def settle(self, conn: Connection) -> None:
        self._held.flush(conn)

    def index(self, conn: Connection) -> None:
        conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS tokens_digest ON tokens (digest)")
        conn.execute("CREATE INDEX IF NOT EXISTS tokens_user ON tokens (user_id, kind)")

    def drop(self, conn: Connection) -> None:
        conn.execute("DROP VIEW IF EXISTS api_tokens")
        super().drop(conn)

    def apply(self, conn: Connection, event: RecordedEvent) -> None:
        match event.event:
            case TokenIssued(token_id=token_id) as issued:
                row = [getattr(issued, column) for column in self.COLUMNS] + [None, None, None]
                if self.rebuilding:
                    self._held.hold(conn, token_id, row)
                else:
                    conn.execute(self.INSERT, row)
            case TokenTouched(token_id=token_id, at=at, epoch=epoch):
                if (held := self._held.get(token_id)) is not None:
                    held[-3:-1] = [at, epoch]
                    return
                conn.execute("UPDATE tokens SET last_request_at = ?, last_epoch = ? WHERE token_id = ?",
                             (at, epoch, token_id))  # fmt: skip
            case TokenRevoked(token_id=token_id, reason=reason):
                if (held := self._held.get(token_id)) is not None:
                    held[-1] = reason
                else:
                    conn.execute("UPDATE tokens SET revoked = ? WHERE token_id = ?", (reason, token_id))


class Outbox(Projection):
    """Every message, with its status: `queued` for the SMTP server, then `sent` or `failed`."""

    name = "outbox"
    version = 5  # 2: a status column; 3: mail queued for SMTP, its delivery recorded apart; 4: attachments;
    # 5: the Date and Message-ID headers
    tables = ("outbox",)
    handles = frozenset({MailQueued, MailSent, MailFailed})
    reads_envelope = True  # a message's Message-ID is drawn from its event's position and hash

    def create(self, conn: Connection) -> None:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY, recipient TEXT NOT NULL, "
            "subject TEXT NOT NULL, body_sealed TEXT NOT NULL, transport TEXT NOT NULL, created_at TEXT NOT NULL, "
            "status TEXT NOT NULL, attachments TEXT NOT NULL DEFAULT '[]', date TEXT, message_id TEXT NOT NULL)"
        )

    def apply(self, conn: Connection, event: RecordedEvent) -> None:
        match event.event:
            case MailSent(queued=queued) | MailFailed(queued=queued) if queued is not None:  # a queued one's delivery
                status = "sent" if isinstance(event.event, MailSent) else "failed"
                conn.execute("UPDATE outbox SET status = ? WHERE id = ?", (status, queued))
            case MailQueued() | MailSent() as written:
                status = "queued" if isinstance(written, MailQueued) else "sent"
                row = (event.position, written.to, written.subject, written.body_sealed, written.transport,
                       written.created_at, status, _json(written.attachments).decode(), written.date,
                       message_id(event))  # fmt: skip
                conn.execute("INSERT INTO outbox VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)


def projections(tokens: type[Tokens] = Tokens) -> list[Projection]:
    """The accounts' read models, with the tokens table of the store (`pg_tables.PgTokens` on PostgreSQL)."""
    return [Customers(), Credentials(), tokens(), Outbox()]
