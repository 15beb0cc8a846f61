"""Transition tables as int32 *codes*, the form the vectorized trie walks gather through.

State s is coded ``(s + 1) * 256`` and DEAD is 0, with a row of its own that maps every byte to
DEAD again: a node's code plus a byte is directly the flat index of its transition, a dead node's
children come out dead without a branch, and a code is live iff it is at least 256. The walks of
`brzozowski.masks.index` and the per-vocabulary tables of `brzozowski.json.string_masks` read automata
through `TransitionTable`; a format's shipped DFA is read through `ClassTable`, the same scheme
over byte classes (codes ``(s + 1) << shift``, a node's class instead of its byte).
"""

from __future__ import annotations

import numpy as np

from ..core.alphabet import Automaton
from ..errors import MaskError
from .lazy import UNKNOWN

__all__ = ["MAX_TABLE_ROWS", "UNFILLED", "ClassTable", "TransitionTable"]

MAX_TABLE_ROWS = (2**31 - 1) // 256
"""Codes are int32 (half the memory traffic of int64 in the gathers), so a table holds at most
8,388,607 states: 8 GiB of transitions, far beyond any state budget that makes sense."""


def _check_capacity(n_rows: int) -> None:
    if n_rows > MAX_TABLE_ROWS:
        raise MaskError(f"{n_rows - 1} automaton states exceed the mask tables' limit of "
                        f"{MAX_TABLE_ROWS - 1}")


UNFILLED = -1
"""The code of a transition of a lazy automaton not copied into a `TransitionTable` yet: negative,
so neither DEAD (0) nor live (at least 256). `TransitionTable.gather` never returns it."""


class TransitionTable:
    """The transition table the walk gathers through, as int32 *codes*: state s is ``(s + 1) * 256``.

    Row 0 is DEAD (code 0), and every byte maps it to DEAD again, so a dead node's children come
    out dead without a branch; state s's row is row s + 1. A node's code plus a byte is directly
    the flat index of its transition, and a code is live iff it is at least 256. Over a DFA the
    table is complete from the start (``trans`` re-coded). Over a lazy automaton it fills as walks
    read it: `gather` copies in the transitions by the classes of the bytes it reads from each
    state (`brzozowski.automata.lazy.LazyDFA.transitions`: the other classes are not derived, nor
    the states they lead to discovered; the rest of the row stays `UNFILLED`), `ensure` whole rows
    (``automaton.row(s)``) for the walks in plain Python, which read the table directly.
    """

    shift = 8
    """A state's code is ``(s + 1) << shift``; a node's code plus its byte indexes the flat table."""

    def __init__(self, automaton: Automaton) -> None:
        self.automaton = automaton
        trans = getattr(automaton, "trans", None)
        self.complete = isinstance(trans, np.ndarray) and trans.ndim == 2 and trans.shape[1] == 256
        if self.complete:
            _check_capacity(trans.shape[0] + 1)
            table = np.zeros((trans.shape[0] + 1, 256), dtype=np.int32)
            table[1:] = trans
            table[1:] += 1
            table[1:] *= 256
            self.have = np.ones(trans.shape[0] + 1, dtype=bool)
        else:
            table = np.full((17, 256), UNFILLED, dtype=np.int32)
            table[0] = 0  # the DEAD row
            self.have = np.zeros(17, dtype=bool)
            self.have[0] = True
        self.table = table
        self.flat = table.ravel()

    def code(self, state: int) -> int:
        """The code of `state`."""
        return (state + 1) << self.shift

    def gather(self, index: np.ndarray) -> np.ndarray:
        """The codes at `index` (per trie node: its parent's code plus its byte), the transitions
        among them not copied in yet filled first, by the classes of the bytes read."""
        if self.complete:
            return self.flat.take(index, mode="clip")  # (in range: "clip" skips the bounds check)
        top = int(index.max(initial=0)) >> self.shift
        if top >= len(self.have):
            self._grow(top + 1)
        found = self.flat.take(index, mode="clip")
        unfilled = found < 0
        if unfilled.any():
            missing = index[unfilled]
            self._fill(missing)
            found[unfilled] = self.flat.take(missing, mode="clip")
        return found

    def _fill(self, index: np.ndarray) -> None:
        """Copy in the transitions of each state at `index` by the classes of the bytes there."""
        rows = index >> self.shift
        seen = np.zeros(len(self.have), dtype=bool)
        seen[rows] = True
        met = np.flatnonzero(seen)  # (one pass over `index`, however many states it meets)
        needed_by_row = np.zeros((len(met), 256), dtype=bool)
        needed_by_row[np.searchsorted(met, rows), index & 255] = True
        transitions = getattr(self.automaton, "transitions", None)
        for r, needed_here in zip(met.tolist(), needed_by_row):
            needed = np.flatnonzero(needed_here)
            self._copy_in(r, self.automaton.row(r - 1) if transitions is None else transitions(r - 1, needed))

    def _copy_in(self, r: int, targets: np.ndarray) -> None:
        """Write row r from the state's transitions `targets` (`UNKNOWN` ones stay `UNFILLED`)."""
        top = int(targets.max()) + 1
        if top >= len(self.have):
            self._grow(top + 1)
        unknown = targets == UNKNOWN
        self.table[r] = np.where(unknown, UNFILLED, (targets + 1) << self.shift)
        self.have[r] = not unknown.any()

    def ensure(self, codes: np.ndarray) -> np.ndarray:
        """Make sure every state coded in `codes` (+ any byte) has its row; return the flat table."""
        if self.complete:
            return self.flat
        rows = codes >> 8
        top = int(rows.max(initial=0))
        if top >= len(self.have):
            self._grow(top + 1)
        have = self.have.take(rows)
        if not have.all():
            for r in np.unique(rows[~have]).tolist():
                self._copy_in(r, self.automaton.row(r - 1))
        return self.flat

    def _grow(self, n_rows: int) -> None:
        capacity = max(n_rows, 2 * len(self.have))
        _check_capacity(n_rows)
        capacity = min(capacity, MAX_TABLE_ROWS)
        table = np.full((capacity, 256), UNFILLED, dtype=np.int32)
        have = np.zeros(capacity, dtype=bool)
        old = len(self.have)
        table[:old] = self.table
        have[:old] = self.have
        self.table, self.have, self.flat = table, have, table.ravel()


class ClassTable:
    """A complete table over byte *classes* (a format's shipped DFA: 19-31 classes): state s is
    coded ``(s + 1) << shift`` with ``2**shift`` at least the number of classes, and a node's code
    plus its byte's class (not the byte) indexes the flat table: 1/8 to 1/16 of a table over bytes,
    built at once from the per-class transitions, no row copied later."""

    def __init__(self, classes: np.ndarray, columns: np.ndarray) -> None:
        n_classes = int(classes.max()) + 1
        self.shift = max(1, (n_classes - 1).bit_length())
        _check_capacity(len(columns) + 1)  # (at most 256 classes: shift <= 8)
        table = np.zeros((len(columns) + 1, 1 << self.shift), dtype=np.int32)
        table[1:, :n_classes] = (columns.astype(np.int32) + 1) << self.shift
        self.classes = classes
        self.flat = table.ravel()

    def code(self, state: int) -> int:
        """The code of `state`."""
        return (state + 1) << self.shift

    def gather(self, index: np.ndarray) -> np.ndarray:
        """The codes at `index` (per node: its parent's code plus its byte's class; complete:
        nothing to fill)."""
        return self.flat.take(index, mode="clip")
