"""Pages read by rank, kept while nothing before them changes: a page cache that outlives appends.

A page read by rank holds the documents at ranks [start, start + count) of one ordering of one
customer's documents. A document added, changed or removed moves the documents at its own rank and
after it, never those before: so the page's documents stay at their ranks for as long as every key
changed since it was read lies after its last one. A hangup appends a CDR with the greatest id and
the latest calldate, so the pages of the CDR lists by id or by calldate stay exact.

A list read newest first counts its pages back from the end of its span, so each append moves them
one rank on: page 1 gains the new CDR and loses its oldest. A kept page of such a list whose rows
are still where they were gives all but the rows it gained (`Page.but_oldest`), and only those are
read (`ranked`): a row, not a page, per hangup.

What a page's last key is needs no read but in the last block: the fence of the block after the one
holding its last rank is a key after it (`Ranks.bound_after`). The total is never kept: the ranks
give it afresh. Bounded in bytes, least recently used out; 0 bytes keeps nothing. As the list page
cache (`collections.cache`), only pages starting within a list's first `KEPT_ROWS` rows are kept.
"""

from __future__ import annotations

import weakref
from array import array
from collections import OrderedDict
from itertools import accumulate
from typing import Any

from .blocks import Blocks
from .ordering import Key

KEPT_ROWS = 10_000
"""Pages starting within a list's first rows are kept: those are the pages clients read again; a walk
through a whole collection reads each deeper page once, and keeping them would only push the first
ones out."""
PageKey = tuple[Any, ...]
"""(kind, ordering name, customer, the span's bound its rows count from, first row, count, descending):
where a page is in its list, whatever its ranks are now."""
OVERHEAD = 320
"""Bytes a kept page costs beyond its bodies (its key, its entry), counted against the budget."""


class Page:
    """A page as read: its first rank, its bodies joined in its list's order and, for a list read
    newest first, the offset where each ends."""

    __slots__ = ("read_in", "number", "bound", "start", "joined", "ends")

    def __init__(self, read_in: Blocks, bound: Key | None, start: int, joined: bytes, ends: array | None) -> None:
        self.read_in = weakref.ref(read_in)
        """The blocks it was read by rank in (not kept alive by it once the ranks drop them)."""
        self.number = read_in.watched().number
        """Their change number when the page was last known exact."""
        self.bound = bound
        """A key at or after its last one: a change of a key after it leaves the page where it is (None:
        any change may move it)."""
        self.start, self.joined, self.ends = start, joined, ends

    @property
    def size(self) -> int:
        return len(self.joined) + OVERHEAD + (4 * len(self.ends) if self.ends is not None else 0)

    def but_oldest(self, dropped: int) -> tuple[bytes, array]:
        """Its bodies but the `dropped` last in its order (newest first: the oldest), and their ends."""
        assert self.ends is not None and 0 < dropped < len(self.ends)
        left = self.ends[: len(self.ends) - dropped]
        return self.joined[: left[-1]], left


def joined_bodies(bodies: list[bytes]) -> tuple[bytes, array]:
    """The bodies joined by commas, and the offset where each ends."""
    return b",".join(bodies), array("I", (end - 1 for end in accumulate(len(body) + 1 for body in bodies)))


def followed(first: tuple[bytes, array], then: tuple[bytes, array]) -> tuple[bytes, array]:
    """Two runs of joined bodies (`joined_bodies`) as one."""
    (head, head_ends), (tail, tail_ends) = first, then
    ends = array("I", head_ends)
    ends.extend(end + len(head) + 1 for end in tail_ends)
    return head + b"," + tail, ends


class KeptPages:
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._pages: OrderedDict[PageKey, Page] = OrderedDict()
        self._bytes = 0
        self.hits = 0
        self.shifts = 0
        """Pages of lists read newest first made from a kept page a few ranks back."""

    def get(self, key: PageKey, blocks: Blocks, start: int) -> Page | None:
        """The page kept at `key` if its documents are still at their ranks in `blocks` (the ordering's,
        taken in up to the reader's snapshot) and it starts at `start` or, read newest first, a few
        ranks before it (the rows between are read, `Page.but_oldest`)."""
        page = self._pages.get(key)
        if page is None:
            return None
        shift = start - page.start
        if (
            page.read_in() is not blocks
            or blocks.moves is None
            or not blocks.moves.all_after(page.number, page.bound)
            or (shift and not (page.ends is not None and 0 < shift < len(page.ends)))
        ):
            self._drop(key)
            return None
        page.number = blocks.moves.number  # exact now: older changes need not be told
        self._pages.move_to_end(key)
        if shift:
            self.shifts += 1
        else:
            self.hits += 1
        return page

    def wanted(self, first_row: int, size: int) -> bool:
        """Whether a page of `size` bytes whose first row is the list's `first_row` (from 0) would be kept."""
        return 0 < size <= self.max_bytes // 8 and first_row < KEPT_ROWS

    def put(self, key: PageKey, page: Page, first_row: int) -> None:
        """Keep a page just read, whose first row is the list's `first_row` (from 0)."""
        if not self.wanted(first_row, len(page.joined)):
            return
        self._drop(key)
        self._pages[key] = page
        self._bytes += page.size
        while self._bytes > self.max_bytes:
            _, evicted = self._pages.popitem(last=False)
            self._bytes -= evicted.size

    def _drop(self, key: PageKey) -> None:
        old = self._pages.pop(key, None)
        if old is not None:
            self._bytes -= old.size
