"""Rendered list pages, kept until their collection changes.

A page is stored under (kind, customer, query string) with the generation of its kind at the time
the query started; any committed event of that kind (or of a customer's deletion, or a bulk load)
moves the generation on, so a page read before a change is never served after it. Bounded in
bytes, least recently used first out. `[api] list_cache_bytes = 0` turns it off.
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict

from ..eventlog import RecordedEvent

Key = tuple[str, int, str]


class PageCache:
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._pages: OrderedDict[Key, tuple[int, bytes]] = OrderedDict()
        self._bytes = 0
        self._generations: defaultdict[str, int] = defaultdict(int)
        self._everything = 0

    def generation(self, kind: str) -> int:
        return self._generations[kind] + self._everything

    def get(self, key: Key) -> bytes | None:
        entry = self._pages.get(key)
        if entry is None or entry[0] != self.generation(key[0]):
            return None
        self._pages.move_to_end(key)
        return entry[1]

    def put(self, key: Key, generation: int, body: bytes) -> None:
        if not self.max_bytes or len(body) > self.max_bytes // 8:
            return
        old = self._pages.pop(key, None)
        if old is not None:
            self._bytes -= len(old[1])
        self._pages[key] = (generation, body)
        self._bytes += len(body)
        while self._bytes > self.max_bytes:
            _, (_, evicted) = self._pages.popitem(last=False)
            self._bytes -= len(evicted)

    def on_events(self, events: list[RecordedEvent]) -> None:
        """The commit listener: a change of a kind retires that kind's pages (all, for bulk loads)."""
        if not events:
            self._everything += 1
            return
        for event in events:
            kind, _, action = event.type.partition(".")
            if kind == "customer" and action == "deleted":
                self._everything += 1
            else:
                self._generations[kind] += 1
