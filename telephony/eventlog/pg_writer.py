"""The group-commit writer of a PostgreSQL log: each batch takes the commit lock, reads the head another
process may have moved, and is sent in psycopg's pipeline mode (see `PgGroupCommitWriter`)."""

from __future__ import annotations

import contextlib
import sys
from typing import Any, cast

import psycopg

from . import pg_store, store
from .compression import Packer
from .pg_connection import PgConnection
from .records import NO_STREAM, ConcurrencyError, NewEvent
from .writer import GroupCommitWriter


class _Plain(Packer):
    """Stores every event's JSON as it is: PostgreSQL compresses large values itself."""

    def __init__(self) -> None:
        self._compressor, self._next_training = None, sys.maxsize


class _Unattributed(Exception):
    """The server refused a statement of a batch written without waiting for each request's answers."""


class PgGroupCommitWriter(GroupCommitWriter):
    """Group commit whose batches take the commit lock and read the head another process may have moved.

    A batch runs in psycopg's pipeline mode: a statement whose answer nothing reads (a savepoint, an
    insert, a count) is sent without waiting for it, so a request costs a round trip per read it
    makes, not one per statement, and the server works while the next request is decided. A
    statement the server refuses (a bug, a stream expected new that is not: `_version`) shows at a
    later read, maybe another request's: the batch is rolled back and written again `careful`ly,
    each request waiting for the answers to all it sent (`_sent`), a failure among them taken back
    by its savepoint (after which the server takes nothing until the pipeline is synced: `_undo`)."""

    def _make_packer(self, conn: Any) -> Packer:
        return _Plain()

    def _write_batch(self, batch: list[Any]) -> list[Any]:
        conn = cast(PgConnection, self._conn)
        for careful in (False, True):
            self._careful = careful
            try:
                with conn.raw.pipeline() as self._pipeline:
                    results = super()._write_batch(batch)
            except psycopg.Error as exc:  # the pipeline's last answers: nothing of the batch was kept
                results = [exc] * len(batch)
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
            failed = results[0] if results and all(r is results[0] for r in results) else None
            if careful or not isinstance(failed, psycopg.Error | _Unattributed):
                return results
        raise AssertionError("unreachable")

    def _begin(self, conn: Any) -> None:
        self._unread: list[str] = []
        conn.execute("BEGIN")
        pg_store.lock(conn)
        self._position, self._hash = store.head(conn)

    def _version(self, conn: Any, new: NewEvent) -> int:
        """A stream expected new is not read: `UNIQUE (stream, version)` refuses its event if it is not
        (`_undo`), so a creation waits for no answer."""
        if new.expected_version != NO_STREAM:
            return super()._version(conn, new)
        self._unread.append(new.stream)
        return NO_STREAM

    def _sent(self, conn: Any) -> None:
        if self._careful:
            self._pipeline.sync()
        self._unread.clear()

    def _undo(self, conn: Any, failure: Exception) -> Exception:
        if not self._careful and isinstance(failure, psycopg.Error):
            raise _Unattributed from failure  # of this request, or of one before it
        if self._careful:
            with contextlib.suppress(psycopg.Error):  # the failure itself, or the statements it cut off
                self._pipeline.sync()
        super()._undo(conn, failure)
        unread, self._unread = self._unread, []
        if isinstance(failure, psycopg.errors.UniqueViolation):  # a stream expected new was not
            for stream in unread:
                if (actual := store.stream_version(conn, stream)) != NO_STREAM:
                    return ConcurrencyError(stream, NO_STREAM, actual)
        return failure

    def _abandon(self, conn: Any) -> None:
        with contextlib.suppress(psycopg.Error):  # the server takes the rollback only after a sync
            self._pipeline.sync()
        super()._abandon(conn)
        self._pipeline.sync()

    committed = 0
    """The last position this writer committed (its commit followers are told of it: `PgEventLog._listen`)."""

    def _commit(self, conn: Any) -> None:
        pg_store.notify(conn, self._position)
        conn.execute("COMMIT")
        self._pipeline.sync()
        self.committed = self._position

    def _appended(self, conn: Any, position: int) -> None:
        pass  # no dictionaries: PostgreSQL compresses large values itself

    def _committed(self, conn: Any) -> None:
        pass
