"""Ranks: the position of any key in an ordering of a customer's documents, without walking to it.

Per (kind, ordering, customer) a `Blocks` is built on first use from the index it sketches (a walk
of the index in steps of `BUILD`), then kept exact: the document tables record what each commit
changed (`Journal`), and every read first takes (`sync`) what was committed up to the snapshot it
reads in, so the counts and the index always describe the same documents. A block that has grown
past `2 * BLOCK` keys is split by the read that lands in it.

A change the journal could not describe (a bulk load, a customer's collection cleared) drops what
was built for that kind and customer; the next read builds it again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence

from ..projections.journal import Change, Journal
from .blocks import START, Blocks
from .kept import KeptPages
from .ordering import Key, Ordering, Unorderable
from .projection import DocumentTable

BLOCK = 32
BUILD = 256
KNOWN = 4096
"""How many ranks worked out are kept: a list's bounds come back with every page of it."""


class Ranks:
    def __init__(self, orderings: Mapping[str, Sequence[Ordering]], journal: Journal, kept_bytes: int = 0) -> None:
        self._orderings = {kind: tuple(found) for kind, found in orderings.items()}
        self._journal = journal
        self.kept = KeptPages(kept_bytes)
        """Pages read by rank, kept while the keys before them stay as they are."""
        self._built: dict[tuple[str, int], dict[str, Blocks]] = {}
        """By (kind, customer): the built blocks of each ordering, by its name."""
        self._known: dict[tuple[str, str, int, Key], tuple[Blocks, int, int]] = {}
        """Ranks worked out, by (kind, ordering, customer, key): with the blocks and their version then."""

    @classmethod
    def of(cls, tables: Iterable[object], journal: Journal, kept_bytes: int = 0) -> Ranks:
        """The ranks of every document table that records its changes in `journal`: by id, and by each
        of its indexes; pages read by rank are kept up to `kept_bytes`."""
        orderings = {
            table.kind: [Ordering(table.kind), *(Ordering(table.kind, props) for props in table.indexed)]
            for table in tables
            if isinstance(table, DocumentTable) and table.journal is journal
        }
        return cls(orderings, journal, kept_bytes)

    def orderings(self, kind: str) -> tuple[Ordering, ...]:
        return self._orderings.get(kind, ())

    def blocks(self, conn: sqlite3.Connection, ordering: Ordering, customer_id: int) -> Blocks:
        built = self._built.setdefault((ordering.kind, customer_id), {})
        blocks = built.get(ordering.name)
        if blocks is None:
            blocks = built[ordering.name] = _build(conn, ordering, customer_id)
        return blocks

    def rank(self, conn: sqlite3.Connection, ordering: Ordering, customer_id: int, key: Key | None) -> int:
        """How many of the customer's documents come before `key` (None: all of them)."""
        blocks = self.blocks(conn, ordering, customer_id)
        if key is None:
            return blocks.total
        known = (ordering.kind, ordering.name, customer_id, key)
        found = self._known.get(known)
        if found is not None and found[0] is blocks and found[1] == blocks.version:
            return found[2]
        fence, before, count = blocks.block_of(key)
        if count > 2 * BLOCK:
            _split(conn, ordering, customer_id, blocks, fence, count)
            fence, before, count = blocks.block_of(key)
        rank = before + ordering.count(conn, customer_id, fence or None, key)
        if len(self._known) >= KNOWN:
            self._known.clear()
        self._known[known] = (blocks, blocks.version, rank)
        return rank

    def seek(self, conn: sqlite3.Connection, ordering: Ordering, customer_id: int, rank: int) -> tuple[Key | None, int]:
        """Where the document of `rank` is: a fence (None: the start) and how many keys to skip from it."""
        blocks = self.blocks(conn, ordering, customer_id)
        fence, before, count = blocks.block_at(rank)
        if count > 2 * BLOCK:
            _split(conn, ordering, customer_id, blocks, fence, count)
            fence, before, count = blocks.block_at(rank)
        return fence or None, rank - before

    def bound_after(self, conn: sqlite3.Connection, ordering: Ordering, customer_id: int, rank: int) -> Key | None:
        """A key at or after that of the document at `rank`: the fence of the next block, or in the last
        block that document's own (read)."""
        blocks = self.blocks(conn, ordering, customer_id)
        fence, _, _ = blocks.block_at(rank)
        after = blocks.next_fence(fence)
        if after is not None:
            return after
        return ordering.key_at(conn, customer_id, *self.seek(conn, ordering, customer_id, rank))

    def built(self, ordering: Ordering, customer_id: int) -> bool:
        return ordering.name in self._built.get((ordering.kind, customer_id), {})

    def sync(self, position: int) -> bool:
        """Take in what was committed up to `position` (the reader's snapshot); False when that commit
        is not published yet, and the ranks cannot be used in this snapshot."""
        taken = self._journal.take(position)
        if taken is None:
            return False
        changes, lost = taken
        if lost:
            self.forget()
        else:
            self.apply(changes)
        return True

    def apply(self, changes: Iterable[Change]) -> None:
        """Move the keys a commit changed in every built ordering of their kind and customer."""
        for change in changes:
            built = self._built.get((change.kind, change.customer_id))
            if not built:
                continue
            if change.whole:
                del self._built[(change.kind, change.customer_id)]
                continue
            for ordering in self._orderings.get(change.kind, ()):
                blocks = built.get(ordering.name)
                if blocks is None:
                    continue
                try:
                    before = ordering.key(change.id, change.before) if change.before is not None else None
                    after = ordering.key(change.id, change.after) if change.after is not None else None
                except Unorderable:
                    del built[ordering.name]
                    continue
                if before is not None and before == after:
                    blocks.touch(before)
                    continue
                if before is not None:
                    blocks.remove(before)
                if after is not None:
                    blocks.add(after)

    def forget(self, customer_id: int | None = None) -> None:
        """Drop what was built (for one customer): it is built again when next read."""
        if customer_id is None:
            self._built.clear()
            return
        for key in [key for key in self._built if key[1] == customer_id]:
            del self._built[key]


def _build(conn: sqlite3.Connection, ordering: Ordering, customer_id: int) -> Blocks:
    """Blocks of `BUILD` keys from the start of the index to its end (reads split them finer)."""
    fences: list[Key] = [START]
    counts: list[int] = []
    while True:
        at = ordering.key_at(conn, customer_id, fences[-1] or None, BUILD)
        if at is None:
            counts.append(ordering.count(conn, customer_id, fences[-1] or None, None))
            return Blocks(fences, counts)
        counts.append(BUILD)
        fences.append(at)


def _split(conn: sqlite3.Connection, ordering: Ordering, customer_id: int, blocks: Blocks, fence: Key,
           count: int) -> None:  # fmt: skip
    """Split the block of `fence` into blocks of `BLOCK` keys (the last may hold up to twice that)."""
    while count > 2 * BLOCK:
        at = ordering.key_at(conn, customer_id, fence or None, BLOCK)
        if at is None or at <= fence:
            return
        blocks.split(fence, at, BLOCK)
        fence, count = at, count - BLOCK
