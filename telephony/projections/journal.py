"""The journal of document changes: what each commit did to the documents' ordered properties.

Document tables record a `Change` for each document they put, patch or remove (a patch that moves
no ordered property with the same values before and after: pages kept by rank hold its body),
inside the writer's transaction. The writer marks the journal before each request and rolls it back
with a request that fails, so only what was committed is published, tagged with the log position
the commit ended at. A reader takes what was published up to the position its own snapshot
shows (`Ranks`), so what it keeps in memory and what it reads always describe the same documents.

A commit of more than `LIMIT` changes (a bulk load) keeps none of them and publishes only that it
overflowed; so does a backlog nobody took. Its reader then forgets what it built.
"""

from __future__ import annotations

import threading
from typing import Any

import msgspec

LIMIT = 20_000


class Change(msgspec.Struct, frozen=True):
    """A document's ordered properties before and after (None: it did not exist / no longer does);
    `whole`: the kind's documents of that customer changed beyond description (cleared)."""

    kind: str
    customer_id: int
    id: Any = None
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    whole: bool = False


class Journal:
    def __init__(self) -> None:
        self._pending: list[Change] = []
        self._overflowed = False
        self._lock = threading.Lock()
        self._published: list[tuple[int, list[Change]]] = []
        """(position, changes) of each commit not taken yet, in order."""
        self._backlog = 0
        self._head = -1
        """The position of the last commit published: readers of a later snapshot must wait for it."""
        self._lost_until = 0
        """The position up to which some changes were not kept: takers must forget what they built."""

    def record(self, change: Change) -> None:
        """A change inside the writer's transaction (writer thread)."""
        if not self._overflowed:
            self._pending.append(change)
            if len(self._pending) > LIMIT:
                self._pending.clear()
                self._overflowed = True

    def mark(self) -> int:
        return -1 if self._overflowed else len(self._pending)

    def rollback(self, mark: int) -> None:
        """Forget what was recorded since `mark` (0: the whole transaction)."""
        if mark >= 0:
            del self._pending[mark:]
        if mark == 0:
            self._overflowed = False

    def publish(self, position: int) -> None:
        """The transaction committed at `position`: its changes are for the readers now. The writer
        publishes its starting head too, before any commit."""
        pending, overflowed = self._pending, self._overflowed
        self._pending, self._overflowed = [], False
        with self._lock:
            self._head = max(self._head, position)
            if overflowed or self._backlog + len(pending) > LIMIT:
                self._published.clear()
                self._backlog = 0
                self._lost_until = position
            elif pending:
                self._published.append((position, pending))
                self._backlog += len(pending)

    def take(self, until: int) -> tuple[list[Change], bool] | None:
        """The changes committed up to position `until` and not taken yet, and whether some changes
        were lost (then the caller forgets everything it built, and builds it again from its snapshot;
        a loss past `until` is reported again until a snapshot has reached it). None while the commit
        at `until` is not published yet (a moment after its COMMIT): nothing is taken then."""
        with self._lock:
            if until > self._head:
                return None
            lost = self._lost_until > 0
            if lost and self._lost_until <= until:
                self._lost_until = 0
            count = 0
            while count < len(self._published) and self._published[count][0] <= until:
                count += 1
            taken, self._published[:count] = self._published[:count], []
            changes = [change for _, batch in taken for change in batch]
            self._backlog -= len(changes)
        return changes, lost
