"""Blocks: how many keys of an ordering lie between fences, so a rank is found without walking to it.

An ordering's keys live in an SQLite index; this keeps only every few dozenth of them (the fences)
and the count of keys from each fence to the next. The first block starts before every key (its
fence is `()`, less than any key). Then the rank of a key is the count of the blocks before its own
plus a short walk inside that block, and the key at a rank is a short walk from a fence: never a
walk from the start of the index.

Blocks are grouped in chunks of at most `CHUNK`, each with its total, so a prefix sum adds a few
hundred numbers at most whatever the size; the running sums are kept until a count they cover
changes. Adding or removing a key changes one block's count; a
block that grows past twice its size is split by the reader that meets it (`Ranks`), which can walk
the index to the new fence. A block emptied by removals goes, unless it is the first.

Blocks by which a page was kept (`kept`) also remember the least key added or removed since any
recent moment (`Moves`): the documents at ranks before it are where they were then, which is what
lets such a page be served while later keys change.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from .ordering import Key

CHUNK = 256
MOVES = 1024
"""How many changes back `Moves` can tell about (at least)."""
START: Key = ()
"""The first fence: before every key."""


class Blocks:
    def __init__(self, fences: list[Key], counts: list[int]) -> None:
        assert fences and fences[0] == START and len(fences) == len(counts)
        self._fences = [fences[i : i + CHUNK] for i in range(0, len(fences), CHUNK)]
        self._counts = [counts[i : i + CHUNK] for i in range(0, len(counts), CHUNK)]
        self._totals = [sum(chunk) for chunk in self._counts]
        self._firsts = [chunk[0] for chunk in self._fences]
        self.total = sum(self._totals)
        self.version = 0
        """Moves on with every change of a count or a fence, so a rank worked out before is known stale."""
        self.moves: Moves | None = None
        """Noted only once a page was kept by these blocks (`watched`): they cost nothing otherwise."""
        self._sums()

    def _sums(self, chunk: int | None = None) -> None:
        """Forget the running sums (of one chunk's counts, and of the chunk totals); reads make them again."""
        self._ends: list[int] | None = None
        if chunk is None:
            self._inner: list[list[int] | None] = [None] * len(self._counts)
        else:
            self._inner[chunk] = None

    def __len__(self) -> int:
        return sum(len(chunk) for chunk in self._fences)

    def _locate(self, key: Key) -> tuple[int, int]:
        chunk = bisect_right(self._firsts, key) - 1
        return chunk, bisect_right(self._fences[chunk], key) - 1

    def block_of(self, key: Key) -> tuple[Key, int, int]:
        """The block holding `key`: its fence, the count of keys before it, and its own count."""
        chunk, block = self._locate(key)
        ends, inner = self._ends_of(), self._inner_of(chunk)
        before = (ends[chunk - 1] if chunk else 0) + (inner[block - 1] if block else 0)
        return self._fences[chunk][block], before, self._counts[chunk][block]

    def _ends_of(self) -> list[int]:
        if self._ends is None:
            self._ends = list(accumulate(self._totals))
        return self._ends

    def _inner_of(self, chunk: int) -> list[int]:
        inner = self._inner[chunk]
        if inner is None:
            inner = self._inner[chunk] = list(accumulate(self._counts[chunk]))
        return inner

    def block_at(self, rank: int) -> tuple[Key, int, int]:
        """The block holding the key of `rank` (counted from 0; the last block for a rank past the end):
        its fence, the count of keys before it, and its own count."""
        ends = self._ends_of()
        chunk = min(bisect_right(ends, rank), len(ends) - 1)
        before = ends[chunk - 1] if chunk else 0
        inner = self._inner_of(chunk)
        block = min(bisect_right(inner, rank - before), len(inner) - 1)
        before += inner[block - 1] if block else 0
        return self._fences[chunk][block], before, self._counts[chunk][block]

    def add(self, key: Key) -> None:
        self._change(key, 1)

    def remove(self, key: Key) -> None:
        self._change(key, -1)

    def touch(self, key: Key) -> None:
        """A document changed at `key` (also where it is: no count moves): one of the `moves`, if watched."""
        if self.moves is not None:
            self.moves.note(key)

    def watched(self) -> Moves:
        """The keys changed from now on (`Moves`), noted from the first call on."""
        if self.moves is None:
            self.moves = Moves()
        return self.moves

    def _change(self, key: Key, by: int) -> None:
        chunk, block = self._locate(key)
        self.version += 1
        self.touch(key)
        counts = self._counts[chunk]
        counts[block] += by
        self._totals[chunk] += by
        self.total += by
        if counts[block] <= 0 and (chunk, block) != (0, 0):
            self._drop(chunk, block)
            self._sums()
        else:
            self._sums(chunk)

    def _drop(self, chunk: int, block: int) -> None:
        """An emptied block goes; its chunk too when it was the last block of it."""
        del self._fences[chunk][block], self._counts[chunk][block]
        if not self._fences[chunk]:
            del self._fences[chunk], self._counts[chunk], self._totals[chunk], self._firsts[chunk]
        elif block == 0:
            self._firsts[chunk] = self._fences[chunk][0]

    def split(self, fence: Key, at: Key, left: int) -> None:
        """The block of `fence` becomes two: `left` keys from `fence`, the rest from `at`."""
        chunk, block = self._locate(fence)
        assert self._fences[chunk][block] == fence and fence < at
        self.version += 1
        counts = self._counts[chunk]
        right = counts[block] - left
        counts[block] = left
        self._fences[chunk].insert(block + 1, at)
        counts.insert(block + 1, right)
        if len(counts) > CHUNK:
            half = len(counts) // 2
            self._fences.insert(chunk + 1, self._fences[chunk][half:])
            self._counts.insert(chunk + 1, counts[half:])
            del self._fences[chunk][half:], counts[half:]
            self._totals[chunk : chunk + 1] = [sum(counts), sum(self._counts[chunk + 1])]
            self._firsts.insert(chunk + 1, self._fences[chunk + 1][0])
        self._sums()

    def next_fence(self, fence: Key) -> Key | None:
        """The fence after `fence`'s, or None for the last block."""
        chunk, block = self._locate(fence)
        if block + 1 < len(self._fences[chunk]):
            return self._fences[chunk][block + 1]
        return self._firsts[chunk + 1] if chunk + 1 < len(self._firsts) else None


class Moves:
    """The keys added or removed, numbered: tells whether every one since a number lies after a bound.

    A stack of (number, key) with both increasing: a key pops every entry whose key is not below
    its own, as the least key changed since any number before theirs is now at most its own. So the
    least key changed since number n is that of the first entry numbered after n. Keys changed in
    order (appends) only push; the oldest entries then go, past `MOVES`, and a number from before
    them can no longer be answered for.
    """

    def __init__(self) -> None:
        self.number = 0
        """Of the latest change (0: none yet)."""
        self._numbers: list[int] = []
        self._keys: list[Key] = []
        self._forgotten = 0
        """The number of the latest entry dropped: numbers before it are not answered for."""

    def note(self, key: Key) -> None:
        self.number += 1
        numbers, keys = self._numbers, self._keys
        while keys and keys[-1] >= key:
            numbers.pop()
            keys.pop()
        numbers.append(self.number)
        keys.append(key)
        if len(keys) > 2 * MOVES:
            self._forgotten = numbers[MOVES - 1]
            del numbers[:MOVES], keys[:MOVES]

    def all_after(self, number: int, bound: Key | None) -> bool:
        """Whether every key changed since change `number` lies after `bound` (None: none was changed)."""
        if number == self.number:
            return True
        if number < self._forgotten or bound is None:
            return False
        return self._keys[bisect_right(self._numbers, number)] > bound
