"""The one bounded cache of the mask engine: least recently used out first, bounded by weight.

Every cache that outlives a call (an index's masks, its memos, a vocabulary's past-the-quote masks
and leaf tables) is a `BoundedCache`. Its entries are answers that never change (the automaton and
the vocabulary are immutable), so an eviction costs time, never correctness: whatever is evicted is
recomputed, the same, on its next request. The cache holds no lock: an owner that shares it between
threads holds its own around each call (a lone ``get`` tolerates a concurrent eviction).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from operator import attrgetter

__all__ = ["BY_NBYTES", "BoundedCache"]

BY_NBYTES: Callable[[object], int] = attrgetter("nbytes")
"""The weight of a cache of arrays (masks): an entry's bytes (a C call: no Python frame per store)."""


class BoundedCache:
    """Values by key, the sum of their weights (``weigh(value)``, else 1 each) at most `budget`.

    A value heavier than the whole budget is not kept. ``currsize`` is the weight held."""

    __slots__ = ("budget", "currsize", "_entries", "_weigh")

    def __init__(self, budget: int, weigh: Callable[[object], int] | None = None) -> None:
        self.budget = budget
        self.currsize = 0
        self._weigh = weigh
        self._entries: OrderedDict = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries

    def __iter__(self):
        """The keys, least recently used first (a snapshot: safe while the cache changes)."""
        return iter(list(self._entries))

    def __getitem__(self, key: Hashable) -> object:
        """The value of `key` (`KeyError` if not kept), not counted as a use."""
        return self._entries[key]

    def get(self, key: Hashable, default: object = None) -> object:
        """The value of `key` (now the most recently used), or `default`."""
        entries = self._entries
        found = entries.get(key, default)
        if found is not default:
            try:
                entries.move_to_end(key)
            except KeyError:  # (evicted meanwhile by another thread: the value is still right)
                pass
        return found

    def put(self, key: Hashable, value: object) -> object:
        """Keep `value` under `key` (evicting the least recently used past the budget); returns it."""
        entries = self._entries
        if self._weigh is None:  # each entry weighs 1: the budget is a count
            if key in entries:
                entries.move_to_end(key)
            elif self.budget < 1:
                return value
            else:
                while len(entries) >= self.budget:
                    entries.popitem(last=False)
            entries[key] = value
            self.currsize = len(entries)
            return value
        weight = self._weigh(value)
        old = entries.pop(key, None)
        if old is not None:
            self.currsize -= self._weigh(old)
        if weight > self.budget:
            return value
        self.currsize += weight
        while self.currsize > self.budget and entries:
            self.currsize -= self._weigh(entries.popitem(last=False)[1])
        entries[key] = value
        return value

    def clear(self) -> None:
        self._entries.clear()
        self.currsize = 0
