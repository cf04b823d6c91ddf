"""Rendered list pages and filtered totals, kept until their collection changes: an in-memory
projection without history.

A page is stored under (kind, customer, query string), and a filtered list's total under (kind,
customer, its conditions), with the generation of its kind at the time the query started; any
committed event of that kind (or of a type that feeds the kind's table, as call events feed CDRs; or
a customer's deletion) moves the generation on, so nothing read before a change is served after
it. After a bulk load the cache starts empty again. Pages are bounded in bytes, least recently used
first out, and only those starting within a list's first `KEPT_ROWS` rows are kept; totals are
bounded in number (`TOTALS`). `[api] list_cache_bytes = 0` turns both off.
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from ..eventlog import RecordedEvent
from ..projections.memory import MemoryProjection

Key = tuple[str, int, Hashable]
"""(kind, customer, what else tells the entry apart)."""
KEPT_ROWS = 10_000
"""Pages starting within a list's first rows are kept: those are the pages clients read again; a walk
through a whole collection reads each deeper page once, and keeping them would only push the first
ones out."""
TOTALS = 4096


class PageCache(MemoryProjection):
    name = "page_cache"
    history = False

    def __init__(self, max_bytes: int = 0, fed: Mapping[str, Iterable[str]] | None = None) -> None:
        self.max_bytes = max_bytes
        self._fed = {type_: tuple(kinds) for type_, kinds in (fed or {}).items()}
        """The kinds each event type feeds besides its own (`call.ended` -> `cdr`)."""
        self._generations: defaultdict[str, int] = defaultdict(int)
        """Only ever grow, so a page rendered before any change can never be taken for a current one."""
        self._everything = 0
        self.reset()

    def reset(self) -> None:
        self._pages: OrderedDict[Key, tuple[int, bytes]] = OrderedDict()
        self._totals: OrderedDict[Key, tuple[int, int]] = OrderedDict()
        self._bytes = 0
        self._everything += 1

    def fresh(self) -> PageCache:
        return PageCache(self.max_bytes, self._fed)

    def generation(self, kind: str) -> int:
        return self._generations[kind] + self._everything

    def get(self, key: Key) -> bytes | None:
        return self._current(self._pages, key)

    def total(self, key: Key) -> int | None:
        """The total of a filtered list, when it was counted since its kind last changed."""
        return self._current(self._totals, key)

    def _current(self, entries: OrderedDict[Key, tuple[int, Any]], key: Key) -> Any:
        entry = entries.get(key)
        if entry is None or entry[0] != self.generation(key[0]):
            return None
        entries.move_to_end(key)
        return entry[1]

    def put(self, key: Key, generation: int, body: bytes, first_row: int = 0) -> None:
        """Keep a page read at `generation` whose first row is the list's `first_row` (from 0)."""
        if not self.max_bytes or len(body) > self.max_bytes // 8 or first_row >= KEPT_ROWS:
            return
        if generation != self.generation(key[0]):
            return
        old = self._pages.pop(key, None)
        if old is not None:
            self._bytes -= len(old[1])
        self._pages[key] = (generation, body)
        self._bytes += len(body)
        while self._bytes > self.max_bytes:
            _, (_, evicted) = self._pages.popitem(last=False)
            self._bytes -= len(evicted)

    def put_total(self, key: Key, generation: int, total: int) -> None:
        """Keep a filtered list's total counted at `generation`."""
        if self.max_bytes and generation == self.generation(key[0]):
            self._totals[key] = (generation, total)
            self._totals.move_to_end(key)
            if len(self._totals) > TOTALS:
                self._totals.popitem(last=False)

    def apply(self, event: RecordedEvent) -> None:
        """A change of a kind retires that kind's pages (a customer's deletion retires every page)."""
        kind, _, action = event.type.partition(".")
        if kind == "customer" and action == "deleted":
            self._everything += 1
            return
        self._generations[kind] += 1
        for fed in self._fed.get(event.type, ()):
            self._generations[fed] += 1
