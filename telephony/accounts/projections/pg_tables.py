"""The tokens table in PostgreSQL: SQLite gives every row a `rowid` (the order tokens were issued in,
an API token's id) and builds its view's body with `json_object`; here `rowid` is a column of its own,
one more than the greatest, as SQLite draws it, and the view's body is the text SQLite's `json_object`
writes (with `doc`, the same as `jsonb`, for lists to read: `documents.postgresql.sql`). Not an
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
SHOWN = (("user_id", "user_id"), ("sealed", "sealed"), ("customer_id", "customer_id"), ("name", "name"),
         ("host", "host"), ("user_agent", "user_agent"), ("expiry", "expiry"),
         ("last_request_at", "last_request_at"), ("created_at", "created_at"), ("_token_id", "token_id"))  # fmt: skip
"""The body's keys, in order, and the columns they show (as SQLite's view shows them)."""
BODY = (
    "'{' || concat_ws(',', "
    + ", ".join(f"'\"{key}\":' || coalesce(to_json({column})::text, 'null')" for key, column in SHOWN)
    + ") || '}'"
)
"""The body as the text SQLite's `json_object` writes: no space, the keys in order."""
VIEW = (
    "CREATE OR REPLACE VIEW api_tokens AS SELECT *, body::jsonb AS doc FROM (SELECT rowid AS id, user_id, "
    f"customer_id, kind, revoked, {BODY} AS body FROM tokens) AS t"
)


class PgTokens(Tokens):
    INSERT = Tokens.INSERT.replace(") VALUES (", ", rowid) VALUES (").replace(
        "?)", "?, (SELECT coalesce(max(rowid), 0) + 1 FROM tokens))"
    )
    """Every write is under the commit lock, so no two inserts draw the same `rowid`."""

    def declaration(self) -> tuple:
        return (*super().declaration(), TABLE, VIEW)

    def create(self, conn: Connection) -> None:
        conn.execute(TABLE)
        conn.execute(VIEW)
