"""The lazy DFA: states are terms, discovered and numbered on demand by taking derivatives.

The basic idea (as in RE2's DFA and regex-automata's hybrid engine, but with derivatives in place
of NFA state sets): a DFA state *is* the term describing what may still follow. The start state is
the pattern's term; the transition of state r on byte b is the state ``∂b r``. Nothing is built in
advance. The first time a transition is needed, its derivative is taken once for the byte's whole
derivative class (see `brzozowski.derivatives`) and stored per (state, class); a state met for the
first time gets the next number.

Invariants:

- State 0 is the start. States are numbered in order of discovery; `term(s)` is state s's term.
- ∅ is never a state: a transition to ∅ is `DEAD` (-1). Since the smart constructors reduce every
  empty language to the term ∅ (there is no intersection or complement), every state is *live*:
  it accepts, or some byte leads to a state that does.
- A state accepts iff its term is nullable.
- At most `max_states` states are ever created; one more raises `StateBudgetError`, so a state
  explosion (``(a|b)*a(a|b){20}`` has 2²¹ states) is an error, not a hang.
- The automaton is safe to share between threads: growth happens under a lock, and a state's
  transitions never change once computed.

>>> lazy = LazyDFA("(cat|car|dog)s?")
>>> lazy.step(lazy.start, b"car"), lazy.n_states      # only what was visited exists
(3, 4)
>>> lazy.is_accepting(3), lazy.step(3, b"x")
(True, -1)

`brzozowski.dfa.regex_to_dfa` explores every state of a lazy DFA and turns it into canonical tables.
"""

from __future__ import annotations

import threading

import numpy as np

from .derivatives import alphabet_classes, derivative, derivative_classes
from .errors import BrzozowskiError, InputTypeError, StateBudgetError
from .syntax import parse
from .terms import EMPTY, Term

__all__ = ["DEAD", "DEFAULT_MAX_STATES", "LazyDFA"]

DEAD = -1
"""The transition target when no string of the language continues (the derivative is ∅)."""

DEFAULT_MAX_STATES = 100_000
"""The default state budget. Real patterns (dates, e-mail addresses, tool-call JSON) need tens to a
few thousands; 100,000 states of 256 int32 transitions is 100 MiB of tables, about the most a
compiled constraint should hold. Pass ``max_states`` to raise or lower it."""

_UNKNOWN = -2  # a transition not computed yet


class _ClassMap:
    """How the bytes of one derivative partition map to its classes (shared by every state with it)."""

    __slots__ = ("partition", "representatives", "_class_of", "_local")

    def __init__(self, partition: tuple[int, ...]) -> None:
        self.partition = partition
        self.representatives = [(bits & -bits).bit_length() - 1 for bits in partition]
        self._class_of: np.ndarray | None = None
        self._local: dict[int, list[int]] = {}

    @property
    def class_of(self) -> np.ndarray:
        """The class index of every byte (int[256]), built on first use."""
        if self._class_of is None:
            partition = self.partition
            packed = np.frombuffer(b"".join(bits.to_bytes(32, "little") for bits in partition),
                                   np.uint8)
            members = np.unpackbits(packed.reshape(len(partition), 32), axis=1, bitorder="little")
            self._class_of = members.argmax(axis=0)  # each byte is in exactly one class
        return self._class_of

    def local_classes(self, alphabet: list[int]) -> list[int]:
        """This partition's class of each byte in `alphabet` (memoized per alphabet)."""
        found = self._local.get(id(alphabet))
        if found is None:
            found = [
                next(i for i, bits in enumerate(self.partition) if (bits >> b) & 1) for b in alphabet
            ]
            self._local[id(alphabet)] = found
        return found


_CLASS_MAPS: dict[int, _ClassMap] = {}


def _class_map(partition: tuple[int, ...]) -> _ClassMap:
    found = _CLASS_MAPS.get(id(partition))
    if found is None:
        found = _CLASS_MAPS[id(partition)] = _ClassMap(partition)
    return found


class LazyDFA:
    """A DFA over the derivatives of one term, built on demand (see the module docstring)."""

    start = 0

    def __init__(self, pattern: str | bytes | Term, max_states: int = DEFAULT_MAX_STATES) -> None:
        term = pattern if isinstance(pattern, Term) else parse(pattern)
        if term is EMPTY:
            raise BrzozowskiError("the term ∅ has an empty language: no automaton state exists")
        if isinstance(max_states, bool) or not isinstance(max_states, (int, np.integer)):
            raise InputTypeError(f"max_states is a whole number of states, not {max_states!r:.40}")
        if max_states < 1:
            raise BrzozowskiError(f"max_states must be at least 1, not {max_states}")
        self.max_states = max_states
        alphabet = _class_map(alphabet_classes(term))
        self._alphabet = alphabet.representatives
        self.byte_classes: np.ndarray = alphabet.class_of
        """The class of every byte (int[256]): bytes of one class lead from every state, discovered
        or not, to the same state (`alphabet_classes` of the pattern)."""
        self.byte_classes.setflags(write=False)
        self._lock = threading.Lock()
        self._terms: list[Term] = []
        self._numbers: dict[Term, int] = {}
        self._maps: list[_ClassMap] = []
        self._targets: list[list[int]] = []
        self._rows: list[np.ndarray | None] = []
        self._add(term)

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
        class_map = self._maps[self._check(state)]
        index = class_map.class_of[b]
        target = self._targets[state][index]
        if target == _UNKNOWN:
            target = self._compute(state, index)
        return target

    def step(self, state: int, data: bytes) -> int:
        """The state after reading every byte of `data` from `state`; DEAD stays DEAD."""
        for b in data:
            if state == DEAD:
                break
            state = self.next_state(state, b)
        return state

    def matches(self, data: bytes) -> bool:
        """Whether `data` is in the language (full match)."""
        state = self.step(self.start, data)
        return state != DEAD and self.is_accepting(state)

    def row(self, state: int) -> np.ndarray:
        """All 256 transitions of `state` (int32, read-only), computed on first use."""
        row = self._rows[self._check(state)]
        if row is None:
            targets = self._targets[state]
            for index, target in enumerate(targets):
                if target == _UNKNOWN:
                    self._compute(state, index)
            row = np.asarray(targets, dtype=np.int32)[self._maps[state].class_of]
            row.setflags(write=False)
            self._rows[state] = row
        return row

    def class_row(self, state: int) -> list[int]:
        """The transitions of `state` on each class of `byte_classes`, in class order."""
        class_map = self._maps[self._check(state)]
        targets = self._targets[state]
        local = class_map.local_classes(self._alphabet)
        for index in set(local):
            if targets[index] == _UNKNOWN:
                self._compute(state, index)
        return [targets[index] for index in local]

    # -- growth ----------------------------------------------------------------------------------

    def _check(self, state: int) -> int:
        if not 0 <= state < len(self._terms):
            raise BrzozowskiError(
                f"state {state} does not exist (states 0..{len(self._terms) - 1} so far; DEAD is -1)"
            )
        return state

    def _compute(self, state: int, index: int) -> int:
        """Fill the transition of `state` on class `index`: one derivative for the whole class."""
        with self._lock:
            target = self._targets[state][index]
            if target != _UNKNOWN:  # another thread was first
                return target
            representative = self._maps[state].representatives[index]
            successor = derivative(self._terms[state], representative)
            if successor is EMPTY:
                target = DEAD
            else:
                target = self._numbers.get(successor)
                if target is None:
                    target = self._add(successor)
            self._targets[state][index] = target
            return target

    def _add(self, term: Term) -> int:
        number = len(self._terms)
        if number >= self.max_states:
            raise StateBudgetError(
                f"the automaton needs more than {self.max_states} states (the state budget); "
                "simplify the pattern or pass a larger max_states"
            )
        class_map = _class_map(derivative_classes(term))
        self._terms.append(term)
        self._numbers[term] = number
        self._maps.append(class_map)
        # A class that no string of the language starts with leads nowhere: DEAD, no derivative.
        self._targets.append(
            [_UNKNOWN if (term.first >> r) & 1 else DEAD for r in class_map.representatives]
        )
        self._rows.append(None)
        return number
