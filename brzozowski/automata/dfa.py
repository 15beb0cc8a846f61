"""Canonical DFA tables: explore every state, keep the live ones, minimize, number breadth first.

`regex_to_dfa(pattern)` returns a `DFA` whose tables are a function of the language alone:

1. **Explore.** Every state of the `LazyDFA` of the pattern is visited, breadth first, filling
   each state's transitions on every byte class of the pattern (one derivative per derivative
   class of the state).
2. **Liveness.** States from which no accepting state can be reached are dead; transitions into
   them become `DEAD`. (With derivatives there are none, since ∅ is the only term with an empty
   language; the pass is kept because the tables' invariant must not rest on that argument.)
3. **Minimize (Moore, then Hopcroft).** Start from two blocks, accepting and not; split every block
   whose states go to different blocks on some byte; stop when nothing splits. Vectorized: each
   round labels every state by (its block, the blocks of its successors) with one sort over the
   table whose columns are compressed to the pattern's byte classes. A partition still moving after
   `MOORE_ROUNDS` rounds (a chain needs one round per state) is finished by Hopcroft's algorithm,
   so that minimization stays O(k·n·log n).
4. **Number.** Breadth first from the start, bytes ascending: the first block reached gets the next
   number (docs/semantics.md, "The canonical DFA").

Every step runs under the deadline ``limits.compile_seconds`` (`brzozowski.budget`): each state
explored (created, and its row computed) and each derivative taken checks it
(`brzozowski.automata.lazy`), as do each round of minimization and the Python loops over every
state (the liveness pass, the renumbering), so a pattern whose automaton is huge or slow to build
(``.*a.{20}``, nested ``.*``) is refused with `TimeBudgetError` once its budget is spent, whatever
the state budget.

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
J. Ullman, *Introduction to Automata Theory*, §3.4 (minimization); the contract these tables keep:
docs/semantics.md, "The canonical DFA".
"""

from __future__ import annotations

import functools
import json
from collections import deque
from dataclasses import dataclass

import numpy as np

from ..budget import DEFAULT_LIMITS, Limits, check_deadline, require_limits, within
from ..core.alphabet import DEAD, byte_set_of_ranges, show_byte_set, table_classes, target_runs
from ..errors import EmptyLanguageError, InputTypeError, TableError
from .lazy import DEFAULT_MAX_ALTERNATIVES, DEFAULT_MAX_STATES, LazyDFA, bytes_argument, shown_pattern, state_argument
from ..core.terms import Term

__all__ = ["DEAD", "DFA", "regex_to_dfa"]


@dataclass(frozen=True, eq=False)
class DFA:
    """A complete, canonical DFA: state 0 is the start, `DEAD` (-1) is the absence of a state.

    `accept` is bool[S]; `trans` is int32[S, 256] with entries in ``-1..S-1``. Both arrays are
    read-only. Two DFAs are equal when their arrays are. Given arrays of another element type
    (``accept`` not bools or 0/1, ``trans`` not integers) raise `InputTypeError`; of the wrong
    shape or range, `TableError`.
    """

    accept: np.ndarray
    trans: np.ndarray

    start = 0

    def __post_init__(self) -> None:
        accept = _array(self.accept, "accept", "bui", "bools")
        trans = _array(self.trans, "trans", "ui", "integers")
        if accept.dtype.kind != "b":
            if accept.size and (accept.min() < 0 or accept.max() > 1):
                raise TableError("accept must hold bools (or 0 and 1)")
            accept = accept.astype(bool)
        if accept.ndim != 1 or len(accept) == 0:
            raise TableError(f"accept must be a non-empty 1-D bool array, not shape {accept.shape}")
        if trans.shape != (len(accept), 256):
            raise TableError(
                f"trans must have shape ({len(accept)}, 256) to match accept, not {trans.shape}"
            )
        if trans.size and (trans.min() < DEAD or trans.max() >= len(accept)):
            raise TableError(f"trans entries must lie in -1..{len(accept) - 1}")
        accept = np.array(accept, dtype=bool)
        trans = np.array(trans, dtype=np.int32)
        accept.setflags(write=False)
        trans.setflags(write=False)
        object.__setattr__(self, "accept", accept)
        object.__setattr__(self, "trans", trans)

    @property
    def n_states(self) -> int:
        return len(self.accept)

    @functools.cached_property
    def byte_classes(self) -> np.ndarray:
        """The class of every byte (int[256]): bytes with equal columns in `trans`, which lead from
        every state to the same state. Classes are numbered in the order of their lowest byte."""
        classes = table_classes(self.trans)[1]
        classes.setflags(write=False)
        return classes

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
        """The state after reading `data` (bytes) from `state`; DEAD stays DEAD."""
        if state != DEAD:
            state = self._check(state)
        if type(data) is not bytes:
            data = bytes_argument(data)
        trans = self.trans
        for b in data:
            if state == DEAD:
                break
            state = int(trans[state, b])
        return state

    def matches(self, data: bytes) -> bool:
        """Whether `data` (bytes) is in the language (full match)."""
        state = self.step(self.start, data)
        return state != DEAD and bool(self.accept[state])

    def _check(self, state: int) -> int:
        if type(state) is int and 0 <= state < len(self.accept):
            return state
        return state_argument(state, len(self.accept))

    # -- views -----------------------------------------------------------------------------------

    def edges(self) -> list[tuple[int, list[tuple[int, int]], int]]:
        """Every edge as (source, byte ranges (lo, hi) inclusive and ascending, target)."""
        result = []
        for source in range(self.n_states):
            by_target: dict[int, list[tuple[int, int]]] = {}
            for lo, hi, target in target_runs(self.trans[source]):
                by_target.setdefault(target, []).append((lo, hi))
            for target in sorted(by_target):
                result.append((source, by_target[target], target))
        return result

    def describe(self) -> str:
        """A human-readable table: one line per state with its accepting flag and edges."""
        lines = [f"{self.n_states} states, start 0, accepting {self.accept.nonzero()[0].tolist()}"]
        outgoing: dict[int, list[str]] = {s: [] for s in range(self.n_states)}
        for source, ranges, target in self.edges():
            outgoing[source].append(f"{show_byte_set(byte_set_of_ranges(ranges))} -> {target}")
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

    def _repr_svg_(self) -> str | None:
        """Jupyter shows a DFA as a drawing (`brzozowski.automata.draw`); too large to draw: None."""
        from .draw import MAX_DRAWN_STATES, dfa_svg

        return dfa_svg(self) if self.n_states <= MAX_DRAWN_STATES else None

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
            label = show_byte_set(byte_set_of_ranges(ranges)).replace("\\", "\\\\").replace('"', '\\"')
            lines.append(f'  {source} -> {target} [label="{label}"];')
        lines.append("}")
        return "\n".join(lines)


def regex_to_dfa(pattern: str | bytes | Term, max_states: int = DEFAULT_MAX_STATES,
                 max_alternatives: int = DEFAULT_MAX_ALTERNATIVES, limits: Limits = DEFAULT_LIMITS) -> DFA:
    """The canonical DFA of `pattern` (Python `re` bytes syntax, full match, or a `Term`). The
    budgets are those of `LazyDFA`; over either, `StateBudgetError`. The whole construction
    (parse, exploration, minimization) runs within ``limits.compile_seconds``, `TimeBudgetError`
    past it; a pattern's text is at most ``limits.pattern_length`` characters (`InputLimitError`)."""
    require_limits(limits)
    with within(limits.compile_seconds, "compile_seconds", where=f"regex_to_dfa({shown_pattern(pattern)})"):
        lazy = LazyDFA(pattern, max_states=max_states, max_alternatives=max_alternatives, limits=limits)
        accept, columns = explore(lazy)
        return _canonical_over_classes(accept, columns, lazy.byte_classes)


def explore(lazy: LazyDFA) -> tuple[np.ndarray, np.ndarray]:
    """Visit every state reachable from the start. Return (accept, columns) in discovery order:
    `columns[s, k]` is the transition of state s on class k of `lazy.byte_classes`. Each state
    created, and each derivative taken, checks the current deadline (`brzozowski.automata.lazy`)."""
    if not isinstance(lazy, LazyDFA):
        raise InputTypeError(f"explore takes a LazyDFA, not {type(lazy).__name__}")
    rows = []
    state = 0
    while state < lazy.n_states:  # class_row() may discover states: they are numbered at the end
        rows.append(lazy.class_row(state))
        state += 1
    accept = np.fromiter((lazy.is_accepting(s) for s in range(lazy.n_states)), bool, lazy.n_states)
    return accept, np.array(rows, dtype=np.int32).reshape(len(rows), -1)


def canonical(accept: np.ndarray, trans: np.ndarray) -> DFA:
    """The canonical DFA of any complete table ``trans: int[S, 256]`` whose start is state 0
    (checked as `DFA` checks its tables)."""
    tables = DFA(accept, trans)
    columns, class_of_byte = table_classes(tables.trans)
    accept = tables.accept
    return _canonical_over_classes(accept, columns, class_of_byte)


_STATES_PER_CHECK = 1024
"""The Python loops over every state (the liveness pass, the breadth-first renumbering) check the
deadline once per this many states: often enough that a large table overshoots it by little, rarely
enough to cost nothing."""


def _canonical_over_classes(accept: np.ndarray, columns: np.ndarray, class_of_byte: np.ndarray) -> DFA:
    """The canonical DFA of a table over byte classes (docs/semantics.md): `columns[s, k]` is the
    transition of state s on every byte b with ``class_of_byte[b] == k``.

    Dead states are removed, the rest minimized (`minimize`) and renumbered breadth first with bytes
    ascending; the classes are expanded back to 256 columns at the end.
    """
    columns = remove_dead_states(accept, columns)
    block = minimize(accept, columns)
    # One representative state per block, and the block-level table over byte classes.
    representative = np.unique(block, return_index=True)[1]  # the first state of each block
    block_columns = np.append(block, DEAD)[columns[representative]]  # DEAD (-1) reads the pad
    # Breadth first from the start block, visiting classes in the order of their lowest byte.
    # Blocks never reached (states cut off by the liveness pass) get no number and are dropped.
    lowest_byte_order = np.argsort(np.unique(class_of_byte, return_index=True)[1], kind="stable")
    table = block_columns[:, lowest_byte_order].tolist()
    number = [DEAD] * len(representative)
    number[block[0]] = 0
    queue = deque([int(block[0])])
    next_number, visited = 1, 0
    while queue:
        visited += 1
        if not visited % _STATES_PER_CHECK:
            check_deadline()
        for target in table[queue.popleft()]:
            if target != DEAD and number[target] == DEAD:
                number[target] = next_number
                next_number += 1
                queue.append(target)
    by_number = np.argsort(number)[len(number) - next_number:]  # DEAD sorts first
    renumber = np.array(number + [DEAD], dtype=np.int32)
    new_columns = renumber[block_columns[by_number]]
    return DFA(accept[representative[by_number]], new_columns[:, class_of_byte])


def remove_dead_states(accept: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Send every transition into a state that cannot reach acceptance to DEAD."""
    predecessors: list[list[int]] = [[] for _ in range(len(accept))]
    for source, row in enumerate(columns.tolist()):
        if not source % _STATES_PER_CHECK:
            check_deadline()
        for target in set(row):
            if target != DEAD:
                predecessors[target].append(source)
    live = accept.tolist()
    stack = [s for s, accepting in enumerate(live) if accepting]
    while stack:  # backward reachability from the accepting states
        for source in predecessors[stack.pop()]:
            if not live[source]:
                live[source] = True
                stack.append(source)
    if all(live):
        return columns
    if not live[0]:
        raise EmptyLanguageError("the language is empty: no state accepts")
    return np.where(np.append(np.array(live), False)[columns], columns, DEAD)  # DEAD reads the pad


MOORE_ROUNDS = 16
"""Moore rounds minimization always allows before it may switch to Hopcroft's algorithm. A Moore
round is one vectorized pass over the table, cheap, and most automata are stable within a few; but a
chain needs one round per state (quadratic), which Hopcroft's O(k·n·log n) refinement avoids."""

MOORE_WORK = 1 << 21
"""Beyond `MOORE_ROUNDS`, Moore goes on while rounds × table cells (states × byte classes) stays
within this many: a schema's automaton of a few hundred states and ~50 classes needs a few dozen
vectorized rounds, far cheaper than Hopcroft's Python loop over the same table (the comparison is
in benchmarks/record/), while a chain of 100,000 states gets `MOORE_ROUNDS` only."""


def minimize(accept: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """The block of every state (equivalent states share one; blocks numbered 0..B-1).

    Moore's partition refinement for up to `MOORE_ROUNDS` rounds (more while `MOORE_WORK` allows),
    then, if the partition still moves, Hopcroft's algorithm from where Moore stopped. Both compute the coarsest partition that
    refines accepting/non-accepting and is stable under every byte class: the unique minimal DFA."""
    block, n_blocks = _label_rows(accept.reshape(-1, 1).astype(np.intp))
    for _ in range(max(MOORE_ROUNDS, MOORE_WORK // max(columns.size, 1))):
        check_deadline()
        signature = np.column_stack([block, np.append(block, DEAD)[columns]])
        refined, n_refined = _label_rows(signature)
        if n_refined == n_blocks:
            return block
        block, n_blocks = refined, n_refined
    return _hopcroft(block, n_blocks, columns)


_SPLITTERS_PER_CHECK = 64  # Hopcroft checks the deadline once per this many splitters


def _hopcroft(block: np.ndarray, n_blocks: int, columns: np.ndarray) -> np.ndarray:
    """Refine the partition `block` until it is stable (Hopcroft 1971, with the array-based
    partition of Valmari and Lehtinen 2008, so that a split costs the size of its smaller side).

    DEAD becomes an extra sink state in a block of its own: no live state is equivalent to it.
    Every (block, class) pair starts on the worklist, so any starting partition that the minimal
    one refines is valid."""
    n_states, n_classes = columns.shape
    sink = n_states
    targets = np.where(columns == DEAD, sink, columns)
    predecessors = []  # per class: sources sorted by target, and where each target's run starts
    for c in range(n_classes):
        order = np.argsort(targets[:, c], kind="stable")
        starts = np.searchsorted(targets[order, c], np.arange(n_states + 2))
        predecessors.append((order.tolist(), starts.tolist()))
    block_of = block.tolist() + [n_blocks]
    elements = sorted(range(n_states + 1), key=block_of.__getitem__)
    position = [0] * (n_states + 1)
    for index, state in enumerate(elements):
        position[state] = index
    counts = np.bincount(np.array(block_of), minlength=n_blocks + 1).tolist()
    end = np.cumsum(counts).tolist()
    start = [e - n for e, n in zip(end, counts)]
    marked = [0] * (n_blocks + 1)
    worklist = [(b, c) for b in range(n_blocks + 1) for c in range(n_classes)]
    waiting = set(worklist)
    popped = 0
    while worklist:
        popped += 1
        if popped % _SPLITTERS_PER_CHECK == 0:
            check_deadline()
        splitter = worklist.pop()
        waiting.discard(splitter)
        splitter_block, c = splitter
        order, starts = predecessors[c]
        touched = []
        for target in elements[start[splitter_block]:end[splitter_block]]:
            for source in order[starts[target]:starts[target + 1]]:
                b = block_of[source]  # move `source` into the marked front part of its block
                front = start[b] + marked[b]
                other = elements[front]
                elements[front], elements[position[source]] = source, other
                position[other], position[source] = position[source], front
                if marked[b] == 0:
                    touched.append(b)
                marked[b] += 1
        for b in touched:
            n_marked, marked[b] = marked[b], 0
            if n_marked == end[b] - start[b]:
                continue  # every state of b goes into the splitter: no split
            new = len(start)
            start.append(start[b])
            end.append(start[b] + n_marked)
            marked.append(0)
            start[b] += n_marked
            for state in elements[start[new]:end[new]]:
                block_of[state] = new
            smaller = new if n_marked <= end[b] - start[b] else b
            for d in range(n_classes):
                pair = (new, d) if (b, d) in waiting else (smaller, d)
                if pair not in waiting:
                    waiting.add(pair)
                    worklist.append(pair)
    labels = np.unique(np.array(block_of[:n_states]), return_inverse=True)[1]
    return labels.reshape(-1).astype(np.intp)


def _label_rows(matrix: np.ndarray) -> tuple[np.ndarray, int]:
    """Number the distinct rows of `matrix` (equal rows, equal labels); return (labels, count)."""
    if matrix.size <= _SMALL_TABLE:  # a dict of tuples beats numpy's per-call overhead here
        labels_of: dict[tuple[int, ...], int] = {}
        labels = [labels_of.setdefault(tuple(row), len(labels_of)) for row in matrix.tolist()]
        return np.array(labels, dtype=np.intp), len(labels_of)
    order = np.lexsort(matrix.T[::-1])
    ordered = matrix[order]
    changes = np.any(ordered[1:] != ordered[:-1], axis=1)
    sorted_labels = np.concatenate(([0], np.cumsum(changes)))
    labels = np.empty(len(matrix), dtype=np.intp)
    labels[order] = sorted_labels
    return labels, int(sorted_labels[-1]) + 1


def _array(value: object, name: str, kinds: str, what: str) -> np.ndarray:
    """`value` as a numpy array whose elements are of one of the numpy `kinds`, else
    `InputTypeError` naming the argument (`TableError` for a ragged nesting of lists)."""
    try:
        array = np.asarray(value)
    except ValueError as error:  # ragged lists
        raise TableError(f"{name} must be a rectangular array: {error}") from None
    if array.dtype.kind not in kinds:
        raise InputTypeError(f"{name} must be an array of {what}, not {type(value).__name__} of "
                             f"{array.dtype} ({value!r:.40})")
    return array


_SMALL_TABLE = 2048  # entries; measured crossover of the two ways to label rows, within 2x either side
