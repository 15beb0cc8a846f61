"""The lazy DFA: states are terms, discovered and numbered on demand by taking derivatives.

The basic idea (as in RE2's DFA and regex-automata's hybrid engine, but with derivatives in place
of NFA state sets): a DFA state *is* the term describing what may still follow. The start state is
the pattern's term; the transition of state r on byte b is the state ``∂b r``. Nothing is built in
advance. The first time a transition is needed, its derivative is taken once for the byte's whole
derivative class (see `brzozowski.core.derivatives`) and stored per (state, class); a state met for the
first time gets the next number, and its classes when a transition from it is first asked for.

Invariants:

- State 0 is the start. States are numbered in order of discovery; `term(s)` is state s's term.
- No term with an empty language is a state: a transition to one is `DEAD` (-1), so every state
  is *live*: it accepts, or some byte leads to a state that does. Without intersection or
  complement the only such term is ∅ (an identity test); a term with them (``Term.boolean``) is
  tested with `is_empty`.
- A state accepts iff its term is nullable.
- At most `max_states` states are ever created; one more raises `StateBudgetError`, so a state
  explosion (``(a|b)*a(a|b){20}`` has 2²¹ states) is an error, not a hang.
- The work per state is bounded too: no state holds an alternation (at its top or anywhere inside:
  under a concatenation, an intersection, a complement; `Term.widest`) of more operands than
  `max_alternatives` or the pattern's own byte sets (whichever is larger; `positions`), else
  `StateBudgetError`. A derivative costs time in proportion to the operands it reads, and nested
  bounded repeats (``(.{0,100}){0,100}``) grow them without end (≈ 10,000 after 150 bytes) while
  the states stay few, so the state count alone would let one pattern run for minutes (a wide
  alternation under a complement or an intersection, ``~((.{0,100}){0,100})``, is never a state's
  top, hence `Term.widest`). So is every term `step` reads a token's bytes through.
- **Time.** Every state created, every state's row of transitions first computed (its targets may
  all exist already: exploring the last states of a large automaton adds none), and every term an
  emptiness search explores checks the current
  deadline (`brzozowski.budget.check_deadline`), as does a derivative that runs many rules
  (`brzozowski.core.derivatives`), never a byte read along a known transition or a memo: whoever
  opened a deadline bounds the work. `LazyDFA` of a pattern's text
  opens ``limits.compile_seconds`` around its parse and its emptiness test; a state created later,
  inside a mask step, falls under the deadline of that step (`brzozowski.masks.index.TokenIndex`
  opens ``mask_seconds``). Past it, `TimeBudgetError`.
- `step` numbers no state inside a token: its last bytes (`TERM_STEPS`) are read on terms and only
  the state at the end is numbered, the very state the transitions byte by byte lead to (the
  derivatives by two bytes of one class are one interned term; an alternation of words is read
  option by option, `brzozowski.core.derivatives.derivative_by_options`, and a concatenation through
  its head, `derivative_through_heads`, to the same term).
- **Threads.** One automaton may be shared by any number of threads. Every state and transition is
  created under the automaton's lock, and a thread that finds a transition unknown takes the lock
  and looks again, so each derivative is stored once; a state is counted in `n_states` only once
  its entries are in every list, its classes are seen only with its transitions (made together,
  under the lock); a transition never changes once computed; terms come from the
  thread-safe store of `brzozowski.core.terms`. Reads take no lock. So every thread sees the numbering
  a serial run would have produced for the same sequence of requests, and the canonical tables of
  `regex_to_dfa` do not depend on the threads at all.

>>> lazy = LazyDFA("(cat|car|dog)s?")
>>> lazy.step(lazy.start, b"car"), lazy.n_states      # only what was visited exists
(1, 2)
>>> lazy.is_accepting(1), lazy.step(1, b"x")
(True, -1)

`brzozowski.automata.dfa.regex_to_dfa` explores every state of a lazy DFA and turns it into canonical tables.
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Iterator

import numpy as np

from ..budget import DEFAULT_LIMITS, Limits, check_deadline, require_limits, within
from ..core.alphabet import DEAD, ByteClasses
from ..core.derivatives import (alphabet_classes, derivative, derivative_by_options, derivative_classes,
                          derivative_through_heads)
from ..errors import ArgumentError, EmptyLanguageError, InputTypeError, StateBudgetError, StateError
from ..core.syntax import parse
from .fewest import counted_not_empty
from ..core.terms import EMPTY, K_ALT, K_BYTES, K_COMPL, K_INTER, K_REPEAT, K_STAR, Term

__all__ = ["DEAD", "DEFAULT_MAX_ALTERNATIVES", "DEFAULT_MAX_STATES", "UNKNOWN", "LazyDFA", "bytes_argument",
           "is_empty", "positions", "shown_pattern", "state_argument"]

DEFAULT_MAX_STATES = 100_000
"""The default state budget. Real patterns (dates, e-mail addresses, tool-call JSON) need tens to a
few thousands; 100,000 states of 256 int32 transitions is 100 MiB of tables, about the most a
compiled constraint should hold. Pass ``max_states`` to raise or lower it."""

DEFAULT_MAX_ALTERNATIVES = 2_000
"""The default bound on the work per state: how many operands a state's alternation may have when
the pattern itself has fewer byte sets (`positions`). Real patterns stay under a few hundred (or
under their own size: an enum of 10,000 words has 10,000-operand states and is allowed them);
nested bounded repeats pass it within a few hundred bytes. Pass ``max_alternatives`` to raise it."""

UNKNOWN = -2
"""A transition not computed yet (in `LazyDFA.transitions`, for a class that was not needed)."""

TERM_STEPS = 128
"""`LazyDFA.step` reads at most the last this many bytes of its data on terms, numbering only the
state at the end (a token: o200k_base's longest is 128 bytes); bytes before them are read state by
state, each state counted against the state budget."""


_TERMS_PER_CHECK = 1024
"""`positions` checks the deadline once per this many terms counted: a schema's term holds hundreds
of thousands, and one check costs about as much as counting a few."""


def positions(term: Term) -> int:
    """How many byte sets the syntax tree of `term` holds, a repeat's body counted once (shared
    subterms counted at each use). Without repeats, no derivative is an alternation of more than
    ``positions + 1`` operands (one per partial derivative, Antimirov's bound).

    >>> from brzozowski.core.syntax import parse
    >>> positions(parse("ab|a")), positions(parse("(.{0,100}){0,100}"))
    (3, 1)
    """
    counts: dict[Term, int] = {}
    stack = [term]
    while stack:  # iterative post-order: terms may be 100,000 deep
        t = stack[-1]
        if t in counts:
            stack.pop()
            continue
        pending = [child for child in t.children if child not in counts]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        counts[t] = (t.kind == K_BYTES) + sum(counts[child] for child in t.children)
        if not len(counts) % _TERMS_PER_CHECK:
            check_deadline()
    return counts[term]


def is_empty(term: Term, max_states: int = DEFAULT_MAX_STATES, keep: list[Term] | None = None) -> bool:
    """Whether the language of `term` is empty.

    Exact. A term without intersection or complement answers at once (it is empty iff it is ∅).
    Otherwise the structure decides down to the intersections and complements inside (an
    alternation is empty iff every operand is, a concatenation iff some part is, a star never, a
    repeat iff its body is and at least one is needed), and only those are searched, over one
    derivative per derivative class, stopping at the first nullable (or intersection-free, non-∅)
    term: depth first within `QUICK_SEARCH` terms, then, if that decided nothing, breadth first.
    So a JSON schema whose string leaves intersect a pattern with a length searches those leaves,
    not the whole document's automaton. Every answer is memoized on its term (``Term.empty``):
    the sub-terms settled, every term a search explored when it found nothing, the path to what it
    found otherwise. A search's terms live only while it runs (memos are weak), unless `keep` is
    given: a list that gets the path's terms, for a caller that asks about them next (an
    automaton, about its states' derivatives along the path; only the path: a search's thousands
    of terms kept for good would cost every full garbage collection). A search of more than
    `max_states` terms raises `StateBudgetError`; each term explored checks the current deadline
    (`TimeBudgetError` past it).

    >>> from brzozowski.core.syntax import parse
    >>> is_empty(parse("a") & parse("b")), is_empty(parse("a*") & ~parse("a")), is_empty(EMPTY)
    (True, False, True)
    >>> is_empty(parse("(ab)*") & parse("(ba)*") & parse(".+"))
    True
    >>> is_empty(parse("x|y") + (parse("a") & parse("b")))
    True
    """
    if not term.boolean:
        return term is EMPTY
    todo = [term]
    while todo:  # post-order over the boolean sub-terms not settled yet (terms may be deep)
        t = todo[-1]
        if t.empty is not None:
            todo.pop()
            continue
        if t.kind == K_INTER or t.kind == K_COMPL:
            _search(t, max_states, keep)
            continue
        if t.kind == K_STAR or (t.kind == K_REPEAT and t.lo == 0) or (
                t.kind == K_ALT and not all(child.boolean for child in t.children)):
            t.empty = False  # ε, or an operand without & or ~ (so not ∅: alternations drop ∅)
            continue
        unsettled = [child for child in t.children if child.boolean and child.empty is None]
        if unsettled:
            todo.extend(unsettled)
            continue
        empties = [child.empty if child.boolean else child is EMPTY for child in t.children]
        t.empty = all(empties) if t.kind == K_ALT else any(empties)  # concatenation, repeat
    return term.empty


def _search(term: Term, max_states: int, keep: list[Term] | None) -> None:
    """Settle ``term.empty`` (see `is_empty`; `keep` gets the path to what it found): first depth
    first, within `QUICK_SEARCH` terms (`_depth_first`); if that decides nothing, breadth first
    within `max_states`."""
    parent: dict[Term, Term | None] = {term: None}
    derived: list[Term] = []  # the sub-terms' derivatives, alive for the search (memos are weak)
    found = _depth_first(term, min(QUICK_SEARCH, max_states), parent, derived)
    if found is False:
        parent = {term: None}
        found = _breadth_first(term, max_states, parent, derived)
    if found is None:
        for t in parent:
            t.empty = True
        return
    while found is not None:
        found.empty = False
        if keep is not None:
            keep.append(found)
        found = parent[found]


QUICK_SEARCH = 256
"""`is_empty` looks for a string of a term's language depth first among this many derivatives
before it searches breadth first: a format's strings under a length bound and a pattern have one
a few levels down the first classes (in byte order) tried, where breadth first derives every
term of every level above it (such leaves of the benchmark corpus, e.g. in
`citation-file-format__entity.json`, are found an order of magnitude sooner); a language found empty within
it is settled as well. Breadth first finds the shortest string, so it never goes deep where a
short one exists (a complement's)."""

QUICK_WIDEST = 64
"""... and none of them with an alternation of more operands than this: a term that grows at every
byte (the complement of nested repeats, ``~((.{0,100}){0,100})``: 9,800 operands 200 bytes down)
is searched breadth first at once, where its witness is one byte away (a newline), not a few
seconds of ever wider derivatives per state."""


def _not_empty(t: Term) -> bool:
    """Whether `t` is known not to be ∅ without a search: settled so, nullable, a term without
    ``&`` or ``~`` (which is ∅ only as `EMPTY` itself, which no search enters), or a counted
    intersection whose uncounted side ends within its count (`counted_not_empty`)."""
    return t.empty is False or t.nullable or not t.boolean or counted_not_empty(t)


def _depth_first(term: Term, budget: int, parent: dict[Term, Term | None],
                 derived: list[Term]) -> Term | None | bool:
    """A term of `term`'s language that is not ∅ (its path in `parent`), None when every term
    reachable is ∅ (all in `parent`), or False past `budget` terms or at one wider than
    `QUICK_WIDEST`: depth first, each term derived by one class at a time, its first new derivative
    searched before the next class is derived."""
    if _not_empty(term):
        return term
    stack = [(term, _successors(term, derived))]
    while stack:
        t, successors = stack[-1]
        for successor in successors:
            if successor in parent:
                continue
            if len(parent) >= budget or successor.widest > QUICK_WIDEST:
                return False
            check_deadline()
            parent[successor] = t
            if _not_empty(successor):
                return successor
            if not successor.empty:
                stack.append((successor, _successors(successor, derived)))
            break
        else:
            stack.pop()
    return None


def _breadth_first(term: Term, max_states: int, parent: dict[Term, Term | None],
                   derived: list[Term]) -> Term | None:
    """`_depth_first` breadth first, within `max_states` terms (`StateBudgetError` past them): the
    term found is the end of a shortest path."""
    queue = [term]
    for t in queue:  # the queue grows while it is read: breadth first
        if _not_empty(t):
            return t
        if t.empty:
            continue
        for successor in _successors(t, derived):
            if successor not in parent:
                if len(parent) >= max_states:
                    raise StateBudgetError(
                        f"deciding whether a term is empty explored more than {max_states} "
                        "derivatives (the state budget); pass a larger max_states"
                    )
                check_deadline()
                parent[successor] = t
                queue.append(successor)
    return None


def _successors(t: Term, derived: list[Term]) -> Iterator[Term]:
    """The derivatives of `t` other than ∅, by one byte of each derivative class, one at a time
    (derived as they are asked for: the depth-first search descends before deriving the next)."""
    for bits in derivative_classes(t):
        representative = (bits & -bits).bit_length() - 1
        if (t.first >> representative) & 1:
            successor = derivative(t, representative, derived)
            if successor is not EMPTY:
                yield successor


def bytes_argument(data: object, name: str = "data") -> bytes:
    """`data` as bytes (a bytearray or memoryview copied), else `InputTypeError` naming `name`: the
    automata read bytes, and a str has no bytes until it is encoded."""
    if isinstance(data, bytes):
        return data
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    if isinstance(data, str):
        raise InputTypeError(f"{name} must be bytes, not str {data!r:.40} (encode it: "
                             f"{data[:20]!r}.encode())")
    raise InputTypeError(f"{name} must be bytes, not {type(data).__name__}: {data!r:.40}")


def shown_pattern(pattern: object, limit: int = 40) -> str:
    """`pattern` as a message shows it: its repr, cut to about `limit` characters (with its length
    if cut), or the name of its type if it is not text (a term may print as megabytes)."""
    if not isinstance(pattern, (str, bytes)):
        return type(pattern).__name__
    text = repr(pattern)
    return text if len(text) <= limit else f"{text[:limit - 1]}… ({len(pattern):,} characters)"


def state_argument(state: object, n_states: int, so_far: str = "") -> int:
    """`state` as an int if it is a state of an automaton of `n_states` states: `InputTypeError`
    if it is not a whole number (an int, a numpy integer), `StateError` if there is no such state.
    (The slow path of the automata's state checks: they accept an int in range themselves.)"""
    try:
        number = operator.index(state)
    except TypeError:
        raise InputTypeError(f"state must be a whole number, not {type(state).__name__}: {state!r:.40}") from None
    if not 0 <= number < n_states:
        raise StateError(f"state {number} does not exist (states 0..{n_states - 1}{so_far})")
    return number


class LazyDFA:
    """A DFA over the derivatives of one term, built on demand (see the module docstring).

    `pattern`: a `Term`, or a pattern's text (`brzozowski.core.syntax.parse`; its parse and the
    emptiness test of its term run under ``limits.compile_seconds``). `max_states`: the state
    budget; `max_alternatives`: the work budget per state (module docstring). `limits` (kept as
    ``self.limits`` for those who step the automaton: `TokenIndex` reads ``mask_seconds``)."""

    start = 0

    def __init__(self, pattern: str | bytes | Term, max_states: int = DEFAULT_MAX_STATES,
                 max_alternatives: int = DEFAULT_MAX_ALTERNATIVES, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = require_limits(limits)
        if not isinstance(pattern, (str, bytes, Term)):
            raise InputTypeError(
                f"pattern must be a str, bytes or Term, not {type(pattern).__name__}: {pattern!r:.80}")
        for name, value in (("max_states", max_states), ("max_alternatives", max_alternatives)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise InputTypeError(f"{name} is a whole number, not {value!r:.40}")
            if value < 1:
                raise ArgumentError(f"{name} must be at least 1, not {value}")
        self._derived: list[Term] = []  # every derivative computed here: memos only refer weakly
        if isinstance(pattern, Term):  # built by the caller, under the caller's deadline
            term = pattern
            empty = is_empty(term, max_states, self._derived)
        else:
            with within(limits.compile_seconds, "compile_seconds", where=f"LazyDFA({shown_pattern(pattern)})"):
                term = parse(pattern, limits)
                empty = is_empty(term, max_states, self._derived)
        if empty:
            raise EmptyLanguageError(f"the term {_abbreviated(term)} has an empty language: "
                                     "no automaton state exists")
        self.max_states = max_states
        self._pattern = term
        self._given_alternatives = max_alternatives
        self._max_alternatives: int | None = None  # see max_alternatives: computed when first needed
        self._alphabet: ByteClasses | None = None  # see byte_classes: computed when first needed
        self._lock = threading.Lock()
        self._terms: list[Term] = []
        self._numbers: dict[Term, int] = {}
        self._maps: list[ByteClasses | None] = []  # per state, made on first use (`_class_map`)
        self._targets: list[list[int] | None] = []  # per state and class, made with the map
        self._rows: list[np.ndarray | None] = []
        self._alphabet_classes: dict[ByteClasses, list[int]] = {}  # see class_row
        self._add(term)

    @property
    def byte_classes(self) -> np.ndarray:
        """The class of every byte (int[256], read-only): bytes of one class lead from every state,
        discovered or not, to the same state (`alphabet_classes` of the pattern). Computed when first
        asked for: it walks the whole pattern (nearly all of a schema's `LazyDFA(term)` when it was
        done at once), and masks need it only for the class-string trie, `brzozowski.automata.dfa.regex_to_dfa`
        to explore."""
        return self._classes().class_of

    def _classes(self) -> ByteClasses:
        alphabet = self._alphabet
        if alphabet is None:  # (two threads may both compute it: the same interned partition)
            alphabet = self._alphabet = ByteClasses.of(alphabet_classes(self._pattern))
        return alphabet

    @property
    def n_states(self) -> int:
        """How many states have been discovered so far."""
        return len(self._terms)

    def term(self, state: int) -> Term:
        """The term of `state`: the language of what may still follow."""
        return self._terms[self._check(state)]

    def is_accepting(self, state: int) -> bool:
        """Whether the text that led to `state` is in the language."""
        return self._terms[self._check(state)].nullable

    def next_state(self, state: int, b: int) -> int:
        """The state after reading byte `b` in `state` (DEAD if no string continues)."""
        class_bytes = self._class_map(self._check(state)).class_bytes
        try:
            index = class_bytes[b]
            if b < 0:  # (bytes index from the end)
                raise IndexError
        except (IndexError, TypeError):
            raise InputTypeError(f"b must be a byte (an int 0..255), not {b!r:.40}") from None
        target = self._targets[state][index]
        if target == UNKNOWN:
            target = self._compute(state, index)
        return target

    def step(self, state: int, data: bytes) -> int:
        """The state after reading every byte of `data` from `state`; DEAD stays DEAD.

        Transitions already known are followed; from the first one that is not (among the last
        `TERM_STEPS` bytes), or from a state whose classes are not computed yet, the rest of
        `data` is read on terms (`_read_on_terms`: memoized derivatives, each term checked against
        the work budget) and only the state at the end is numbered: the states a token passes through are
        not created, nor are the classes of the state it ends in (the next step reads on from its
        term), unless its first byte leads back into it: a loop (a string's inside) is read again
        token after token, so it gets its classes then, and its loop is a known transition."""
        if state != DEAD:
            state = self._check(state)
        if type(data) is not bytes:
            data = bytes_argument(data)
        for i, b in enumerate(data):
            if state == DEAD:
                return DEAD
            class_map = self._maps[state]
            if class_map is None and len(data) - i > TERM_STEPS:
                class_map = self._class_map(state)
            if class_map is None:
                target = index = UNKNOWN
            else:
                index = class_map.class_bytes[b]
                target = self._targets[state][index]
            if target == UNKNOWN:
                if class_map is not None and (i == len(data) - 1 or len(data) - i > TERM_STEPS):
                    state = self._compute(state, index)
                    continue
                term = self._terms[state]
                by_options = (derivative_by_options(term, data[i:], self._derived, self._check_width)
                              if len(data) - i > 1 else None)  # (a listed name's bytes: no union per byte)
                if by_options is not None:
                    if by_options is EMPTY:
                        return DEAD
                    self._check_width(by_options)
                    return self.state_of(by_options)
                if class_map is None:  # the first byte's derivative, read on from (not derived twice)
                    derived = self._read_on_terms(term, data[i:i + 1])  # (a leaf's head: its table)
                    if derived is term:
                        self._loop(state, b)  # a loop (inside a string): classes from now on
                        continue
                    if derived is EMPTY:
                        return DEAD
                    self._check_width(derived)
                    term, i = derived, i + 1
                return self.state_of(self._read_on_terms(term, data[i:]))
            state = target
        return state

    def _loop(self, state: int, b: int) -> None:
        """Record that `state` reads `b` back into itself, in the class map made for it now: a
        state that loops is read again and again (the inside of a string, token after token)."""
        class_map = self._class_map(state)
        with self._lock:
            self._targets[state][class_map.class_bytes[b]] = state

    def _read_on_terms(self, term: Term, data: bytes) -> Term:
        """The derivative of `term` by `data` (EMPTY for none), each term checked against the work
        budget: a concatenation read through its head alone while that is the rule
        (`brzozowski.core.derivatives.derivative_through_heads`: a string's inside, a word's letters)."""
        return derivative_through_heads(term, data, self._derived, self._check_width)

    def matches(self, data: bytes) -> bool:
        """Whether `data` (bytes) is in the language (full match)."""
        state = self.step(self.start, data)
        return state != DEAD and self.is_accepting(state)

    def row(self, state: int) -> np.ndarray:
        """All 256 transitions of `state` (int32, read-only), computed on first use."""
        row = self._rows[self._check(state)]
        if row is None:
            self._class_map(state)
            targets = self._targets[state]
            for index, target in enumerate(targets):
                if target == UNKNOWN:
                    self._compute(state, index)
            row = np.asarray(targets, dtype=np.int32)[self._maps[state].class_of]
            row.setflags(write=False)
            self._rows[state] = row
        return row

    def transitions(self, state: int, needed: np.ndarray) -> np.ndarray:
        """The transitions of `state` by every byte (int32[256]) whose class is known, computed
        now for the classes of the `needed` bytes; `UNKNOWN` for a class not computed yet. A walk
        that reads few bytes from a state (the children of the few trie nodes it reached, deep
        in a token) derives only their classes, and discovers no state the others lead to."""
        row = self._rows[self._check(state)]
        if row is not None:
            return row
        class_map = self._class_map(state)
        targets = self._targets[state]
        for index in set(class_map.class_of.take(needed).tolist()):
            if targets[index] == UNKNOWN:
                self._compute(state, index)
        return np.asarray(targets, dtype=np.int32).take(class_map.class_of)

    def class_row(self, state: int) -> list[int]:
        """The transitions of `state` on each class of `byte_classes`, in class order."""
        class_map = self._class_map(self._check(state))
        targets = self._targets[state]
        local = self._alphabet_classes.get(class_map)
        if local is None:
            local = self._alphabet_classes[class_map] = class_map.classes_of(self._classes().representatives)
        for index in set(local):
            if targets[index] == UNKNOWN:
                self._compute(state, index)
        return [targets[index] for index in local]

    def state_of(self, term: Term) -> int:
        """The state whose term is `term`, discovered now if it is new; DEAD if its language is empty.

        For a caller that knows `term` is the derivative of a state's term by some string (the
        masks of a string with a length bound know what follows its closing quote without reading
        up to it): it is then the very state those transitions lead to, and numbering it now only
        changes the order of discovery."""
        if not isinstance(term, Term):
            raise InputTypeError(f"state_of takes a Term, not {term!r:.60}")
        with self._lock:
            found = self._numbers.get(term)
            if found is not None:
                return found
            if term is EMPTY or (term.boolean and is_empty(term, self.max_states, self._derived)):
                return DEAD
            return self._add(term)

    # -- growth ----------------------------------------------------------------------------------

    @property
    def max_alternatives(self) -> int:
        """The most operands a state's alternation may have (see the module docstring): the given
        limit, or the pattern's byte-set positions + 1 if more. Counting positions walks the whole
        start term, so it waits until a state is wider than the given limit (most patterns never)."""
        if self._max_alternatives is None:
            self._max_alternatives = max(self._given_alternatives, positions(self._pattern) + 1)
        return self._max_alternatives

    def _check(self, state: int) -> int:
        if type(state) is int and 0 <= state < len(self._terms):
            return state
        return state_argument(state, len(self._terms), " so far; DEAD is -1")

    def _class_map(self, state: int) -> ByteClasses:
        """The byte classes of `state` (its term's derivative classes), with its transitions per
        class (DEAD for a class its language does not begin with, else unknown), made on first use:
        a state a token ends in is stepped from on terms (`step`), and a mask from the tables
        never asks for its classes."""
        class_map = self._maps[state]
        if class_map is None:
            with self._lock:
                class_map = self._maps[state]
                if class_map is None:
                    check_deadline()  # once per state's row: a row whose targets all exist adds no state
                    term = self._terms[state]
                    class_map = ByteClasses.of(derivative_classes(term))
                    first = term.first  # a class no string of the language starts with: DEAD
                    self._targets[state] = [UNKNOWN if (first >> r) & 1 else DEAD
                                            for r in class_map.representatives]
                    self._maps[state] = class_map  # last: a map seen has its transitions
        return class_map

    def _compute(self, state: int, index: int) -> int:
        """Fill the transition of `state` on class `index`: one derivative for the whole class."""
        with self._lock:
            target = self._targets[state][index]
            if target != UNKNOWN:  # another thread was first
                return target
            representative = self._maps[state].representatives[index]
            successor = derivative(self._terms[state], representative, self._derived)
            if successor is EMPTY or (successor.boolean and is_empty(successor, self.max_states,
                                                                     self._derived)):
                target = DEAD
            else:
                target = self._numbers.get(successor)
                if target is None:
                    target = self._add(successor)
            self._targets[state][index] = target
            return target

    def _check_width(self, term: Term, what: str = "a term read on the way", number: int | None = None) -> None:
        """`StateBudgetError` if `term` holds an alternation wider than `max_alternatives` (`what`,
        then `number` if given, names it in the message: formatted only then)."""
        if term.widest > self._given_alternatives and term.widest > self.max_alternatives:
            what = what if number is None else f"{what} {number}"
            raise StateBudgetError(
                f"{what} holds an alternation of {term.widest} operands, more than "
                f"{self.max_alternatives} (the work budget per state; nested bounded repeats grow "
                "it); simplify the pattern or pass a larger max_alternatives"
            )

    def _add(self, term: Term) -> int:
        check_deadline()
        number = len(self._terms)
        if number >= self.max_states:
            raise StateBudgetError(
                f"the automaton needs more than {self.max_states} states (the state budget); "
                "simplify the pattern or pass a larger max_states"
            )
        self._check_width(term, "state", number)
        self._numbers[term] = number
        self._maps.append(None)  # (`_class_map`)
        self._targets.append(None)
        self._rows.append(None)
        self._terms.append(term)  # last: n_states counts only states whose lists are complete
        return number


def _abbreviated(term: Term, limit: int = 60) -> str:
    text = str(term)
    return text if len(text) <= limit else text[: limit - 1] + "…"
