"""What a list read leaves for the next, until its collection changes: an in-memory projection."""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from ..documents.conditions import TRUE
from ..documents.listing import Page, Query
from ..domain.events.accounts import CustomerDeleted
from ..domain.events.resources import ResourceCleared, ResourceCreated, ResourceDeleted, ResourceUpdated
from ..eventlog import RecordedEvent
from ..projections.memory import MemoryProjection

Key = tuple[str, int, Hashable]
"""(kind, customer, what else tells the entry apart)."""
KEPT_ROWS = 10_000
"""Only pages starting within a list's first rows are kept: a walk reads each deeper page once."""
LEARNT = 4096


class PageCache(MemoryProjection):
    """Rendered pages by (kind, customer, query string), and what reads learnt (`learn`). Each is kept
    with its kind's generation when its query started; any committed event of the kind (or of a type
    that feeds its table, or a customer's deletion) moves that on, so nothing read before a change is
    served after it. Pages are bounded in bytes (`[api] list_cache_bytes`), least recently used out."""

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
        self._pages: OrderedDict[Key, tuple[int, Any]] = OrderedDict()
        self._learnt: OrderedDict[Key, tuple[int, Any]] = OrderedDict()
        self._bytes = 0
        self._everything += 1

    def fresh(self) -> PageCache:
        return PageCache(self.max_bytes, self._fed)

    def generation(self, kind: str) -> int:
        return self._generations[kind] + self._everything

    def get(self, key: Key) -> bytes | None:
        return self._current(self._pages, key)

    def put(self, key: Key, generation: int, body: bytes, first_row: int = 0) -> None:
        """Keep a page read at `generation` whose first row is the list's `first_row` (from 0)."""
        kept = self.max_bytes and len(body) <= self.max_bytes // 8 and first_row < KEPT_ROWS
        if not kept or generation != self.generation(key[0]):
            return
        self._bytes -= len(self._pages.pop(key, (0, b""))[1])
        self._pages[key] = (generation, body)
        self._bytes += len(body)
        while self._bytes > self.max_bytes:
            _, (_, evicted) = self._pages.popitem(last=False)
            self._bytes -= len(evicted)

    def recall(self, kind: str, customer_id: int, q: Query) -> tuple[int | None, Any]:
        """What is known of a customer's list: its total, and the key of the row its page starts after."""
        return self._current(self._learnt, _key(kind, customer_id, q)), self._current(
            self._learnt, _key(kind, customer_id, q, q.offset))  # fmt: skip

    def learn(self, kind: str, customer_id: int, q: Query, generation: int, page: Page) -> None:
        """Keep what a customer's list read at `generation` tells: its total when the list is filtered,
        and where the next page starts when the page is full (clients walk pages in order)."""
        if generation != self.generation(kind):
            return
        if q.where != TRUE or q.group_by is not None:
            self._keep(_key(kind, customer_id, q), generation, page.total)
        if page.last is not None and page.size == q.limit:
            self._keep(_key(kind, customer_id, q, q.offset + q.limit), generation, page.last)

    def _keep(self, key: Key, generation: int, value: Any) -> None:
        self._learnt[key] = (generation, value)
        self._learnt.move_to_end(key)
        if len(self._learnt) > LEARNT:
            self._learnt.popitem(last=False)

    def _current(self, entries: OrderedDict[Key, tuple[int, Any]], key: Key) -> Any:
        entry = entries.get(key)
        if entry is None or entry[0] != self.generation(key[0]):
            return None
        entries.move_to_end(key)
        return entry[1]

    def apply(self, event: RecordedEvent) -> None:
        """A change of a kind retires that kind's pages (a customer's deletion retires every page)."""
        match event.event:
            case CustomerDeleted():
                self._everything += 1
                return
            case ResourceCreated() | ResourceUpdated() | ResourceDeleted() | ResourceCleared() as changed:
                self._generations[changed.kind] += 1
        for fed in self._fed.get(event.type, ()):
            self._generations[fed] += 1


def _key(kind: str, customer_id: int, q: Query, start: int | None = None) -> Key:
    """Where a list's total is kept, or (`start`: an offset) the key of the row before that offset."""
    order = (q.sort, q.descending, start) if start is not None else (q.group_by,)
    return kind, customer_id, (q.where, *order)
