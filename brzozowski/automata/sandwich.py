"""A term between two that forget its large repeat counts: what lets a pattern that counts its
own words share its masks across the counts.

A pattern such as ``(\\S+\\s+){0,49}\\S+`` changes state at every word it reads (the count goes
down by one), so every word meets a term no mask was computed for. Yet a token reads a few words
at most: whether the count is 49 or 48 changes the fate of no token. `repeat_sandwich` brackets
such a term X between

- *tight*: every repeat ``a{lo,hi}`` with ``hi > cap`` bounded by ``max(lo, cap)`` instead, and
- *loose*: every such repeat unbounded, ``a{lo,}``,

so that ``L(tight) ⊆ L(X) ⊆ L(loose)``: concatenation, alternation, star, bounded repeat (in
its body and in its upper bound) and intersection are monotone in their operands, and a repeat
with a smaller upper bound is a subset of the one with the larger. Both forget X's counts above
`cap`: every state of the word-counting pattern with more than `cap` words left has the same two.
The same inclusions hold of every context a term sits in (``tight · s ⊆ X · s`` ...), so a
token that ``tight · s`` allows, ``X · s`` allows, and a token ``loose · s`` refuses, ``X · s``
refuses: only the tokens between the two are X's own to decide (`brzozowski.json.masks.counted`).

A complement is not monotone (it turns inclusions round); a term with one inside has no
sandwich.

**Counts a bound makes idle.** Under a length bound no sandwich is needed where the count cannot
be reached: `unbounded_within` unbounds each repeat ``a{lo,hi}`` that no string of at most n units
(characters, bytes: what `shortest` measures) takes more than hi times of, ``hi >= n // m`` with
m ≥ 1 the fewest units of a string of a: every string of at most n units has the same fate in
both terms (a repeat's occurrence within such a string holds at most n // m iterations, and
every operator, complement included, keeps an agreement on the strings of at most n units: their
pieces are no longer). So ``X & K`` is ``X' & K`` for K of strings of at most n units, and a
pattern that counts its words under a ``maxLength`` that binds first is one state per position.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator

from ..core.terms import (K_ALT, K_COMPL, K_CONCAT, K_INTER, K_LEAF, K_REPEAT, K_STAR, Term, alt, compl, concat,
                          inter, repeat, star)

__all__ = ["repeat_sandwich", "unbounded_within"]


_NO_SANDWICH = (None, None)
_SANDWICHES: weakref.WeakKeyDictionary[Term, dict[int, tuple[Term, Term] | tuple[None, None]]] = (
    weakref.WeakKeyDictionary())
"""term -> {cap: its (tight, loose), a side that is the term itself written None, or
`_NO_SANDWICH` when no repeat inside is over the cap}; an entry lives as long as its term (the
states of a pattern share their subterms: each new state rebuilds its own few nodes). A value
never holds its key: a term holds only smaller terms, and the term itself is written None."""


def repeat_sandwich(term: Term, cap: int) -> tuple[Term, Term] | None:
    """(tight, loose) for `term` (see the module docstring): each repeat whose upper bound is over
    `cap` bounded by ``max(lo, cap)``, or unbounded; None if `term` has no such repeat, or a
    complement inside. Each node's sides memoized."""
    for t in _children_first(term, lambda t: cap in _SANDWICHES.get(t, ())):
        if t.kind == K_COMPL:
            return None
        sides = _rebuilt(t, cap)
        if sides is not _NO_SANDWICH:
            sides = (None if sides[0] is t else sides[0], None if sides[1] is t else sides[1])
        _SANDWICHES.setdefault(t, {})[cap] = sides
    return None if _SANDWICHES[term][cap] is _NO_SANDWICH else _sides(term, cap)


def _children_first(term: Term, known: Callable[[Term], bool]) -> Iterator[Term]:
    """The nodes of `term` (itself included) that are not `known`, each after its children (a
    leaf's inside is its own), on an explicit stack: a long literal is a concatenation as deep as
    it is long. The caller memoizes each node it is given before asking for the next, so that
    `known` holds of it from then on."""
    todo = [term]
    while todo:
        t = todo[-1]
        if known(t):
            todo.pop()
            continue
        waiting = [c for c in t.children if not known(c)] if t.kind != K_LEAF else []
        if waiting:
            todo.extend(waiting)
            continue
        todo.pop()
        yield t


def _sides(t: Term, cap: int) -> tuple[Term, Term]:
    tight, loose = _SANDWICHES[t][cap]
    return tight or t, loose or t


def _rebuilt(t: Term, cap: int) -> tuple[Term, Term] | tuple[None, None]:
    """(tight, loose) of one node, its children's already built; `_NO_SANDWICH` if both are `t`."""
    kind = t.kind
    big = kind == K_REPEAT and t.hi is not None and t.hi > cap
    if kind == K_LEAF or not (big or any(_SANDWICHES[c][cap] is not _NO_SANDWICH for c in t.children)):
        return _NO_SANDWICH
    tight = [_sides(c, cap)[0] for c in t.children]
    loose = [_sides(c, cap)[1] for c in t.children]
    if kind == K_CONCAT:
        return concat(*tight), concat(*loose)
    if kind == K_ALT:
        return alt(*tight), alt(*loose)
    if kind == K_INTER:
        return inter(*tight), inter(*loose)
    if kind == K_STAR:
        return star(tight[0]), star(loose[0])
    assert kind == K_REPEAT, kind
    if big:
        return repeat(tight[0], t.lo, max(t.lo, cap)), repeat(loose[0], t.lo, None)
    return repeat(tight[0], t.lo, t.hi), repeat(loose[0], t.lo, t.hi)


_UNBOUNDED: weakref.WeakKeyDictionary[Term, dict[tuple, Term | None]] = weakref.WeakKeyDictionary()
"""term -> {(n, shortest): `unbounded_within`'s term, None for the term itself}, for a term that
holds a bounded repeat; an entry lives as long as its term (a value never holds its key: a term
holds only smaller terms, and the term itself is written None)."""
_COUNTS: weakref.WeakKeyDictionary[Term, bool] = weakref.WeakKeyDictionary()
"""term -> whether it holds a bounded repeat (read once per term, whatever n)."""


def unbounded_within(term: Term, n: int, shortest: Callable[[Term], int | None]) -> Term:
    """`term` with each repeat ``a{lo,hi}`` with ``hi >= n // m`` unbounded, ``a{lo,}`` (m =
    ``shortest(a)``, the fewest units of a string of a; no change where it is None or 0): the same
    strings of at most n units (see the module docstring). Into the subterms that hold a bounded
    repeat only, each node's result memoized per (n, shortest)."""
    key = (n, shortest)
    for t in _children_first(term, lambda t: _unbounded_of(t, key) is not None):
        result = _unbounded(t, key)
        _UNBOUNDED.setdefault(t, {})[key] = None if result is t else result
    return _unbounded_of(term, key)


def _unbounded_of(t: Term, key: tuple) -> Term | None:
    """`unbounded_within` of `t` if known (`t` itself when it holds no bounded repeat), else None."""
    if not _counts(t):
        return t
    known = _UNBOUNDED.get(t)
    if known is None or key not in known:
        return None
    return known[key] or t


def _counts(term: Term) -> bool:
    """Whether `term` holds a bounded repeat (a leaf's inside is its own; memoized per term)."""
    for t in _children_first(term, _COUNTS.__contains__):
        inside = t.children if t.kind != K_LEAF else ()
        _COUNTS[t] = (t.kind == K_REPEAT and t.hi is not None) or any(_COUNTS[c] for c in inside)
    return _COUNTS[term]


def _unbounded(t: Term, key: tuple) -> Term:
    """`unbounded_within` of one node that holds a bounded repeat, its children's already built."""
    n, shortest = key
    children = [_unbounded_of(c, key) for c in t.children]
    if t.kind == K_REPEAT:
        hi = t.hi
        if hi is not None:
            m = shortest(t.children[0])
            if m and hi >= n // m:
                hi = None
        return t if hi == t.hi and children[0] is t.children[0] else repeat(children[0], t.lo, hi)
    if all(c is d for c, d in zip(children, t.children)):
        return t
    return _REBUILD[t.kind](*children)


_REBUILD = {K_CONCAT: concat, K_ALT: alt, K_INTER: inter, K_STAR: star, K_COMPL: compl}
