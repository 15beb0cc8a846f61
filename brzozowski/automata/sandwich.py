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
"""

from __future__ import annotations

import weakref

from ..core.terms import (K_ALT, K_COMPL, K_CONCAT, K_INTER, K_LEAF, K_REPEAT, K_STAR, Term, alt, concat, inter,
                          repeat, star)

__all__ = ["repeat_sandwich"]


_NO_SANDWICH = (None, None)
_SANDWICHES: weakref.WeakKeyDictionary[Term, dict[int, tuple[Term, Term] | tuple[None, None]]] = (
    weakref.WeakKeyDictionary())
"""term -> {cap: its (tight, loose), or `_NO_SANDWICH` when both are the term itself}; an entry lives as
long as its term (the states of a pattern share their subterms: each new state rebuilds its own
few nodes)."""


def repeat_sandwich(term: Term, cap: int) -> tuple[Term, Term] | None:
    """(tight, loose) for `term` (see the module docstring): each repeat whose upper bound is over
    `cap` bounded by ``max(lo, cap)``, or unbounded; None if `term` has no such repeat, or a
    complement inside. Children before parents on an explicit stack (a long literal is a
    concatenation as deep as it is long), each node's sides memoized."""
    todo = [term]
    while todo:
        t = todo[-1]
        if cap in _SANDWICHES.get(t, ()):
            todo.pop()
            continue
        if t.kind == K_COMPL:
            return None
        waiting = [c for c in t.children if cap not in _SANDWICHES.get(c, ())] if t.kind != K_LEAF else []
        if waiting:
            todo.extend(waiting)
            continue
        todo.pop()
        _SANDWICHES.setdefault(t, {})[cap] = _rebuilt(t, cap)
    found = _SANDWICHES[term][cap]
    return None if found is _NO_SANDWICH else found


def _sides(t: Term, cap: int) -> tuple[Term, Term]:
    found = _SANDWICHES[t][cap]
    return (t, t) if found is _NO_SANDWICH else found


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
