"""Brzozowski derivatives of terms, and the derivative classes that let us take one per class.

The derivative of a language L by a byte b is ``{w | b·w ∈ L}``: what may follow once b was read.
On terms it is a short recursion (all simplification happens in the smart constructors of
`brzozowski.core.terms`)::

    ∂b ∅ = ∂b ε = ∅            ∂b S = ε if b ∈ S else ∅
    ∂b (r·s) = ∂b r · s  |  (∂b s if r is nullable)
    ∂b (r|s) = ∂b r | ∂b s     ∂b r* = ∂b r · r*
    ∂b r{m,n} = ∂b r · r{max(m-1,0), n-1}
    ∂b (r&s) = ∂b r & ∂b s     ∂b ~r = ~∂b r
    ∂b leaf(A, q) = leaf(A, δA(q, b))   (∅ for DEAD, ε for a state whose language is {ε})

A string w is in L(r) iff the derivative of r by w (byte after byte) is nullable. The commonest
case costs nothing: for a byte set S holding b, ∂b(S·r) = r is the concatenation's own tail (a
literal's next byte, a property name's), returned as it is, with no rule run and no memo written.

The *derivative classes* of r are a partition of the 256 bytes such that all bytes of a class give
the same derivative, so a DFA state needs one derivative per class, not per byte::

    C(∅) = C(ε) = {Σ}          C(S) = {S, Σ∖S}
    C(r·s) = C(r), or C(r) ∧ C(s) when r is nullable
    C(r|s) = C(r&s) = C(r) ∧ C(s)       C(r*) = C(r{m,n}) = C(~r) = C(r)
    C(leaf(A, q)) = the classes of A's state q (bytes that lead to one state)

where P ∧ Q is the coarsest common refinement. A partition is a tuple of non-empty, disjoint 256-bit
sets whose union is all bytes, ordered by their lowest byte. (The classes may be finer than needed,
never coarser.)

Both are memoized on the term: each term remembers its derivatives by byte and its classes, so the
memos die with the term. A derivative memo refers to its result *weakly*: whoever needs derivatives
to last keeps their terms (a `brzozowski.automata.lazy.LazyDFA` its states, whose sub-terms hold the
sub-terms' derivatives). Strong memos would form reference cycles along every loop of the automaton
(``∂a(a*) = a*``), so a dropped pattern's terms would wait for a full garbage collection, which then
frees the garbage of hundreds of patterns in one pause (issue 9). A term that a process-wide cache
shares between patterns (a JSON schema's "any value", a parsed ``pattern``) is marked with
`keep_derivatives`: its derivatives, and theirs, are held strongly as long as it lives, so every
automaton that reaches it reuses them.

A token's bytes through a concatenation H·T are read through H alone while that is the rule
(`derivative_through_heads`: ``∂b(H·T) = ∂bH·T`` when H is not nullable or T does not begin with
b), so one concatenation is built per run of bytes, not one per byte; an alternation of words
option by option (`derivative_by_options`). Both give the very term the bytes one by one give.

Neither recurses: each walks an explicit stack of the sub-terms it still needs (post-order), so a
deep term (a long concatenation of nullable parts, deeply nested groups) costs heap, not Python
stack. The rules themselves are one short function per kind (`_derive`,
`_classes`); `_needed` says which sub-terms each rule reads.

**Time.** One call that runs many rules (not memo reads) checks the current deadline
(`brzozowski.budget.check_deadline`) every `RULES_PER_CHECK` rules: one derivative of a deep term
can build terms in proportion to the square of its depth (``((a*b)*b)*…``: each level re-nests the
concatenation below it), so whoever opened a deadline (a compile, a mask step) is obeyed inside one
call too. A call of fewer rules costs no check: its caller's loop checks (an automaton, per state).

Partitions, their meet and its memos live in `brzozowski.core.alphabet`.

>>> from brzozowski.core.syntax import parse
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

import weakref
from collections.abc import Callable

from ..budget import check_deadline
from .alphabet import ALL_BYTES, ONE_CLASS, meet, partition_by, partition_of
from .terms import (
    EMPTY,
    EPSILON,
    K_ALT,
    K_BYTES,
    K_COMPL,
    K_CONCAT,
    K_EMPTY,
    K_EPSILON,
    K_INTER,
    K_LEAF,
    K_STAR,
    Term,
    _concat2,
    alt,
    compl,
    concat,
    inter,
    repeat,
)

__all__ = [
    "alphabet_classes", "derivative", "derivative_by_options", "derivative_classes", "derivative_of_string",
    "derivative_through_heads",
    "keep_derivatives", "matches",
]

_weak = weakref.ref

RULES_PER_CHECK = 8
"""`derivative` and `derivative_classes` check the deadline once per this many rules run in one
call: most calls run one or two (the check would cost a few percent of a mask step), and a call
that runs thousands (a deep term) is still stopped within a few of them."""


def derivative(term: Term, b: int, keep: list[Term] | None = None) -> Term:
    """The derivative of `term` by the byte `b` (memoized on the term, weakly: see the module
    docstring). `keep`: a list that gets every derivative this call computes (of `term` and of
    its sub-terms), for a caller that keeps them alive for its later calls (an automaton)."""
    if not (term.first >> b) & 1:  # no string of the language starts with b
        return EMPTY
    if term.kind == K_CONCAT and term.children[0].kind == K_BYTES:
        return _tail(term, b)
    if term.kind == K_LEAF:  # its automaton's transition: memoized there
        return term.table.derive(term.lo, b)
    memo = term.derivatives
    ref = None if memo is None else memo.get(b)
    found = None if ref is None else ref()
    if found is not None:
        if term.kept is not None and b not in term.kept:  # memoized before the term was shared
            _keep(term, b, found)
        return found
    got: dict[Term, Term] = {}  # this call's derivatives by b, held while it runs (memos are weak)
    todo = [term]
    waiting: set[Term] = set()  # terms whose missing sub-terms were pushed: all in `got` when seen again
    ran = 0
    while todo:  # post-order: a term's rule runs once the derivatives it reads are in `got`
        t = todo[-1]
        if t not in waiting:
            missing = False
            for c in _needed(t):
                if (c.first >> b) & 1 and c not in got:
                    if c.kind == K_CONCAT and c.children[0].kind == K_BYTES:
                        got[c] = _tail(c, b)
                        continue
                    if c.kind == K_LEAF:
                        got[c] = c.table.derive(c.lo, b)
                        continue
                    memo = c.derivatives  # weak references: their terms may have died
                    ref = None if memo is None else memo.get(b)
                    found = None if ref is None else ref()
                    if found is None:
                        todo.append(c)
                        missing = True
                    else:
                        got[c] = found
            if missing:
                waiting.add(t)
                continue
        todo.pop()
        if t not in got:  # a shared sub-term may have been pushed twice
            ran += 1
            if ran % RULES_PER_CHECK == 0:
                check_deadline()
            found = got[t] = _derive(t, b, got)
            if t.derivatives is None:
                t.derivatives = {}
            t.derivatives[b] = _weak(found)
            if t.kept is not None:
                _keep(t, b, found)
            if keep is not None:
                keep.append(found)
    return got[term]


def _tail(term: Term, b: int) -> Term:
    """∂b(S·r) = r for a byte set S that holds b (S is never nullable): the concatenation's own
    tail, alive while `term` is, so neither memoized nor derived by the rules."""
    found = term.children[1]
    if term.kept is not None and b not in term.kept:
        _keep(term, b, found)
    return found


def _keep(term: Term, b: int, found: Term) -> None:
    """Hold ``∂b term = found`` strongly for a shared term (see `keep_derivatives`); `found` is
    shared from now on too, so its derivatives, and theirs, last as long as `term` does."""
    term.kept[b] = found
    if found.kept is None:
        found.kept = {}


def keep_derivatives(term: Term) -> Term:
    """Mark `term` as shared by a process-wide cache: its derivatives, and theirs, are held strongly
    for as long as it lives (not weakly, as every other term's), so that every automaton reaching it
    reuses them. Returns `term`."""
    if term.kept is None:
        term.kept = {}
    return term


def _needed(term: Term) -> list[Term] | tuple[Term, ...]:
    """The sub-terms whose derivatives (and classes) the rules for `term` read.

    For a concatenation that is every head along its spine up to the first non-nullable one, or
    the final tail if all are nullable: the rule takes the whole spine at once (one alternation,
    not one per suffix, which would be quadratic in the spine's length)."""
    if term.kind != K_CONCAT:
        return term.children
    parts = []
    while term.kind == K_CONCAT:
        head, term = term.children
        parts.append(head)
        if not head.nullable:
            return parts
    parts.append(term)
    return parts


def _derive(term: Term, b: int, got: dict[Term, Term]) -> Term:
    """One derivative rule (see the module docstring); `got` holds the sub-terms' derivatives by b
    (those whose `first` has b; the others' are ∅, not looked up)."""
    kind = term.kind
    if kind == K_BYTES:  # b is in the set: `first` said so
        return EPSILON
    if kind == K_CONCAT:  # the rule for r·s, applied down the spine while r is nullable
        operands = []
        while term.kind == K_CONCAT:
            head, term = term.children
            if (head.first >> b) & 1:
                operands.append(_concat2(got[head], term))
            if not head.nullable:
                break
        else:
            if (term.first >> b) & 1:
                operands.append(got[term])
        return operands[0] if len(operands) == 1 else alt(*operands)
    if kind == K_ALT:  # only the operands whose `first` has b: the others' derivatives are ∅
        operands = [got[t] for t in term.children if (t.first >> b) & 1]
        return operands[0] if len(operands) == 1 else alt(*operands)
    if kind == K_INTER:
        return inter(*[got[t] if (t.first >> b) & 1 else EMPTY for t in term.children])
    body = term.children[0]  # star, complement, repeat
    derived = got[body] if (body.first >> b) & 1 else EMPTY
    if kind == K_STAR:
        return concat(derived, term)
    if kind == K_COMPL:
        return compl(derived)
    return concat(derived, repeat(body, max(term.lo - 1, 0), None if term.hi is None else term.hi - 1))


def derivative_of_string(term: Term, data: bytes, keep: list[Term] | None = None) -> Term:
    """The derivative of `term` by every byte of `data` in turn; stops early at ∅. The derivatives
    computed on the way are kept alive until it returns (or in `keep`, see `derivative`), so later
    bytes reuse what earlier ones computed of shared sub-terms."""
    if keep is None:
        keep = []
    for b in data:
        if term is EMPTY:
            break
        term = derivative(term, b, keep)
    return term


def derivative_through_heads(term: Term, data: bytes, keep: list[Term] | None = None,
                             check: Callable[[Term], None] | None = None,
                             open_end: bool = True) -> Term | None:
    """`derivative_of_string`, the very same interned term, with a concatenation H·T read through
    its head H alone while ``∂b(H·T) = ∂bH · T`` (H not nullable, or T not beginning with b),
    ∂bH then read on as the next head, a concatenation too if its first part is not nullable
    (`_concat2` re-associates it onto T as it would each step's; with a nullable first part its
    derivative is an alternation, which the rule puts in front of T, each option): one
    concatenation built where that run of bytes ends, not one per byte (a key's bytes through a
    trie of other keys, a string's through its loop and through its multi-byte characters, whose
    heads `brzozowski.json.strings.ANY_STRING` keeps). `check` sees every term built and every
    head derived (an automaton's work budget). With ``open_end=False``, None if a term before the
    last byte is nullable (what follows would read the rest: `derivative_by_options`)."""
    i, n = 0, len(data)
    while i < n:
        if term is EMPTY:
            return EMPTY
        if term.kind == K_CONCAT and term.children[0].kind != K_BYTES:
            head, tail = term.children
            start = i
            while i < n and not (head.nullable and (tail.first >> data[i]) & 1):
                if not open_end and head.nullable and tail.nullable:
                    return None
                head = derivative(head, data[i], keep)
                i += 1
                if head is EPSILON or head is EMPTY or (
                        head.kind == K_CONCAT and head.children[0].nullable):
                    break  # (∂ of a·r, a nullable, is an alternation that ·T would distribute)
                if check is not None:
                    check(head)
            if i > start:
                term = _concat2(head, tail)
                if check is not None:
                    check(term)
                continue
        if not open_end and term.nullable:
            return None
        head = term.children[0] if term.kind == K_CONCAT else None
        if head is not None and head.kind == K_BYTES and term.kept is None and (head.bits >> data[i]) & 1:
            term = term.children[1]  # ∂b(S·r) = r for a byte set S holding b (`_tail`, inlined)
        else:
            term = derivative(term, data[i], keep)
        i += 1
        if check is not None:
            check(term)
    return term


def derivative_by_options(term: Term, data: bytes, keep: list[Term] | None = None,
                          check: Callable[[Term], None] | None = None) -> Term | None:
    """`derivative_of_string` of a term ``o₁ | … | oₖ``, possibly all followed by one tail T,
    option by option: ``∂w(Σ oᵢ·T) = (Σ ∂w oᵢ)·T`` while no option is nullable before w's last
    byte (T would then read the rest), so no alternation of the options' intermediate derivatives
    is built (read inside a listed name, each byte of a token made one). The very term the bytes
    one by one give (the same operands, put together by the same smart constructors); None for
    another shape, or where T would read part of `data`. `check` sees every option's derivative
    (an automaton's work budget)."""
    if term.kind == K_ALT:
        options, then = term.children, None
    elif term.kind == K_CONCAT and term.children[0].kind == K_ALT:
        options, then = term.children[0].children, term.children[1]
    else:
        return None
    derived = []
    first = data[0]
    for option in options:
        if not (option.first >> first) & 1 and (then is None or not option.nullable):
            continue  # (∅ by the first byte: most listed names, with no call)
        option = derivative_through_heads(option, data, keep, check, then is None)
        if option is None:
            return None
        if option is not EMPTY:
            derived.append(option)
    union = alt(*derived)
    return union if then is None else _concat2(union, then)


def matches(term: Term, data: bytes) -> bool:
    """Whether `data` is in the language of `term` (full match)."""
    return derivative_of_string(term, data).nullable


def derivative_classes(term: Term) -> tuple[int, ...]:
    """A partition of the 256 bytes into sets whose bytes give the same derivative (memoized)."""
    if term.classes is None:
        todo = [term]
        ran = 0
        while todo:  # post-order, as in `derivative`
            t = todo[-1]
            missing = [c for c in _needed(t) if c.classes is None]
            if missing:
                todo.extend(missing)
                continue
            todo.pop()
            if t.classes is None:  # a shared sub-term may have been pushed twice
                ran += 1
                if ran % RULES_PER_CHECK == 0:
                    check_deadline()
                t.classes = _classes(t)
    return term.classes


def _classes(term: Term) -> tuple[int, ...]:
    """One class rule (see the module docstring); the sub-terms' classes are memoized."""
    kind = term.kind
    if kind == K_EMPTY or kind == K_EPSILON:
        return ONE_CLASS
    if kind == K_BYTES:
        return partition_of((term.bits, ALL_BYTES ^ term.bits))
    if kind == K_LEAF:  # the classes of the state it stands for
        return term.table.classes(term.lo)
    result = ONE_CLASS
    for t in _needed(term):  # concat: the heads down the spine while nullable; alt: all
        result = meet(result, t.classes)
    return result


def alphabet_classes(term: Term) -> tuple[int, ...]:
    """The partition of the bytes that no byte set inside `term` tells apart (memoized on `term`;
    a walk stops at sub-terms that have it memoized, so computing it once for a sub-term that many
    patterns share, such as a JSON schema's "any value", spares every later walk its nodes).

    Every derivative of `term`, however deep, is built by the constructors from those byte sets,
    unions and intersections of them (`alt` and `inter` merge byte-set operands), and ε, ∅ and
    ``~∅``, which tell no bytes apart; a class of this partition lies inside or outside each one.
    So it refines the derivative classes of every state reachable from `term`: bytes of one class
    lead from every such state to the same state.
    """
    if term.alphabet is None:
        sets: set[int] = set()  # the byte sets met, and the classes of memoized sub-terms
        seen: set[int] = set()
        todo = [term]
        while todo:
            t = todo.pop()
            if t.id not in seen:
                seen.add(t.id)
                if t.alphabet is not None:
                    sets.update(t.alphabet)
                elif t.kind == K_BYTES:
                    sets.add(t.bits)
                else:
                    todo.extend(t.children)
        term.alphabet = partition_by(sets)
    return term.alphabet
