"""A state's moves as the walks in plain Python read them, and one trie node's expansion.

A state is a number over a `brzozowski.automata.dfa.DFA` (its moves read off its row) and a term
over a `brzozowski.automata.lazy.LazyDFA` (one derivative per derivative class): the walks in Python
then number no state they pass through, and build no row for it. Invariant of `Expander.expand`: the
children it appends are exactly the node's children whose byte the state does not send to DEAD,
each with its target state, whichever way it finds them:

- a term b·r (a property name, a literal: one live byte) goes on to r at once;
- a term whose moves are not known is derived by each child's byte at a node of few children, or
  by each byte it begins with when those are few (no derivative classes computed);
- otherwise from its `Moves`: each live byte found among the sorted labels when fewer than the
  node's children, else the children scanned. On a class trie a label is the lowest byte of its
  class, so finding every live byte finds exactly the live classes.

A child where every token ends needs no derivative: under a term without ``&`` or ``~`` (which
derives to ∅ exactly by the bytes outside its `first`) it lives iff the term begins with its byte,
and its state is None (never expanded). ∅, or an empty language under ``&`` / ``~``, is DEAD.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import numpy as np

from ..automata.lazy import is_empty
from ..core.alphabet import ALL_BYTES, DEAD, ByteClasses, partition_of
from ..core.derivatives import derivative, derivative_classes
from ..core.terms import EMPTY, EPSILON, K_BYTES, K_CONCAT, K_STAR, Term
from .cache import BoundedCache
from .tuning import Tuning

__all__ = ["Expander", "Moves", "children_with", "is_word", "live_term", "split"]


class Moves:
    """One state's transitions: the class of every byte (``class_of``, a bytes object), the
    classes (byte sets, ``classes``), the target of each class (``targets``: a state, or None for
    DEAD), the live bytes (``live``, a 256-bit set) and, when few, the live (byte, target) pairs
    (``pairs``, else None)."""

    __slots__ = ("class_of", "classes", "live", "pairs", "targets")

    def __init__(self, class_of: bytes, classes: tuple[int, ...], targets: list, live: int,
                 few_pairs: int) -> None:
        self.class_of, self.classes, self.targets, self.live = class_of, classes, targets, live
        self.pairs: list[tuple[int, object]] | None = None
        if live.bit_count() <= few_pairs:
            self.pairs = []
            for bits, target in zip(classes, targets):
                if target is not None:
                    add_pairs(bits, target, self.pairs)


def add_pairs(bits: int, target: object, pairs: list) -> None:
    """Append (b, target) to `pairs` for every byte b of the set `bits`, ascending."""
    while bits:
        low = bits & -bits
        bits ^= low
        pairs.append((low.bit_length() - 1, target))


def live_term(term: Term, max_states: int) -> bool:
    """Whether a derivative leads anywhere: not ∅, and (under ``&`` or ``~``) not empty."""
    return term is not EMPTY and not (term.boolean and is_empty(term, max_states))


def children_with(bits: int, labels: bytes, lo: int, count: int) -> list[int]:
    """The children ``lo:lo + count`` of a node (their bytes in `labels`, ascending) whose byte is in
    the 256-bit set `bits`, ascending: each byte found among the labels."""
    children = []
    while bits:
        low = bits & -bits
        bits ^= low
        child = labels.find(low.bit_length() - 1, lo, lo + count)
        if child >= 0:
            children.append(child)
    return children


def split(term: Term) -> tuple[Term, Term]:
    """A term as head and tail: a concatenation's two children, else the term and ε."""
    return term.children if term.kind == K_CONCAT else (term, EPSILON)


def is_word(term: Term) -> bool:
    """Whether `term` begins with a single byte (a byte string's first: ``b`` or ``b·r``)."""
    head = term.children[0] if term.kind == K_CONCAT else term
    return head.kind == K_BYTES and not head.bits & (head.bits - 1)


def loops_on(term: Term, b: int) -> bool:
    """Whether ∂b term is `term` itself, known without deriving it: ``S*·T`` where T does not begin
    with b and ∂b S is ε, as S's memo already says (a string's body by a one-byte character)."""
    if term.kind != K_CONCAT:
        return False
    head, tail = term.children
    if head.kind != K_STAR or (tail.first >> b) & 1:
        return False
    memo = head.children[0].derivatives
    ref = None if memo is None else memo.get(b)
    return ref is not None and ref() is EPSILON


class Expander:
    """Expands trie nodes for the walks in Python over one automaton: holds the moves of the
    states met (bounded) and the last derivatives computed (``recent``: a term's memoized
    derivatives are held weakly, and the advance by the chosen token derives them again)."""

    def __init__(self, automaton, tuning: Tuning) -> None:
        self.automaton = automaton
        self.tuning = tuning
        self.lazy = getattr(automaton, "state_of", None) is not None
        self.memo = BoundedCache(tuning.index_memo_entries)  # state or term -> `Moves`
        self.recent: deque[Term] = deque(maxlen=tuning.recent_derivatives)

    def moves(self, s: int | Term) -> Moves:
        """The moves of `s` (a state number, or a lazy automaton's term), kept."""
        found = self.memo.get(s)
        if found is None:
            few = self.tuning.few_pairs
            if s.__class__ is int:
                found = _row_moves(self.automaton.row(s), few)
            else:
                found = _term_moves(s, self.automaton.max_states, self.recent, few)
            self.memo.put(s, found)
        return found

    def live_bytes(self, s: int | Term) -> int:
        """The bytes that go on from `s` (a term without & or ~ begins with exactly its `first`)."""
        return s.first if s.__class__ is not int and not s.boolean else self.moves(s).live

    def expand(self, s: int | Term, lo: int, count: int, labels: bytes, nodes: list, states: list,
               child_count: Sequence[int] | None = None) -> int:
        """Append the live children ``lo:lo + count`` of a node in state `s` to `nodes`, their
        states to `states` (see the module docstring); given `child_count`, a child without
        children gets no derivative. Returns how many children were looked at."""
        if s.__class__ is not int and s.kind == K_CONCAT:
            head = s.children[0]
            if head.kind == K_BYTES and head.bits & (head.bits - 1) == 0:
                child = labels.find(head.bits.bit_length() - 1, lo, lo + count)
                if child >= 0:
                    nodes.append(child)
                    states.append(s.children[1])
                return 1
        moves = self.memo.get(s)
        if moves is None:
            if s.__class__ is not int:
                few = self.tuning.few_children
                leaves = None if s.boolean else child_count  # (a term with & or ~ may derive to nothing)
                if count <= few:
                    return self.few_children(s, lo, count, labels, nodes, states, leaves)
                if s.first.bit_count() <= few:
                    return self.first_bytes(s, lo, count, labels, nodes, states, leaves)
                if self.tuning.classes_per_child * count < len(derivative_classes(s)):
                    return self.few_children(s, lo, count, labels, nodes, states, leaves)
            moves = self.moves(s)
        pairs = moves.pairs
        if pairs is not None and len(pairs) < count:
            for b, target in pairs:
                child = labels.find(b, lo, lo + count)
                if child >= 0:
                    nodes.append(child)
                    states.append(target)
            return len(pairs)
        class_of, targets = moves.class_of, moves.targets
        for child in range(lo, lo + count):
            target = targets[class_of[labels[child]]]
            if target is not None:
                nodes.append(child)
                states.append(target)
        return count

    def few_children(self, term: Term, lo: int, count: int, labels: bytes, nodes: list, states: list,
                     leaves: Sequence[int] | None = None) -> int:
        """`expand` by the derivative by each child's byte, not one per class (nor moves kept)."""
        first = term.first
        max_states = self.automaton.max_states
        for child in range(lo, lo + count):
            b = labels[child]
            if (first >> b) & 1:
                if leaves is not None and not leaves[child]:
                    nodes.append(child)
                    states.append(None)
                    continue
                derived = derivative(term, b, self.recent)
                if live_term(derived, max_states):
                    nodes.append(child)
                    states.append(derived)
        return count

    def first_bytes(self, term: Term, lo: int, count: int, labels: bytes, nodes: list, states: list,
                    leaves: Sequence[int] | None = None) -> int:
        """`expand` of a term that begins with few bytes: each found among the labels, and derived."""
        max_states = self.automaton.max_states
        for child in children_with(term.first, labels, lo, count):
            if leaves is not None and not leaves[child]:
                nodes.append(child)
                states.append(None)
                continue
            derived = derivative(term, labels[child], self.recent)
            if live_term(derived, max_states):
                nodes.append(child)
                states.append(derived)
        return term.first.bit_count()

    def expand_below(self, term: int | Term, lo: int, count: int, labels: bytes,
                     child_count: Sequence[int], nodes: list, states: list) -> int:
        """`expand` for a walk below a path, where only the children with children of their own
        need a state: those are derived by their byte, or by class past ``few_inner`` of them; at
        a wide node whose term begins with few bytes, those bytes are found among the labels."""
        if term.__class__ is not Term or term.boolean or is_word(term) or self.memo.get(term) is not None:
            return self.expand(term, lo, count, labels, nodes, states)
        first = term.first
        children: Sequence[int] = range(lo, lo + count)
        if first.bit_count() < count // self.tuning.wide_node_fraction:
            children = children_with(first, labels, lo, count)
        start, inner, few_inner = len(nodes), 0, self.tuning.few_inner
        for child in children:
            b = labels[child]
            if (first >> b) & 1:
                if child_count[child]:
                    inner += 1
                    if inner > few_inner:  # a wide node: one derivative per class instead
                        del nodes[start:], states[start:]
                        return self.expand(term, lo, count, labels, nodes, states)
                    states.append(term if loops_on(term, b) else derivative(term, b, self.recent))
                else:
                    states.append(None)
                nodes.append(child)
        return count


def _term_moves(term: Term, max_states: int, keep: deque, few_pairs: int) -> Moves:
    """The moves of a term: ∂b term for one byte b of each derivative class that `first` holds."""
    classes = derivative_classes(term)
    first = term.first
    targets: list[Term | None] = []
    live = 0
    for bits in classes:
        target = None
        here = bits & first
        if here:
            derived = derivative(term, (here & -here).bit_length() - 1, keep)
            if live_term(derived, max_states):
                target = derived
                live |= here
        targets.append(target)
    return Moves(ByteClasses.of(classes).class_bytes, classes, targets, live, few_pairs)


def _row_moves(row: np.ndarray, few_pairs: int) -> Moves:
    """The moves of a numbered state from its row of 256 transitions (bytes grouped by target)."""
    groups: dict[int, int] = {}
    for b, target in enumerate(row.tolist()):
        groups[target] = groups.get(target, 0) | 1 << b
    classes = partition_of(list(groups.values()))
    targets = [int(row[(bits & -bits).bit_length() - 1]) for bits in classes]
    return Moves(ByteClasses.of(classes).class_bytes, classes,
                 [None if target == DEAD else target for target in targets],
                 ALL_BYTES ^ groups.get(DEAD, 0), few_pairs)
