"""Pages read by rank, kept while nothing before them changes: a page cache that outlives appends.

A page read by rank holds the documents at ranks [start, start + count) of one ordering of one
customer's documents. A document added, changed or removed moves the documents at its own rank and
after it, never those before: so the page stays exact for as long as every key changed since it was
read lies after its last one. A hangup appends a CDR with the greatest id and the latest calldate,
so the pages of the CDR lists by id or by calldate stay exact but for the last; a list read newest
first moves with each such change, and is read again.

What a page's last key is needs no read: the fence of the block after the one holding its last rank
is a key after it (`Blocks.next_fence`), and a change between the two drops a page it need not have
(a page in the last block goes with any change). The total is never kept: the ranks give it afresh.
Bounded in bytes, least recently used out; 0 bytes keeps nothing. As the list page cache
(`collections.cache`), only pages starting within a list's first `KEPT_ROWS` rows are kept.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from typing import Any

from .blocks import Blocks
from .ordering import Key

KEPT_ROWS = 10_000
"""Pages starting within a list's first rows are kept: those are the pages clients read again; a walk
through a whole collection reads each deeper page once, and keeping them would only push the first
ones out."""
PageKey = tuple[Any, ...]
"""(kind, ordering name, customer, first rank, count, descending)."""
OVERHEAD = 320
"""Bytes a kept page costs beyond its bodies (its key, its entry), counted against the budget."""


class KeptPages:
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._pages: OrderedDict[PageKey, tuple[weakref.ref[Blocks], int, Key | None, bytes]] = OrderedDict()
        """By page: the blocks it was read by rank in (not kept alive by it once the ranks drop them),
        their change number then, a key after its last key (None: none is known), its bodies joined."""
        self._bytes = 0
        self.hits = 0

    def get(self, key: PageKey, blocks: Blocks) -> bytes | None:
        """The page's joined bodies if kept and still exact in `blocks` (the ordering's, taken in up to
        the reader's snapshot)."""
        found = self._pages.get(key)
        if found is None:
            return None
        kept_in, number, bound, joined = found
        if kept_in() is not blocks or blocks.moves is None or not blocks.moves.all_after(number, bound):
            self._drop(key)
            return None
        self._pages[key] = (kept_in, blocks.moves.number, bound, joined)  # exact now: older changes need not be told
        self._pages.move_to_end(key)
        self.hits += 1
        return joined

    def put(self, key: PageKey, blocks: Blocks, last_rank: int, joined: bytes, first_row: int) -> None:
        """Keep a page just read in `blocks`, whose last document has rank `last_rank` and whose first is
        the list's `first_row` (from 0)."""
        if not self.max_bytes or len(joined) > self.max_bytes // 8 or first_row >= KEPT_ROWS:
            return
        fence, _, _ = blocks.block_at(last_rank)
        self._drop(key)
        self._pages[key] = (weakref.ref(blocks), blocks.watched().number, blocks.next_fence(fence), joined)
        self._bytes += len(joined) + OVERHEAD
        while self._bytes > self.max_bytes:
            _, (_, _, _, evicted) = self._pages.popitem(last=False)
            self._bytes -= len(evicted) + OVERHEAD

    def _drop(self, key: PageKey) -> None:
        old = self._pages.pop(key, None)
        if old is not None:
            self._bytes -= len(old[3]) + OVERHEAD
