"""Brzozowski derivatives of terms, and the derivative classes that let us take one per class.

The derivative of a language L by a byte b is ``{w | b·w ∈ L}``: what may follow once b was read.
On terms it is a short recursion (all simplification happens in the smart constructors of
`brzozowski.terms`)::

    ∂b ∅ = ∂b ε = ∅            ∂b S = ε if b ∈ S else ∅
    ∂b (r·s) = ∂b r · s  |  (∂b s if r is nullable)
    ∂b (r|s) = ∂b r | ∂b s     ∂b r* = ∂b r · r*
    ∂b r{m,n} = ∂b r · r{max(m-1,0), n-1}
    ∂b (r&s) = ∂b r & ∂b s     ∂b ~r = ~∂b r

A string w is in L(r) iff the derivative of r by w (byte after byte) is nullable.

The *derivative classes* of r are a partition of the 256 bytes such that all bytes of a class give
the same derivative, so a DFA state needs one derivative per class, not per byte::

    C(∅) = C(ε) = {Σ}          C(S) = {S, Σ∖S}
    C(r·s) = C(r), or C(r) ∧ C(s) when r is nullable
    C(r|s) = C(r&s) = C(r) ∧ C(s)       C(r*) = C(r{m,n}) = C(~r) = C(r)

where P ∧ Q is the coarsest common refinement. A partition is a tuple of non-empty, disjoint 256-bit
sets whose union is all bytes, ordered by their lowest byte. (The classes may be finer than needed,
never coarser.)

Both are memoized on the term: each term remembers its derivatives by byte and its classes.

>>> from brzozowski.syntax import parse
>>> r = parse("(cat|car|dog)s?")
>>> str(derivative_of_string(r, b"ca"))
'[rt]s?'
>>> matches(r, b"cars"), matches(r, b"ca")
(True, False)
>>> len(derivative_classes(r))  # {c}, {d}, everything else
3

Reference: J. Brzozowski, "Derivatives of regular expressions", J. ACM 11(4), 1964; Owens, Reppy
and Turon 2009, §4.2 (derivative classes).
"""

from __future__ import annotations

from .terms import (
    ALL_BYTES,
    EMPTY,
    EPSILON,
    K_ALT,
    K_BYTES,
    K_COMPL,
    K_CONCAT,
    K_EMPTY,
    K_EPSILON,
    K_INTER,
    K_STAR,
    Term,
    alt,
    compl,
    concat,
    inter,
    repeat,
)

__all__ = [
    "alphabet_classes", "derivative", "derivative_classes", "derivative_of_string", "matches", "meet",
]

_TRIVIAL_PARTITION: tuple[int, ...] = (ALL_BYTES,)


def derivative(term: Term, b: int) -> Term:
    """The derivative of `term` by the byte `b` (memoized on the term)."""
    if not (term.first >> b) & 1:  # no string of the language starts with b
        return EMPTY
    cached = term.derivatives.get(b)
    if cached is not None:
        return cached
    kind = term.kind
    if kind == K_BYTES:  # b is in the set: `first` said so
        result = EPSILON
    elif kind == K_CONCAT:
        head, tail = term.children
        result = concat(derivative(head, b), tail)
        if head.nullable:
            result = alt(result, derivative(tail, b))
    elif kind == K_ALT:
        result = alt(*[derivative(t, b) for t in term.children])
    elif kind == K_STAR:
        result = concat(derivative(term.children[0], b), term)
    elif kind == K_INTER:
        result = inter(*[derivative(t, b) for t in term.children])
    elif kind == K_COMPL:
        result = compl(derivative(term.children[0], b))
    else:  # K_REPEAT
        body = term.children[0]
        rest = repeat(body, max(term.lo - 1, 0), None if term.hi is None else term.hi - 1)
        result = concat(derivative(body, b), rest)
    term.derivatives[b] = result
    return result


def derivative_of_string(term: Term, data: bytes) -> Term:
    """The derivative of `term` by every byte of `data` in turn; stops early at ∅."""
    for b in data:
        if term is EMPTY:
            break
        term = derivative(term, b)
    return term


def matches(term: Term, data: bytes) -> bool:
    """Whether `data` is in the language of `term` (full match)."""
    return derivative_of_string(term, data).nullable


def derivative_classes(term: Term) -> tuple[int, ...]:
    """A partition of the 256 bytes into sets whose bytes give the same derivative (memoized)."""
    classes = term.classes
    if classes is None:
        classes = term.classes = _classes(term)
    return classes


def _classes(term: Term) -> tuple[int, ...]:
    kind = term.kind
    if kind == K_EMPTY or kind == K_EPSILON:
        return _TRIVIAL_PARTITION
    if kind == K_BYTES:
        return _canonical((term.bits, ALL_BYTES ^ term.bits))
    if kind == K_CONCAT:
        head, tail = term.children
        if head.nullable:
            return meet(derivative_classes(head), derivative_classes(tail))
        return derivative_classes(head)
    if kind == K_ALT or kind == K_INTER:
        result = _TRIVIAL_PARTITION
        for t in term.children:
            result = meet(result, derivative_classes(t))
        return result
    return derivative_classes(term.children[0])  # star, repeat, complement


def alphabet_classes(term: Term) -> tuple[int, ...]:
    """The partition of the bytes that no byte set inside `term` tells apart.

    Every derivative of `term`, however deep, is built by the constructors from those byte sets,
    unions and intersections of them (`alt` and `inter` merge byte-set operands), and ε, ∅ and
    ``~∅``, which tell no bytes apart; a class of this partition lies inside or outside each one.
    So it refines the derivative classes of every state reachable from `term`: bytes of one class
    lead from every such state to the same state.
    """
    partition = _TRIVIAL_PARTITION
    seen: set[int] = set()
    todo = [term]
    while todo:
        t = todo.pop()
        if t.id not in seen:
            seen.add(t.id)
            if t.kind == K_BYTES:
                partition = meet(partition, derivative_classes(t))
            todo.extend(t.children)
    return partition


_PARTITIONS: dict[tuple[int, ...], tuple[int, ...]] = {}
_MEETS: dict[tuple[int, int], tuple[int, ...]] = {}


def _canonical(sets: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """The interned partition made of the non-empty `sets`, ordered by lowest byte."""
    key = tuple(sorted((s for s in sets if s), key=lambda s: s & -s))
    return _PARTITIONS.setdefault(key, key)


def meet(p: tuple[int, ...], q: tuple[int, ...]) -> tuple[int, ...]:
    """The coarsest partition refining both `p` and `q` (partitions are interned, so memoized)."""
    if p is q or len(q) == 1:
        return p
    if len(p) == 1:
        return q
    key = (id(p), id(q))
    result = _MEETS.get(key)
    if result is None:
        result = _canonical([a & b for a in p for b in q if a & b])
        _MEETS[key] = result
    return result
