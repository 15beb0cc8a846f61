"""Past the closing quote: which tokens that reach past a string's end live on from what follows it.

A token that closes a string (a JSON string, a format's, a plain key) on its prefix p lives iff its
rest after the quote lives from the state after the string. The rests of every token after each
quote it holds form one small per-vocabulary trie (`brzozowski.json.string_masks.quote_suffixes`):
`PastTheQuote.live_rests` walks it once per after-state (the core's walk in Python, kept per
index; the walk of each option of a term alone is kept too: a key is followed by the same value
options in every key state of an object, only what follows the value differs), and
`PastTheQuote.mask` turns a table's ``past_tokens`` into the mask of those whose rest lives, kept
per vocabulary for each set of live rests (every string the same bytes may follow, in any schema,
shares it), so a state's mask is its table's ``inside`` OR it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...core.terms import Term
from ...masks.cache import BY_NBYTES, BoundedCache
from ...masks.tokenset import Form, packed_ids
from ..string_masks import StringTables, kept_in_cache, quote_suffixes

__all__ = ["PastTheQuote"]


class PastTheQuote:
    """The past-the-quote masks of one index (its memo of live rests per after-state)."""

    def __init__(self, walker) -> None:
        self.walker = walker
        self.rests = BoundedCache(walker.tuning.index_memo_entries)  # after-state -> (rests, key)
        self.alone = BoundedCache(walker.tuning.index_memo_entries)  # (node, option) -> its walk alone

    def live_rests(self, after: int | Term) -> tuple[np.ndarray, bytes]:
        """Per node of the vocabulary's `quote_suffixes` trie: whether its bytes lead from `after`
        to a live state (kept per state), and the same as bytes (a key many states share)."""
        found = self.rests.get(after)
        if found is None:
            labels, child_lo, child_count = quote_suffixes(self.walker.trie)[:3]
            walker = self.walker
            if after.__class__ is Term:  # a value's options walked once (`alone`), whatever follows them
                live = [0, *walker.read_below(labels, child_lo, child_count, 0, after, alone=self.alone)]
            else:  # (a number: walked)
                live = [0, *walker.below(labels, child_lo, child_count, 0, after)]
            rests = np.zeros(len(labels), dtype=bool)
            rests[live] = True
            rests.setflags(write=False)
            found = self.rests.put(after, (rests, rests.tobytes()))
        return found

    def mask(self, tables: StringTables, which: tuple, after: int | Term, form: Form,
             allowed: Callable[[], np.ndarray] | None = None, allowed_key: tuple = ()) -> np.ndarray:
        """The tokens of ``tables.past_tokens`` (`which` names the tables) whose rest after the
        quote lives from `after`, at a closing node where ``allowed()`` holds if given
        (`allowed_key` says which nodes those are): a read-only mask in `form`, shared."""
        rests, rests_key = self.live_rests(after)
        size = self.walker.trie.vocab_size

        def build() -> np.ndarray:
            keep = rests[tables.past_rest]
            if allowed is not None:
                keep &= allowed()[tables.past_closing]
            tokens = tables.past_tokens[keep]
            if form is Form.PACKED:
                return packed_ids(tokens, size)
            mask = np.zeros(size, dtype=bool)
            mask[tokens] = True
            mask.setflags(write=False)
            return mask

        return kept_in_cache(self.walker.trie, "past-the-quote", self.walker.tuning.past_masks_bytes,
                             (which, rests_key, allowed_key, form is Form.PACKED), build, BY_NBYTES)

