"""Leaves: a language many schemas share, as one process-wide automaton whose states are atoms.

The strings of a ``format`` (``"uri"``, ``"hostname"``, ``"date-time"``…) are one language in every
schema that names the format, and a large one: every spelling of every character, raw or escaped
(`brzozowski.json.formats`), 100-8,000 automaton states. Written as a plain term inside each
schema, every automaton that reads such a string derives that term again, state by state, and
numbers its states anew (a hostname's first mask created ~240 states). A *leaf* writes
it once: an atom of the term algebra (`brzozowski.core.terms.leaf`) that stands for a state of one
process-wide `LeafAutomaton`; the derivative of the atom of state q by byte b is the atom of
δ(q, b), read off the automaton's transitions, which every schema shares. A plain format's
automaton is its canonical DFA, shipped with the package (`brzozowski.json.format_tables.format_leaf`,
`brzozowski.json.format_tables`: no derivative is ever taken inside it); a format under a length
bound or a pattern is a lazy DFA over the intersection of those with the plain format's atom
(`shared_leaf`: the format's own term is never built); so are the integers and the numbers
without keywords (`brzozowski.json.leaf_terms`); bounded integers are each a table built from their
bounds (`table_leaf`, `brzozowski.json.numbers.integer_table`). Masks read such atoms too: per
vocabulary and leaf state, what each token does inside the string is a table shared by every
schema (`brzozowski.json.leaf_masks`).

Invariant. ``leaf(A, q)`` has exactly the language of A's state q (the term A's lazy DFA holds
for it, or that of the state of the format's canonical DFA, whose language is the format's term's:
a test rebuilds every shipped table): its derivative by b is the atom of δ(q, b), ∅ for DEAD and
ε for a state whose language is {ε} (a string's closing quote read), and its derivative classes
are the state's. A's states have non-empty languages (a lazy DFA sends empty derivatives to DEAD,
a canonical DFA has no dead state), so an atom holds no empty language, as a term without ``&``
or ``~`` must not. A term with atoms in it therefore has the language it has with their terms in
their place: every automaton over it, explored and minimized, gives the same canonical tables.

Atoms are interned like every term, by (automaton, state), and die when nothing holds them; a lazy
automaton keeps its states' terms and transitions for as long as the process-wide cache keeps it
(`LEAF_CACHE` automata, least recently used first out; an atom holds its automaton, so one in use
outlives its eviction); a format's table is kept for the life of the process (one per format).

>>> from brzozowski.core.derivatives import derivative_of_string, matches
>>> from brzozowski.json.leaf_terms import json_string_term
>>> date = json_string_term(format="date")
>>> date.kind == K_LEAF, matches(date, b'"2024-02-29"'), matches(date, b'"2023-02-29"')
(True, True, False)
>>> derivative_of_string(date, b'"2024-') is derivative_of_string(json_string_term(format="date"), b'"2024-')
True
>>> date.table.name, json_string_term(format="email", max_length=20).table.name
('date', '')
"""

from __future__ import annotations

import itertools
import threading

import cachetools
import numpy as np

from ..core.alphabet import DEAD, partition_of
from .codes import ClassTable, TransitionTable
from ..core.derivatives import alphabet_classes, derivative_classes
from .dfa import DFA
from .lazy import LazyDFA
from ..core.terms import EMPTY, EPSILON, K_LEAF, Term, leaf

__all__ = ["LEAF_CACHE", "FormatTable", "LeafAutomaton", "shared_leaf", "table_leaf"]

LEAF_CACHE = 256
"""How many lazy leaf automata the process keeps (one per distinct term: a format under a length
bound or a pattern; a plain format's shipped table is kept apart, one per format)."""

_IDS = itertools.count()


class FormatTable:
    """A DFA stored by byte class (a format's shipped canonical DFA, `brzozowski.json.format_tables`,
    an integer range's): each byte's class, the transitions per class (DEAD = -1) and the accepting
    states; start 0. What `LeafAutomaton` reads (a row of 256 transitions on demand: no table of
    every state is built)."""

    start = 0

    def __init__(self, classes: np.ndarray, columns: np.ndarray, accept: np.ndarray,
                 lengths: tuple[int, int | None] = (0, None)) -> None:
        self.classes, self.columns, self.accept = classes, columns, accept
        self.fewest, self.most = lengths
        """The fewest and most characters of the format's strings (most None: no limit), as
        a format's definition gives them."""
        self.n_states = len(accept)
        for array in (classes, columns, accept):
            array.setflags(write=False)

    def row(self, state: int) -> np.ndarray:
        """The 256 transitions of `state` (int32, DEAD = -1)."""
        return self.columns[state].take(self.classes).astype(np.int32)

    def next_state(self, state: int, b: int) -> int:
        return int(self.columns[state, self.classes[b]])

    def is_accepting(self, state: int) -> bool:
        return bool(self.accept[state])

    def to_dfa(self) -> DFA:
        """The whole table as a `brzozowski.automata.dfa.DFA` (256 columns per state)."""
        return DFA(self.accept, self.columns.astype(np.int32)[:, self.classes])


class LeafAutomaton:
    """A DFA shared by the whole process whose states are handed out as atoms of the term algebra
    (see the module docstring): a lazy DFA over a term, or a format's shipped canonical DFA
    (`FormatTable`: a format's, `brzozowski.json.format_tables`; `name` then says which, for printing).
    `live_bytes`: over a table, the bytes that lead somewhere from some state; None over a term."""

    def __init__(self, term: Term | None = None, table: FormatTable | None = None, name: str = "") -> None:
        self.id = next(_IDS)
        self.name = name
        self._first: dict[int, int] = {}  # per state: the bytes that lead somewhere
        self._lock = threading.Lock()
        self._table_lock = threading.Lock()
        self._codes: TransitionTable | ClassTable | None = None
        self._closes_once: bool | None = None
        self._ending: np.ndarray | None = None  # see ending: computed when first needed
        if table is None:
            assert term is not None
            self.dfa: LazyDFA | FormatTable = LazyDFA(term)
            self.alphabet = alphabet_classes(term)
            self._checked = 0  # states 0.._checked - 1 do not accept, or have the language {ε}
            self._accepting = np.zeros(1, dtype=bool)  # see accepting_codes
            self._closed: int | None = None
            self.live_bytes: int | None = None
        else:
            self.dfa = table
            bits = [0] * (int(table.classes.max()) + 1)
            for b, k in enumerate(table.classes.tolist()):
                bits[k] |= 1 << b
            self._class_bits = bits  # per class of the table: its bytes
            self.alphabet = partition_of(bits)
            leads = (table.columns != DEAD).any(axis=0).tolist()
            self.live_bytes = sum(bits[k] for k in range(len(bits)) if leads[k])
            self._accepting = np.concatenate(([False], table.accept))
            self._accepting.setflags(write=False)
            accepting = np.flatnonzero(table.accept)
            closed = accepting[(table.columns[accepting] == DEAD).all(axis=1)].tolist()
            self._closed = closed[0] if closed else None
            self._closes_once = len(closed) == len(accepting)

    @property
    def lock(self) -> threading.Lock:
        """Held while the vocabulary tables read the automaton through `codes_table`."""
        return self._table_lock

    def codes_table(self) -> TransitionTable | ClassTable:
        """The automaton's transitions as codes (`brzozowski.automata.codes`): for a lazy DFA,
        filled as tables of `brzozowski.json.leaf_masks` read them, one table for every vocabulary
        and state, so a transition is copied once (use under `lock`); for a format's table, over
        its byte classes, built at once."""
        if self._codes is None:
            dfa = self.dfa
            self._codes = (TransitionTable(dfa) if isinstance(dfa, LazyDFA)
                           else ClassTable(dfa.classes, dfa.columns))
        return self._codes

    def term_of(self, state: int) -> Term:
        """The term whose language `state` stands for (an automaton over a term only)."""
        return self.dfa.term(state)  # type: ignore[union-attr]

    def describe(self, state: int) -> Term | str:
        """What prints for the atom of `state`: its term, or the format and state of a table."""
        if isinstance(self.dfa, LazyDFA):
            return self.dfa.term(state)
        return f"⟨{self.name}:{state}⟩"

    def classes(self, state: int) -> tuple[int, ...]:
        """The derivative classes of the atom of `state` (bytes that lead to one state)."""
        if isinstance(self.dfa, LazyDFA):
            return derivative_classes(self.dfa.term(state))
        groups: dict[int, int] = {}
        for bits, target in zip(self._class_bits, self.dfa.columns[state].tolist()):
            groups[target] = groups.get(target, 0) | bits
        return partition_of(list(groups.values()))

    def ending(self, state: int) -> tuple[int, int] | None:
        """Over a table: (the fewest bytes that take `state` to an accepting state, the most of
        those fewest over every state that can reach one: a bound for every state `state`
        reaches); None over a term or for a state that accepts nothing."""
        if isinstance(self.dfa, LazyDFA):
            return None
        if self._ending is None:
            self._ending = _distances_to_end(self.dfa)
        fewest = int(self._ending[state])
        return None if fewest < 0 else (fewest, int(self._ending.max()))

    def atom(self, state: int) -> Term:
        """The atom of `state`: ∅ for DEAD, ε for a state whose language is {ε}, else a leaf."""
        if state == DEAD:
            return EMPTY
        dfa = self.dfa
        first = self._first.get(state)
        if first is None:
            if not isinstance(dfa, LazyDFA):  # a table: the bytes of the classes that lead somewhere
                first = sum(bits for bits, target in zip(self._class_bits, dfa.columns[state].tolist())
                            if target != DEAD)
            elif not dfa.term(state).boolean:
                first = dfa.term(state).first
            else:  # a term whose `first` may hold more under & and ~: the transitions
                row = dfa.row(state).tolist()
                first = sum(1 << b for b in range(256) if row[b] != DEAD)
            self._first[state] = first
        nullable = bool(dfa.is_accepting(state))
        if nullable and not first:  # the language {ε}: a string's closing quote read
            return EPSILON
        return leaf(self, state, nullable, first, self.alphabet)

    def closed_state(self) -> int | None:
        """The state whose language is {ε} (numbered now over a term if the lazy DFA has not met
        it: it only changes the order of discovery), or None if there is none."""
        if isinstance(self.dfa, LazyDFA):
            return self.dfa.state_of(EPSILON)
        return self._closed

    def closes_once(self) -> bool:
        """Whether every state found so far that accepts has the language {ε} (a JSON string's
        closing quote read): then a word of the language is never a proper prefix of another, and
        a token's bytes leave it exactly where the automaton reaches that state."""
        if self._closes_once is not None:
            return self._closes_once
        with self._lock:
            dfa = self.dfa
            while self._checked < dfa.n_states:
                term = dfa.term(self._checked)
                if term.nullable and term is not EPSILON:
                    return False
                self._checked += 1
            return True

    def accepting_codes(self) -> np.ndarray:
        """Whether each state found so far accepts, indexed by its code in `codes_table` shifted
        right by the table's ``shift``: entry 0 (DEAD) is False, entry s + 1 is state s's."""
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


def _distances_to_end(table: FormatTable) -> np.ndarray:
    """Per state of `table`: the fewest bytes to an accepting state (-1: none), level by level
    backwards from the accepting states."""
    targets = table.columns  # state x class -> state (DEAD: -1)
    live = targets != DEAD
    reached = table.accept.astype(bool)
    distance = np.where(reached, 0, -1)
    level = 0
    while True:
        level += 1
        leads = (live & reached[np.where(live, targets, 0)]).any(axis=1) & ~reached
        if not leads.any():
            return distance
        distance[leads] = level
        reached |= leads


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


def table_leaf(table: FormatTable, name: str) -> Term:
    """The atom of the start state of a new `LeafAutomaton` over `table`, a DFA the caller built
    and keeps the atom of for as long as it shares it (an integer range's, `brzozowski.json.leaf_terms`);
    `name` prints in its atoms."""
    return LeafAutomaton(table=table, name=name).atom(table.start)
