"""A pattern's pass over a vocabulary's trie, kept for every index of that vocabulary.

Claim: the pass of a pattern X (`Walked`: X's state after every token, and the tokens ``X "Σ*``
allows) depends on the vocabulary and on X alone: not on the schema X came from, nor on what
follows its string. So the passes are kept per vocabulary trie (`pattern_passes`, one store per
state budget, limits and tuning), and every index over the trie shares them: a process that
compiles many schemas meets the same patterns again, and a pass is the largest part of a counted
string's first mask (`brzozowski.json.masks.counted`).

The patterns met share one lazy automaton, its states numbered as met; a `Walked` holds the
automaton its states are numbered in. Past ``Tuning.shared_pattern_states`` states a fresh
automaton takes over, with no passes kept: the process holds at most that many such states. A
pattern over the state budget in an automaton that holds other patterns' states is passed again in
a fresh one, so a pattern is refused (None) only when it alone is over the budget, as it was with
an automaton of its own. One lock per store: a pass fills rows of the shared table.
"""

from __future__ import annotations

import threading
from typing import NamedTuple

import numpy as np

from ...automata.codes import TransitionTable
from ...automata.lazy import LazyDFA
from ...budget import Limits
from ...core.terms import Term
from ...errors import StateBudgetError
from ...masks.cache import BY_NBYTES, BoundedCache
from ...masks.tuning import Tuning
from ...vocab.vocabulary import VocabTrie, distinct
from ..string_masks import codes_from, quote_suffixes

__all__ = ["PatternPasses", "Walked", "pattern_passes"]


class Walked(NamedTuple):
    """One pass of a pattern X's automaton over the trie (`PatternPasses.walked`)."""

    after: np.ndarray
    """Per token: 1 + the state X reaches after it (0: X refuses it), ..."""
    automaton: LazyDFA
    """... a state of this automaton."""
    allowed: np.ndarray
    """Per token: whether ``X "Σ*`` allows it."""

    @property
    def nbytes(self) -> int:
        """The weight of a pass in `PatternPasses`'s cache."""
        return self.after.nbytes + self.allowed.nbytes


class PatternPasses:
    """The passes of the patterns met over one trie (see the module docstring)."""

    def __init__(self, trie: VocabTrie, max_states: int, limits: Limits, tuning: Tuning) -> None:
        self.trie, self.max_states, self.limits, self.tuning = trie, max_states, limits, tuning
        self.lock = threading.Lock()
        self.walks = BoundedCache(tuning.shared_pattern_bytes, BY_NBYTES)  # X -> Walked
        self.table: TransitionTable | None = None  # over the automaton of the patterns met

    def walked(self, pattern: Term) -> Walked | None:
        """The pass of `pattern`, kept; None if `pattern` alone is over the state budget."""
        with self.lock:
            found = self.walks.get(pattern)
            if found is not None:
                return found
            if self.table is not None and self.table.automaton.n_states > self.tuning.shared_pattern_states:
                self.table = None
            fresh = self.table is None
            try:
                found = self._pass(pattern)
            except StateBudgetError:
                if fresh:
                    return None
                self.table = None  # (the budget went on other patterns' states: once more, alone)
                try:
                    found = self._pass(pattern)
                except StateBudgetError:
                    return None
            return self.walks.put(pattern, found)

    def _pass(self, pattern: Term) -> Walked:
        """One pass of the automaton over the trie from the state of `pattern`. The tokens
        ``X "Σ*`` allows need no walk of their own: a token lives iff X lives after it, or X
        accepts just before one of its quotes (then anything may follow; `quote_suffixes` lists
        every quote of every token). Starts a fresh automaton, from `pattern`, if there is none.
        """
        if self.table is None:  # a fresh automaton, from `pattern`: no pass kept was numbered in it
            self.walks.clear()
            self.table = TransitionTable(LazyDFA(pattern, max_states=self.max_states, limits=self.limits))
        table, trie = self.table, self.trie
        automaton = table.automaton
        codes = codes_from(trie, table, automaton.state_of(pattern), tuning=self.tuning)
        after = (codes.take(trie.token_node) >> table.shift).astype(np.int32)
        quotes = quote_suffixes(trie)
        before = codes.take(trie.parent.take(quotes.quote_node)) >> table.shift  # (1 + X's state)
        states, keys = distinct(before)
        accepts = np.array([s > 0 and automaton.is_accepting(s - 1) for s in states.tolist()], dtype=bool)
        allowed = after > 0
        allowed[quotes.quote_token[accepts[keys]]] = True
        for array in (after, allowed):
            array.setflags(write=False)
        return Walked(after, automaton, allowed)


def pattern_passes(trie: VocabTrie, max_states: int, limits: Limits, tuning: Tuning) -> PatternPasses:
    """The store of pattern passes over `trie` for this state budget, limits and tuning (made on
    first use, kept on the trie)."""
    key = (PatternPasses, max_states, limits, tuning)
    return trie.kept(key, lambda: PatternPasses(trie, max_states, limits, tuning))
