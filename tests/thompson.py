"""An independent reference construction, for the tests only: Thompson NFA → subset construction →
liveness → Moore → breadth-first numbering, the canonical DFA of docs/semantics.md.

It shares nothing with the library: it reads Python's own parse tree (`re._parser`) rather than
our parser, builds NFA fragments rather than derivatives, and minimizes with plain Python Moore
rounds rather than numpy. The library's canonical tables must equal its output array for array.
"""

from __future__ import annotations

import re._constants as C
import re._parser as P
from collections import deque

import numpy as np

ALL = (1 << 256) - 1
DIGIT = sum(1 << b for b in b"0123456789")
SPACE = sum(1 << b for b in b" \t\n\r\f\v")
WORD = sum(1 << b for b in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
CATEGORIES = {
    C.CATEGORY_DIGIT: DIGIT, C.CATEGORY_NOT_DIGIT: ALL ^ DIGIT,
    C.CATEGORY_SPACE: SPACE, C.CATEGORY_NOT_SPACE: ALL ^ SPACE,
    C.CATEGORY_WORD: WORD, C.CATEGORY_NOT_WORD: ALL ^ WORD,
}


class NFA:
    """States are ints; `eps[s]` lists ε-successors, `edges[s]` lists (byte set, successor)."""

    def __init__(self) -> None:
        self.eps: list[list[int]] = []
        self.edges: list[list[tuple[int, int]]] = []

    def new(self) -> int:
        self.eps.append([])
        self.edges.append([])
        return len(self.eps) - 1

    def fragment(self, items) -> tuple[int, int]:
        """Build a fragment for a sequence of parse items; return (entry, exit)."""
        entry = exit_ = self.new()
        for op, av in items:
            e, x = self.item(op, av)
            self.eps[exit_].append(e)
            exit_ = x
        return entry, exit_

    def byte_set(self, bits: int) -> tuple[int, int]:
        e, x = self.new(), self.new()
        self.edges[e].append((bits, x))
        return e, x

    def item(self, op, av) -> tuple[int, int]:
        if op is C.LITERAL:
            return self.byte_set(1 << av)
        if op is C.NOT_LITERAL:
            return self.byte_set(ALL ^ (1 << av))
        if op is C.ANY:
            return self.byte_set(ALL ^ (1 << 10))
        if op is C.IN:
            return self.byte_set(class_bits(av))
        if op is C.SUBPATTERN:
            return self.fragment(av[-1])
        if op is C.BRANCH:
            e, x = self.new(), self.new()
            for branch in av[1]:
                be, bx = self.fragment(branch)
                self.eps[e].append(be)
                self.eps[bx].append(x)
            return e, x
        if op is C.MAX_REPEAT:
            lo, hi, body = av
            e = x = self.new()
            for _ in range(lo):  # lo mandatory copies
                ce, cx = self.fragment(body)
                self.eps[x].append(ce)
                x = cx
            if hi == C.MAXREPEAT:  # then a loop
                loop = self.new()
                self.eps[x].append(loop)
                ce, cx = self.fragment(body)
                self.eps[loop].append(ce)
                self.eps[cx].append(loop)
                return e, loop
            end = self.new()
            for _ in range(hi - lo):  # then optional copies, each may skip to the end
                self.eps[x].append(end)
                ce, cx = self.fragment(body)
                self.eps[x].append(ce)
                x = cx
            self.eps[x].append(end)
            return e, end
        raise NotImplementedError(f"reference construction: unsupported item {op} {av}")


def class_bits(items) -> int:
    bits = 0
    negate = False
    for op, av in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            bits |= 1 << av
        elif op is C.RANGE:
            lo, hi = av
            bits |= ((1 << (hi + 1)) - 1) ^ ((1 << lo) - 1)
        elif op is C.CATEGORY:
            bits |= CATEGORIES[av]
        else:
            raise NotImplementedError(f"reference construction: class item {op}")
    return ALL ^ bits if negate else bits


def closure(nfa: NFA, states) -> frozenset[int]:
    seen = set(states)
    stack = list(states)
    while stack:
        for t in nfa.eps[stack.pop()]:
            if t not in seen:
                seen.add(t)
                stack.append(t)
    return frozenset(seen)


def reference_tables(pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """(accept bool[S], trans int32[S, 256]) of the canonical DFA of `pattern`, built independently."""
    nfa = NFA()
    start, final = nfa.fragment(P.parse(pattern.encode("latin-1")))
    # Byte classes: every edge label is a union of classes.
    labels = {bits for edges in nfa.edges for bits, _ in edges}
    class_of = [0] * 256
    signature = {}
    for b in range(256):
        key = tuple(sorted(lbl for lbl in labels if (lbl >> b) & 1))
        class_of[b] = signature.setdefault(key, len(signature))
    representatives = {}
    for b in range(256):
        representatives.setdefault(class_of[b], b)
    # Subset construction; the empty set is DEAD (-1), never a state.
    first = closure(nfa, [start])
    sets = [first]
    index = {first: 0}
    table: list[list[int]] = []
    i = 0
    while i < len(sets):
        current = sets[i]
        row_by_class = {}
        for cls, b in representatives.items():
            moved = [t for s in current for bits, t in nfa.edges[s] if (bits >> b) & 1]
            target = closure(nfa, moved) if moved else frozenset()
            if not target:
                row_by_class[cls] = -1
                continue
            if target not in index:
                index[target] = len(sets)
                sets.append(target)
            row_by_class[cls] = index[target]
        table.append([row_by_class[class_of[b]] for b in range(256)])
        i += 1
    accept = [final in s for s in sets]
    # Liveness: backward search from the accepting states.
    reverse: list[set[int]] = [set() for _ in sets]
    for s, row in enumerate(table):
        for t in row:
            if t >= 0:
                reverse[t].add(s)
    live = {s for s, a in enumerate(accept) if a}
    stack = list(live)
    while stack:
        for s in reverse[stack.pop()]:
            if s not in live:
                live.add(s)
                stack.append(s)
    table = [[t if t in live else -1 for t in row] for row in table]
    keep = [s for s in range(len(sets)) if s in live]
    # Moore: start from accepting / not, split until stable.
    block = {s: int(accept[s]) for s in keep}
    while True:
        signatures = {}
        refined = {}
        for s in keep:
            key = (block[s], tuple(block[t] if t >= 0 else -1 for t in table[s]))
            refined[s] = signatures.setdefault(key, len(signatures))
        if len(signatures) == len(set(block.values())):
            break
        block = refined
    # Number breadth first from the start block, bytes ascending.
    rep = {}
    for s in keep:
        rep.setdefault(block[s], s)
    number = {block[0]: 0}
    queue = deque([block[0]])
    while queue:
        bl = queue.popleft()
        for t in table[rep[bl]]:
            if t >= 0 and block[t] not in number:
                number[block[t]] = len(number)
                queue.append(block[t])
    n = len(number)
    accept_out = np.zeros(n, dtype=bool)
    trans_out = np.full((n, 256), -1, dtype=np.int32)
    for bl, num in number.items():
        s = rep[bl]
        accept_out[num] = accept[s]
        trans_out[num] = [number[block[t]] if t >= 0 else -1 for t in table[s]]
    return accept_out, trans_out
