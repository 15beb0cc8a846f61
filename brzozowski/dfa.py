"""Canonical DFA tables: explore every state, keep the live ones, minimize, number breadth first.

`regex_to_dfa(pattern)` returns a `DFA` whose tables are a function of the language alone:

1. **Explore.** Every state of the `LazyDFA` of the pattern is visited, breadth first, filling
   each state's 256 transitions (one derivative per derivative class).
2. **Liveness.** States from which no accepting state can be reached are dead; transitions into
   them become `DEAD`. (With derivatives there are none, since ∅ is the only term with an empty
   language; the pass is kept because the tables' invariant must not rest on that argument.)
3. **Minimize (Moore).** Start from two blocks, accepting and not; split every block whose states
   go to different blocks on some byte; stop when nothing splits. Vectorized: each round labels
   every state by (its block, the blocks of its successors) with one `numpy.unique` over the table
   whose columns are compressed to the pattern's byte classes.
4. **Number.** Breadth first from the start, bytes ascending: the first block reached gets the next
   number (seed §2.2).

The minimal DFA of a regular language is unique up to renaming, and step 4 fixes the names, so
``regex_to_dfa("a|b")`` and ``regex_to_dfa("[ab]")`` have identical arrays. They equal what a
Thompson NFA, the subset construction, Moore's algorithm and the same numbering produce (the tests
hold an independent construction to that).

>>> dfa = regex_to_dfa("(cat|car|dog)s?")
>>> dfa.n_states, [int(s) for s in dfa.accept.nonzero()[0]]
(7, [5, 6])
>>> dfa.step(0, b"ca"), dfa.matches(b"dogs"), dfa.matches(b"do")
(3, True, False)

References: E. F. Moore, "Gedanken-experiments on sequential machines" (1956); J. Hopcroft and
J. Ullman, *Introduction to Automata Theory*, §3.4 (minimization); seed §2.2.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass

import numpy as np

from .errors import BrzozowskiError
from .lazy import DEAD, DEFAULT_MAX_STATES, LazyDFA
from .terms import Term, show_byte

__all__ = ["DEAD", "DFA", "regex_to_dfa"]


@dataclass(frozen=True, eq=False)
class DFA:
    """A complete, canonical DFA: state 0 is the start, `DEAD` (-1) is the absence of a state.

    `accept` is bool[S]; `trans` is int32[S, 256] with entries in ``-1..S-1``. Both arrays are
    read-only. Two DFAs are equal when their arrays are.
    """

    accept: np.ndarray
    trans: np.ndarray

    start = 0

    def __post_init__(self) -> None:
        accept = np.array(self.accept, dtype=bool)
        trans = np.array(self.trans, dtype=np.int32)
        if accept.ndim != 1 or len(accept) == 0:
            raise BrzozowskiError(f"accept must be a non-empty 1-D bool array, not shape {accept.shape}")
        if trans.shape != (len(accept), 256):
            raise BrzozowskiError(
                f"trans must have shape ({len(accept)}, 256) to match accept, not {trans.shape}"
            )
        if trans.size and (trans.min() < DEAD or trans.max() >= len(accept)):
            raise BrzozowskiError(f"trans entries must lie in -1..{len(accept) - 1}")
        accept.setflags(write=False)
        trans.setflags(write=False)
        object.__setattr__(self, "accept", accept)
        object.__setattr__(self, "trans", trans)

    @property
    def n_states(self) -> int:
        return len(self.accept)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DFA):
            return NotImplemented
        return np.array_equal(self.accept, other.accept) and np.array_equal(self.trans, other.trans)

    def __hash__(self) -> int:
        return hash((self.accept.tobytes(), self.trans.tobytes()))

    def __repr__(self) -> str:
        return f"DFA(n_states={self.n_states}, accepting={self.accept.nonzero()[0].tolist()})"

    # -- the automaton interface shared with LazyDFA ---------------------------------------------

    def row(self, state: int) -> np.ndarray:
        """The 256 transitions of `state`."""
        return self.trans[self._check(state)]

    def is_accepting(self, state: int) -> bool:
        return bool(self.accept[self._check(state)])

    def step(self, state: int, data: bytes) -> int:
        """The state after reading `data` from `state`; DEAD stays DEAD."""
        if state != DEAD:
            self._check(state)
        trans = self.trans
        for b in data:
            if state == DEAD:
                break
            state = int(trans[state, b])
        return state

    def matches(self, data: bytes) -> bool:
        """Whether `data` is in the language (full match)."""
        state = self.step(self.start, data)
        return state != DEAD and bool(self.accept[state])

    def _check(self, state: int) -> int:
        if not 0 <= state < self.n_states:
            raise BrzozowskiError(f"state {state} does not exist (states 0..{self.n_states - 1})")
        return state

    # -- views -----------------------------------------------------------------------------------

    def edges(self) -> list[tuple[int, list[tuple[int, int]], int]]:
        """Every edge as (source, byte ranges (lo, hi) inclusive and ascending, target)."""
        result = []
        for source in range(self.n_states):
            row = self.trans[source]
            by_target: dict[int, list[tuple[int, int]]] = {}
            b = 0
            while b < 256:
                target = int(row[b])
                end = b
                while end + 1 < 256 and row[end + 1] == target:
                    end += 1
                if target != DEAD:
                    by_target.setdefault(target, []).append((b, end))
                b = end + 1
            for target in sorted(by_target):
                result.append((source, by_target[target], target))
        return result

    def describe(self) -> str:
        """A human-readable table: one line per state with its accepting flag and edges."""
        lines = [f"{self.n_states} states, start 0, accepting {self.accept.nonzero()[0].tolist()}"]
        outgoing: dict[int, list[str]] = {s: [] for s in range(self.n_states)}
        for source, ranges, target in self.edges():
            outgoing[source].append(f"{_show_ranges(ranges)} -> {target}")
        for state in range(self.n_states):
            mark = "*" if self.accept[state] else " "
            lines.append(f"{mark}{state:>4}: " + (", ".join(outgoing[state]) or "(no edges)"))
        return "\n".join(lines)

    def to_json(self) -> str:
        """The tables as JSON: ``{"n_states", "accept", "trans"}`` (trans row by row)."""
        return json.dumps(
            {
                "n_states": self.n_states,
                "accept": self.accept.tolist(),
                "trans": self.trans.tolist(),
            },
            separators=(",", ":"),
        )

    def to_dot(self) -> str:
        """Graphviz DOT text: double circles accept, edges labelled with byte ranges."""
        lines = [
            "digraph DFA {",
            "  rankdir=LR;",
            '  node [shape=circle, fontname="Helvetica"];',
            '  edge [fontname="Helvetica"];',
            '  start [shape=point, label=""];',
            "  start -> 0;",
        ]
        for state in range(self.n_states):
            if self.accept[state]:
                lines.append(f"  {state} [shape=doublecircle];")
        for source, ranges, target in self.edges():
            label = _show_ranges(ranges).replace("\\", "\\\\").replace('"', '\\"')
            lines.append(f'  {source} -> {target} [label="{label}"];')
        lines.append("}")
        return "\n".join(lines)


def _show_ranges(ranges: list[tuple[int, int]]) -> str:
    parts = []
    for lo, hi in ranges:
        parts.append(show_byte(lo) if lo == hi else f"{show_byte(lo)}-{show_byte(hi)}")
    text = "".join(parts)
    return text if len(ranges) == 1 and ranges[0][0] == ranges[0][1] else f"[{text}]"


def regex_to_dfa(pattern: str | bytes | Term, max_states: int = DEFAULT_MAX_STATES) -> DFA:
    """The canonical DFA of `pattern` (Python `re` bytes syntax, full match)."""
    lazy = pattern if isinstance(pattern, LazyDFA) else LazyDFA(pattern, max_states=max_states)
    accept, trans = explore(lazy)
    trans = remove_dead_states(accept, trans)
    return canonical(accept, trans)


def explore(lazy: LazyDFA) -> tuple[np.ndarray, np.ndarray]:
    """Visit every state reachable from the start; return (accept, trans) in discovery order."""
    rows = []
    state = 0
    while state < lazy.n_states:  # discovery order is breadth-first: rows add states at the end
        rows.append(lazy.row(state))
        state += 1
    accept = np.fromiter((lazy.is_accepting(s) for s in range(lazy.n_states)), bool, lazy.n_states)
    return accept, np.stack(rows)


def remove_dead_states(accept: np.ndarray, trans: np.ndarray) -> np.ndarray:
    """Send every transition into a state that cannot reach acceptance to DEAD."""
    live = accept.copy()
    columns, _ = _byte_classes(trans)
    padded = np.append(live, False)  # index -1 (DEAD) reads the pad: never live
    while True:
        reaches_live = padded[columns].any(axis=1) | live
        if np.array_equal(reaches_live, live):
            break
        live = reaches_live
        padded = np.append(live, False)
    if live.all():
        return trans
    if not live[0]:
        raise BrzozowskiError("the language is empty: no state accepts")
    trans = trans.copy()
    trans[(trans >= 0) & ~np.append(live, False)[trans]] = DEAD
    return trans


def canonical(accept: np.ndarray, trans: np.ndarray) -> DFA:
    """Minimize (Moore) and renumber breadth first with bytes ascending (seed §2.2)."""
    columns, class_of_byte = _byte_classes(trans)
    block = minimize(accept, columns)
    # One representative state per block, and the block-level table over byte classes.
    n_blocks = int(block.max()) + 1
    representative = np.unique(block, return_index=True)[1]  # the first state of each block
    block_of = np.append(block, DEAD)  # DEAD (-1) reads the pad
    block_columns = block_of[columns[representative]]
    # Breadth first from the start block; classes in the order of their lowest byte.
    class_order = np.unique(class_of_byte, return_index=True)[1]
    order_of_classes = np.argsort(class_order, kind="stable")
    number = np.full(n_blocks, DEAD, dtype=np.intp)
    number[block[0]] = 0
    queue = deque([int(block[0])])
    next_number = 1
    table = block_columns[:, order_of_classes].tolist()
    while queue:
        for target in table[queue.popleft()]:
            if target != DEAD and number[target] == DEAD:
                number[target] = next_number
                next_number += 1
                queue.append(target)
    by_number = np.argsort(number)  # every block is reachable, so numbers are 0..n_blocks-1
    renumber = np.append(number, DEAD)
    new_columns = renumber[block_columns[by_number]]
    return DFA(accept[representative[by_number]], new_columns[:, class_of_byte].astype(np.int32))


def minimize(accept: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Moore's partition refinement: the block of every state (equivalent states share one)."""
    _, block = np.unique(accept, return_inverse=True)
    n_blocks = int(block.max()) + 1
    while True:
        signature = np.column_stack([block, np.append(block, DEAD)[columns]])
        _, refined = np.unique(signature, axis=0, return_inverse=True)
        refined = refined.reshape(-1)
        n_refined = int(refined.max()) + 1
        if n_refined == n_blocks:
            return block
        block, n_blocks = refined, n_refined


def _byte_classes(trans: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Compress the table's columns: (distinct columns [S, K], the class of every byte [256])."""
    distinct, class_of_byte = np.unique(trans, axis=1, return_inverse=True)
    return distinct, class_of_byte.reshape(-1)
