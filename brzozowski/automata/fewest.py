"""The fewest repetitions after which a term can end: what makes a counted intersection non-empty.

A JSON string bounded by a length and a pattern or format is, inside, an intersection of a
*counted* term with one that does not count: ``X & C{lo,hi} S``, with C one character (every
spelling of it), S what follows the characters (the closing quote, or nothing: one byte of a set,
or ε) and X the pattern or format state. Each character read makes a new term (hi goes down by
one), so an emptiness search of such a term derives a fresh path every time and reuses nothing.
But whether it is empty depends on X only through the counts X can end at: `fewest_repeats` finds
the fewest, n, once per (X, C, S) (X recurs: a pattern's or format's states are few), and
``lo <= n <= hi`` proves the term not empty without a search.

Invariant: ``fewest_repeats(x, c, s) == n`` means some string ``c1…cn s'`` (each ci in C, s' in S)
is in X, and no count below n has one; None means none was found within `FEWEST_BUDGET` pairs
(or no count ever has one). `counted_not_empty` therefore only ever answers "not empty"; "don't
know" sends the caller to its search, so its answers are those of the search, sooner.

>>> from brzozowski.core.syntax import parse
>>> from brzozowski.core.terms import repeat
>>> x, c, quote = parse("a*bb(cc)*!"), parse("[a-c]"), parse("!")
>>> fewest_repeats(x, c, quote)
2
>>> counted_not_empty(x & (repeat(c, 0, 7) + quote)), counted_not_empty(x & (repeat(c, 0, 1) + quote))
(True, False)
"""

from __future__ import annotations

import weakref

from ..budget import check_deadline
from ..core.derivatives import derivative, derivative_classes
from ..core.terms import (EMPTY, EPSILON, K_ALT, K_BYTES, K_CONCAT, K_EMPTY, K_EPSILON, K_INTER, K_LEAF,
                          K_REPEAT, K_STAR, Term)

__all__ = ["FEWEST_BUDGET", "completion_bound", "counted_not_empty", "fewest_repeats", "fewest_repeats_after",
           "shortest"]

FEWEST_BUDGET = 4096
"""The most (X-derivative, C-derivative) pairs one `fewest_repeats` visits: the states of a pattern
or format reached a few characters deep are a few hundred at most; past the budget the answer is
None and the caller searches as before."""

_UNKNOWN = -1
_FEWEST: weakref.WeakKeyDictionary[Term, dict[tuple[int, int], int]] = weakref.WeakKeyDictionary()
"""X -> {(C's id, S's id): the fewest count, or `_UNKNOWN`}; an entry lives as long as X does
(term ids are never reused, so the inner keys cannot alias)."""


def counted_not_empty(term: Term) -> bool:
    """True if `term` is ``X & C{lo,hi} S`` (two operands; the counted one a bounded repeat, alone
    or followed by S) and X ends after a count within ``lo..hi``: then its language is not empty.
    False means "not shown", never "empty"."""
    if term.kind != K_INTER or len(term.children) != 2:
        return False
    for x, counted in (term.children, term.children[::-1]):
        if counted.kind == K_REPEAT and counted.hi is not None:
            c, s = counted.children[0], EPSILON
        elif counted.kind == K_CONCAT and counted.children[0].kind == K_REPEAT and counted.children[0].hi is not None:
            c, s = counted.children[0].children[0], counted.children[1]
            counted = counted.children[0]
        else:
            continue
        if c.boolean or not (s is EPSILON or s.kind == K_BYTES):
            continue
        n = fewest_repeats(x, c, s)
        if n is not None and counted.lo <= n <= counted.hi:
            return True
    return False


def fewest_repeats(x: Term, c: Term, s: Term) -> int | None:
    """The fewest n such that ``X & C{n} S`` is not empty (memoized per (X, C, S)), or None: none
    found within `FEWEST_BUDGET` pairs, or no count has one. Levels of X's derivatives, breadth
    first: level n holds X's derivatives by the strings of n characters of C."""
    memo = _FEWEST.get(x)
    key = (c.id, s.id)
    if memo is not None and key in memo:
        found = memo[key]
        return None if found == _UNKNOWN else found
    found = _search(x, c, s)
    _FEWEST.setdefault(x, {})[key] = _UNKNOWN if found is None else found
    return found


def fewest_repeats_after(x: Term, head: Term, c: Term, s: Term) -> int | None:
    """The fewest n such that ``X & H C{n} S`` is not empty (H: `head`, strings of one piece, the rest
    of a character begun), or None when a derivative of X by a string of H has no count found:
    the least of `fewest_repeats` over X's derivatives by H's strings."""
    keep: list[Term] = []
    after: set[Term] = set()
    if _after_one(x, head, after, 0, keep) > FEWEST_BUDGET:
        return None
    counts = [fewest_repeats(y, c, s) for y in after]
    return None if not counts or None in counts else min(counts)


def _search(x: Term, c: Term, s: Term) -> int | None:
    keep: list[Term] = []  # the derivatives, alive while the search runs (memos are weak)
    level, levels_seen, pairs = {x}, set(), 0
    for n in range(FEWEST_BUDGET):
        if any(_ends(t, s) for t in level):
            return n
        frozen = frozenset(level)
        if frozen in levels_seen:
            return None  # the levels cycle: no later count ends either
        levels_seen.add(frozen)
        following: set[Term] = set()
        for t in level:
            pairs = _after_one(t, c, following, pairs, keep)
            if pairs > FEWEST_BUDGET:
                return None
        if not following:
            return None
        level = following
    return None


def _ends(t: Term, s: Term) -> bool:
    """Whether ``t & S`` is not empty, for S nothing or one byte of a set (the closing quote)."""
    if s is EPSILON:
        return t.nullable
    bits = s.bits & t.first
    while bits:
        b = (bits & -bits).bit_length() - 1
        if derivative(t, b).nullable:
            return True
        bits &= bits - 1
    return False


def _after_one(t: Term, c: Term, into: set[Term], pairs: int, keep: list[Term]) -> int:
    """Add to `into` the derivatives of `t` by every string of C (one character); returns `pairs`
    plus the (t-derivative, C-derivative) pairs visited."""
    todo, seen = [(t, c)], {(t, c)}
    while todo:
        check_deadline()
        here, rest = todo.pop()
        pairs += 1
        if pairs > FEWEST_BUDGET:
            return pairs
        if rest.nullable:
            into.add(here)
        for c_class in derivative_classes(rest):
            common = c_class & rest.first & here.first
            for t_class in derivative_classes(here):
                both = common & t_class
                if not both:
                    continue
                b = (both & -both).bit_length() - 1
                nxt = (derivative(here, b, keep), derivative(rest, b, keep))
                if nxt[0] is not EMPTY and nxt[1] is not EMPTY and nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
    return pairs


# -- how far from its end a term can be ------------------------------------------------------------

_SHORTEST: weakref.WeakKeyDictionary[Term, int] = weakref.WeakKeyDictionary()
_BOUND: weakref.WeakKeyDictionary[Term, int] = weakref.WeakKeyDictionary()
_PLAIN = frozenset({K_EMPTY, K_EPSILON, K_BYTES, K_CONCAT, K_ALT, K_STAR, K_REPEAT})
"""The kinds `shortest` and `completion_bound` read: the regular operators, and the leaves of a
table (their distances, `brzozowski.automata.leaves.LeafAutomaton.ending`). An intersection or a
complement makes both None: their shortest strings are no function of their operands'."""


def shortest(term: Term) -> int | None:
    """The length in bytes of the shortest string of `term` (a term of `_PLAIN` kinds or table
    leaves, its language not empty), or None for a term with another kind inside."""
    return _evaluate(term)[0]


def completion_bound(term: Term) -> int | None:
    """A bound B on how far every state reachable from `term` is from its end: for every string u
    whose derivative ``D_u(term)`` is not empty, some v of at most B bytes has uv in the language
    (None: an intersection, a complement or a leaf over a term inside).

    Read off the structure, since a derivative of ``a b`` is ``D(a) b`` or ``D(b)`` (when a is
    nullable), one of ``a{lo,hi}`` is ``D(a) a{lo-1,hi-1}``, one of ``a*`` is ``D(a) a*``:
    ``B(a b) = max(B(a) + shortest(b), B(b))``, ``B(a | b) = max(B(a), B(b))``, ``B(a*) = B(a)``,
    ``B(a{lo,hi}) = B(a) + lo · shortest(a)``, one byte 1, ε 0. A state of a counted string is
    as far from its end as its uncounted side says, so a length bound that leaves B characters
    free after a token cannot be what refuses the token (`brzozowski.json.masks.counted`)."""
    return _evaluate(term)[1]


def _evaluate(term: Term) -> tuple[int | None, int | None]:
    """(shortest, completion_bound) of `term`, memoized per term, children before parents on an
    explicit stack (a long literal is a concatenation as deep as it is long)."""
    if term in _BOUND:
        return _SHORTEST[term], _BOUND[term]
    todo = [term]
    while todo:
        t = todo[-1]
        if t in _BOUND:
            todo.pop()
            continue
        if t.kind == K_LEAF:
            ending = getattr(t.table, "ending", None)
            ending = ending(t.lo) if ending is not None else None
            if ending is None:
                return None, None
            todo.pop()
            _SHORTEST[t], _BOUND[t] = ending
            continue
        if t.kind not in _PLAIN:
            return None, None
        waiting = [c for c in t.children if c not in _BOUND]
        if waiting:
            todo.extend(waiting)
            continue
        todo.pop()
        _SHORTEST[t], _BOUND[t] = _combine(t)
    return _SHORTEST[term], _BOUND[term]


def _combine(t: Term) -> tuple[int, int]:
    kind = t.kind
    if kind == K_EMPTY or kind == K_EPSILON:
        return 0, 0
    if kind == K_BYTES:
        return 1, 1
    if kind == K_CONCAT:
        a, b = t.children
        return _SHORTEST[a] + _SHORTEST[b], max(_BOUND[a] + _SHORTEST[b], _BOUND[b])
    if kind == K_ALT:
        return min(_SHORTEST[c] for c in t.children), max(_BOUND[c] for c in t.children)
    body = t.children[0]
    if kind == K_STAR:
        return 0, _BOUND[body]
    return t.lo * _SHORTEST[body], _BOUND[body] + t.lo * _SHORTEST[body]  # K_REPEAT
