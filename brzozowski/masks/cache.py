"""The one bounded cache of the mask engine: the first stored out first, bounded by weight.

Every cache that outlives a call (an index's masks, its memos, a vocabulary's past-the-quote masks
and leaf tables) is a `BoundedCache`. Its entries are answers that never change (the automaton and
the vocabulary are immutable), so an eviction costs time, never correctness: whatever is evicted is
recomputed, the same, on its next request.

Eviction is first in, first out: a hit is one lookup in a plain dict (``get`` is the dict's own
method, no Python frame), where least-recently-used order would cost a reordering at every hit. An
entry still in use is recomputed at most once each time as much as the whole budget has been
stored after it, so the work FIFO adds is at most one computation per entry stored; the lazy DFA
caches of RE2 and regex-automata go further and clear everything when full. The cache holds no
lock: an owner that shares it between threads holds its own around each call (a lone ``get``
tolerates a concurrent eviction).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from operator import attrgetter

__all__ = ["BY_NBYTES", "BoundedCache"]

BY_NBYTES: Callable[[object], int] = attrgetter("nbytes")
"""The weight of a cache of arrays (masks): an entry's bytes (a C call: no Python frame per store)."""

_ABSENT = object()  # (`put`: no entry was stored under the key)


class BoundedCache:
    """Values by key, the sum of their weights (``weigh(value)``, else 1 each) at most `budget`.

    ``get(key, default=None)`` looks a key up; `put` stores (a key stored again is stored anew, last
    out). A value heavier than the whole budget is not kept. ``currsize`` is the weight held."""

    __slots__ = ("budget", "currsize", "get", "_entries", "_weigh")

    def __init__(self, budget: int, weigh: Callable[[object], int] | None = None) -> None:
        self.budget = budget
        self.currsize = 0
        self._weigh = weigh
        self._entries: dict = {}
        self.get = self._entries.get  # (the dict's own method: the one dict lives as long as the cache)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries

    def __iter__(self):
        """The keys, first stored first (a snapshot: safe while the cache changes)."""
        return iter(list(self._entries))

    def __getitem__(self, key: Hashable) -> object:
        """The value of `key` (`KeyError` if not kept)."""
        return self._entries[key]

    def put(self, key: Hashable, value: object) -> object:
        """Keep `value` under `key` (evicting the first stored past the budget); returns it."""
        entries = self._entries
        old = entries.pop(key, _ABSENT)
        if self._weigh is None:  # each entry weighs 1: the budget is a count
            if self.budget < 1:
                return value
            while len(entries) >= self.budget:
                del entries[next(iter(entries))]
            entries[key] = value
            self.currsize = len(entries)
            return value
        if old is not _ABSENT:
            self.currsize -= self._weigh(old)
        weight = self._weigh(value)
        if weight > self.budget:
            return value
        self.currsize += weight
        while self.currsize > self.budget and entries:
            self.currsize -= self._weigh(entries.pop(next(iter(entries))))
        entries[key] = value
        return value

    def clear(self) -> None:
        self._entries.clear()  # (the same dict: ``get`` stays bound to it)
        self.currsize = 0
