"""Leaves: a language many schemas share, as one process-wide lazy automaton whose states are atoms.

The strings of a ``format`` (``"uri"``, ``"hostname"``, ``"date-time"``…) are one language in every
schema that names the format, and a large one: every spelling of every character, raw or escaped
(`brzozowski.json_formats`), 100-8,000 automaton states. Written as a plain term inside each
schema, every automaton that reads such a string derives that term again, state by state, and
numbers its states anew (a hostname's first mask created ~240 states, 15 ms). A *leaf* writes
it once: `shared_leaf(term)` gives an atom of the term algebra (`brzozowski.terms.leaf`) that
stands for the start state of one process-wide `LeafAutomaton` over `term`; the derivative of
the atom of state q by byte b is the atom of δ(q, b), read off the automaton's transitions, which
every schema shares. Masks read such atoms too: per vocabulary and leaf state, what each token does
inside the string is a table shared by every schema (`brzozowski.masks`).

Invariant. ``leaf(A, q)`` has exactly the language of A's state q, the term A's lazy DFA holds
for it: its derivative by b is the atom of δ(q, b), ∅ for DEAD and ε for a state whose language
is {ε} (a string's closing quote read), and its derivative classes are the state's. A's states
have non-empty languages (its lazy DFA sends empty derivatives to DEAD), so an atom holds no
empty language, as a term without ``&`` or ``~`` must not. A term with atoms in it therefore has
the language it has with their terms in their place: every automaton over it, explored and
minimized, gives the same canonical tables.

Atoms are interned like every term, by (automaton, state), and die when nothing holds them; the
automaton keeps its states' terms and transitions for as long as the process-wide cache keeps it
(`LEAF_CACHE` automata, least recently used first out; an atom holds its automaton, so one in use
outlives its eviction).

>>> from brzozowski.derivatives import derivative_of_string, matches
>>> from brzozowski.json_leaves import json_string_term
>>> date = json_string_term(format="date")
>>> date.kind == K_LEAF, matches(date, b'"2024-02-29"'), matches(date, b'"2023-02-29"')
(True, True, False)
>>> derivative_of_string(date, b'"2024-') is derivative_of_string(json_string_term(format="date"), b'"2024-')
True
"""

from __future__ import annotations

import itertools
import threading

import cachetools
import numpy as np

from .alphabet import DEAD
from .codes import TransitionTable
from .derivatives import alphabet_classes
from .lazy import LazyDFA
from .terms import EMPTY, EPSILON, K_LEAF, Term, leaf

__all__ = ["LEAF_CACHE", "LeafAutomaton", "shared_leaf"]

LEAF_CACHE = 256
"""How many leaf automata the process keeps (one per distinct format term: a format, with or
without length bounds or a pattern)."""

_IDS = itertools.count()


class LeafAutomaton:
    """A lazy DFA over one term, shared by the whole process, whose states are handed out as
    atoms of the term algebra (see the module docstring)."""

    def __init__(self, term: Term) -> None:
        self.id = next(_IDS)
        self.dfa = LazyDFA(term)
        self.alphabet = alphabet_classes(term)
        self._first: dict[int, int] = {}  # per state: the bytes that lead somewhere
        self._checked = 0  # states 0.._checked - 1 do not accept, or have the language {ε}
        self._accepting = np.zeros(1, dtype=bool)  # see accepting_codes
        self._lock = threading.Lock()
        self._table_lock = threading.Lock()
        self._codes: TransitionTable | None = None

    @property
    def lock(self) -> threading.Lock:
        """Held while the vocabulary tables read the automaton through `codes_table`."""
        return self._table_lock

    def codes_table(self) -> TransitionTable:
        """The automaton's transitions as codes (`brzozowski.codes`), rows filled as tables of
        `brzozowski.leaf_masks` meet their states: one table for every vocabulary and state, so a
        row is copied once (use under `lock`)."""
        if self._codes is None:
            self._codes = TransitionTable(self.dfa)
        return self._codes

    def term_of(self, state: int) -> Term:
        """The term whose language `state` stands for."""
        return self.dfa.term(state)

    def atom(self, state: int) -> Term:
        """The atom of `state`: ∅ for DEAD, ε for a state whose language is {ε}, else a leaf."""
        if state == DEAD:
            return EMPTY
        term = self.dfa.term(state)
        if term is EPSILON:
            return EPSILON
        first = self._first.get(state)
        if first is None:
            if term.boolean:  # `first` may hold more under & and ~: ask the transitions
                row = self.dfa.row(state).tolist()
                first = sum(1 << b for b in range(256) if row[b] != DEAD)
            else:
                first = term.first
            self._first[state] = first
        return leaf(self, state, term.nullable, first, self.alphabet)

    def closes_once(self) -> bool:
        """Whether every state found so far that accepts has the language {ε} (a JSON string's
        closing quote read): then a word of the language is never a proper prefix of another, and
        a token's bytes leave it exactly where the automaton reaches that state."""
        with self._lock:
            dfa = self.dfa
            while self._checked < dfa.n_states:
                term = dfa.term(self._checked)
                if term.nullable and term is not EPSILON:
                    return False
                self._checked += 1
            return True

    def accepting_codes(self) -> np.ndarray:
        """Whether each state found so far accepts, indexed by its code
        (`brzozowski.codes`) >> 8: entry 0 (DEAD) is False, entry s + 1 is state s's."""
        with self._lock:
            dfa = self.dfa
            known = self._accepting
            if len(known) <= dfa.n_states:
                grown = np.zeros(dfa.n_states + 1, dtype=bool)
                grown[: len(known)] = known
                for state in range(len(known) - 1, dfa.n_states):
                    grown[state + 1] = dfa.is_accepting(state)
                grown.setflags(write=False)
                self._accepting = known = grown
            return known

    def derive(self, state: int, b: int) -> Term:
        """The derivative of the atom of `state` by byte `b`."""
        return self.atom(self.dfa.next_state(state, b))


_AUTOMATA: cachetools.LRUCache = cachetools.LRUCache(maxsize=LEAF_CACHE)
_LOCK = threading.Lock()


def shared_leaf(term: Term) -> Term:
    """The atom of the start state of the process's `LeafAutomaton` over `term` (made on first
    use); `term` itself if it is ∅ or ε (nothing to share)."""
    if term is EMPTY or term is EPSILON or term.kind == K_LEAF:
        return term
    with _LOCK:
        automaton = _AUTOMATA.get(term)
        if automaton is None:
            automaton = _AUTOMATA[term] = LeafAutomaton(term)
    return automaton.atom(automaton.dfa.start)
