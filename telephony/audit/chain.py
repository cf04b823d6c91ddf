"""The hash chain, checked row by row, and the problem an audit reports."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NoReturn

from ..eventlog import compression, store
from ..eventlog.connection import Connection, plain
from ..eventlog.hashing import GENESIS, as_bytes, canonical_bytes, chain_hash


@dataclass(frozen=True)
class Problem:
    """What an audit found: at an event's `position`, or in the read models compared `at` a position."""

    position: int | None
    what: str
    at: int | None = None

    def __str__(self) -> str:
        if self.position is not None:
            return f"position {self.position}: {self.what}"
        where = f"projections at position {self.at}" if self.at is not None else "projections"
        return f"{where}: {self.what}"


class Chain:
    """The hash chain checked row by row: called with each stored row in position order, it gives back
    the row's data made plain, or raises `Broken` at the first event whose position, hash or any
    stored byte is not what the chain says. A rebuild can check it on the rows it reads anyway
    (`Projections.rebuild(watch=...)`), so `verify` reads and decompresses the log once for both."""

    def __init__(self, log: Any, progress=None) -> None:
        self._log = log
        """The log the rows are read from (whose dictionaries decompress them)."""
        self._previous, self._expected, self._progress = GENESIS, 1, progress
        self.problem: Problem | None = None

    @property
    def position(self) -> int:
        """The last position checked so far (0 before the first)."""
        return self._expected - 1

    @property
    def head(self) -> bytes:
        """The hash of the last event checked so far (the genesis hash before the first)."""
        return self._previous

    def __call__(self, row: tuple) -> bytes:
        position, stream, version, type_, schema, data, meta, recorded_at, digest = row
        if position != self._expected:
            self._broken(self._expected, f"position {self._expected} is missing (found {position} next)")
        try:
            content = plain(self._log, as_bytes(data))
        except compression.UnreadableData as exc:
            self._broken(position, f"the event's data cannot be read: {exc}")
        canonical = canonical_bytes(position, stream, version, type_, schema, recorded_at, content, as_bytes(meta))
        if chain_hash(self._previous, canonical) != digest:
            self._broken(position, "hash does not match the event's stored bytes")
        self._previous, self._expected = as_bytes(digest), self._expected + 1
        if self._progress is not None:
            self._progress(1)
        return content

    def _broken(self, position: int, what: str) -> NoReturn:
        self.problem = Problem(position, what)
        raise Broken(self.problem)


class Broken(Exception):
    """The hash chain does not hold (`Chain`)."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


def verify_chain(conn: Connection, progress=None) -> Problem | None:
    """The first event whose position, hash or any stored byte is not what the chain says."""
    chain = Chain(conn, progress)
    try:
        for row in store.raw_rows(conn, chunk=5000):
            chain(row)
    except Broken as exc:
        return exc.problem
    return None
