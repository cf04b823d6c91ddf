"""The tokens table in PostgreSQL: SQLite gives every row a `rowid` (the order tokens were issued in,
an API token's id) and builds its view's body with `json_object`; here `rowid` is a column of its own,
one more than the greatest, as SQLite draws it, and the body is `json_build_object`'s text. Not an
identity: a sequence is not rolled back, so a transaction that failed (a process killed mid-commit)
would leave a gap that a replay of the log closes, and an API token's id would change. Its times are
`DOUBLE PRECISION` (SQLite's `REAL`). The other account tables are written in the SQL both stores take."""

from __future__ import annotations

from ...eventlog import Connection
from .tables import Tokens

TABLE = (
    "CREATE TABLE IF NOT EXISTS tokens (token_id TEXT PRIMARY KEY, digest TEXT NOT NULL, sealed TEXT, "
    "user_id BIGINT NOT NULL, customer_id BIGINT NOT NULL, kind TEXT NOT NULL, name TEXT, expiry BIGINT NOT NULL, "
    "inactivity BIGINT NOT NULL, api_version TEXT, host TEXT, user_agent TEXT, created_at TEXT NOT NULL, "
    "issued_epoch DOUBLE PRECISION NOT NULL, last_request_at TEXT, last_epoch DOUBLE PRECISION, revoked TEXT, "
    "rowid BIGINT NOT NULL UNIQUE)"
)
VIEW = (
    "CREATE OR REPLACE VIEW api_tokens AS SELECT rowid AS id, user_id, customer_id, kind, revoked, "
    "json_build_object('user_id', user_id, 'sealed', sealed, 'customer_id', customer_id, 'name', name, "
    "'host', host, 'user_agent', user_agent, 'expiry', expiry, 'last_request_at', last_request_at, "
    "'created_at', created_at, '_token_id', token_id)::text AS body FROM tokens"
)


class PgTokens(Tokens):
    INSERT = Tokens.INSERT.replace(") VALUES (", ", rowid) VALUES (").replace(
        "?)", "?, (SELECT coalesce(max(rowid), 0) + 1 FROM tokens))"
    )
    """Every write is under the commit lock, so no two inserts draw the same `rowid`."""

    def declaration(self) -> tuple:
        return (*super().declaration(), TABLE)

    def create(self, conn: Connection) -> None:
        conn.execute(TABLE)
        conn.execute(VIEW)
