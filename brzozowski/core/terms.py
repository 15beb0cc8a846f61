"""Regular-expression terms: immutable, interned (hash-consed), always in normal form.

A `Term` denotes a set of byte strings. Terms are built only through the smart constructors below
(`byte_set`, `literal`, `concat`, `alt`, `star`, `repeat`, `inter`, `compl`), each of which
returns a *normal form* in the sense of Owens, Reppy and Turon (2009):

- alternation is flattened, its operands de-duplicated and sorted (by term id), all byte-set operands
  merged into one, ∅ dropped, and ε dropped when another operand is already nullable;
- concatenation is right-nested, drops ε and collapses to ∅ when either side is ∅;
- ``(r*)* = r*``, ``ε* = ∅* = ε``, ``(ε|r)* = r*``;
- a bounded repeat ``r{m,n}`` stays one node; ``r{0,0} = ε``, ``r{1,1} = r``, ``r{0,1} = r|ε``,
  ``r{0,} = r*``, and a nullable ``r`` makes ``r{m,n} = r{0,n}``;
- intersection ``r & s`` is flattened, de-duplicated and sorted like alternation, its byte-set
  operands intersected into one; ``r & ∅ = ∅``, ``r & ~∅ = r``, ``r & ~r = ∅``, ``ε & r`` is ε or ∅ (as r is
  nullable or not), and an intersection that no byte can start is ε or ∅ (as it is nullable or not);
- complement ``~r`` (all byte strings not in r): ``~~r = r``, ``~∅ = [\x00-\xff]*`` and back.

Invariants:

- **Interning.** Two calls that build the same normal form return the same object, so identity is
  equality and a term can key a dict in O(1), from any number of threads at once. Every term has an
  `id` unique for the life of the process (a global counter, in creation order): ids are never reused,
  even after a term dies, so a key made of ids never names two different terms.
- **Empty languages.** A term *without* intersection or complement has an empty language exactly
  when it is `EMPTY` (every constructor collapses ∅ operands). With them, an empty language can hide
  in a non-∅ term (``a & b`` is caught by `inter`, ``a & ~a`` is not):
  `brzozowski.automata.lazy.is_empty` decides it by a search over derivatives. `boolean` (computed at
  construction) says whether a term has an intersection or complement inside, so that terms without
  one never pay for the search.
- `nullable` (does the language contain the empty string?) and `widest` (the widest alternation
  inside) are computed once, at construction.
- **Leaves.** A *leaf* (`leaf`) is an atom standing for one state of a process-wide automaton
  (`brzozowski.automata.leaves`): the language of that state's term, never empty, so it counts as a term
  without intersection or complement; its derivatives are the automaton's transitions.

Byte sets are 256-bit Python ints: bit ``b`` set means byte ``b`` is in the set.

>>> r = concat(literal(b"ab"), star(byte_set(1 << ord("c"))))
>>> r
Term(abc*)
>>> alt(r, r) is r, r.nullable, star(star(r)) is star(r)
(True, False, True)

**The store (threads, memory).** The intern table is a plain dict from a term's key (its kind and
its children's ids) to a *weak* reference to the term (`_Entry`, which carries the key): a term
lives exactly as long as something refers to it (an automaton, a parent term, the caller), and its
memos (derivatives by byte, derivative classes) hang on the term itself, so they die with it; a
derivative memo refers to its result *weakly*, so memos never form reference cycles (an automaton's
loops would make them) and a dropped pattern is freed by reference counting, without waiting for a
garbage collection (see `brzozowski.core.derivatives`). When a
term dies, its reference's callback removes the key, unless a new term has taken it meanwhile (one C
call that deletes a key only while it maps to a dead reference, as `weakref.WeakValueDictionary`
does, without that class's Python-level lookups, so the store costs what a strong dict costs: see
benchmarks/record/2026-12-01-issue-09-memory-and-pauses.md). A dropped pattern gives all its memory back; nothing process-wide grows with
the number of patterns compiled. Lookups take no lock (a dict read is atomic under the GIL);
a new term enters the table with one atomic ``dict.setdefault`` (a dead entry is replaced under
`_LOCK`), so two threads building the same term get the same object, and no id is handed out
twice. A term's key holds its children's ids, and a term holds its children, so while a term
lives its key cannot be taken by another one. The callback takes no lock,
so a collection that runs inside `_make` cannot deadlock. `intern_table_size()` reports how many
terms are alive.

**No recursion on the input's size.** Printing walks an explicit stack; concatenation re-nests its
operands with loops. (Derivatives and classes: see `brzozowski.core.derivatives`.)

Reference: S. Owens, J. Reppy, A. Turon, "Regular-expression derivatives re-examined",
J. Functional Programming 19(2), 2009, §4.1 (similarity rules).
"""

from __future__ import annotations

import bisect
import gc
import itertools
import threading
import weakref
from _weakref import _remove_dead_weakref  # what weakref.WeakValueDictionary removes keys with

from typing import Protocol

from .alphabet import ALL_BYTES, show_byte_set
from ..errors import InputTypeError

__all__ = [
    "ALL_BYTES",
    "ANYTHING",
    "EMPTY",
    "EPSILON",
    "Term",
    "alt",
    "byte",
    "byte_set",
    "compl",
    "concat",
    "freeze_long_lived",
    "inter",
    "intern_table_size",
    "leaf",
    "literal",
    "repeat",
    "star",
]

# Kinds of term. Small ints so that interning keys are cheap tuples.
K_EMPTY, K_EPSILON, K_BYTES, K_CONCAT, K_ALT, K_STAR, K_REPEAT, K_INTER, K_COMPL, K_LEAF = range(10)

class Term:
    """One interned regex term. Do not call the constructor: use the smart constructors.

    `first` holds every byte that some string of the language starts with: the derivative by any
    other byte is ∅. It is exact for terms without intersection or complement; with them it may
    hold more (``first(a & ~a)`` is ``{a}``, ``first(~r)`` is every byte).

    Fields by kind: `bits` (byte set); `children` (concat: ``(head, tail)``; alt and inter: the
    operands; star, repeat and compl: ``(body,)``); `lo`, `hi` (repeat bounds, ``hi=None`` for
    unbounded); a *leaf* (`leaf`): `table`, the process-wide automaton it is a state of, and `lo`,
    that state. `boolean`: an intersection or complement occurs in the term. `empty`: whether the
    language is empty, once `brzozowski.automata.lazy.is_empty` has found out (None before). `widest`: the
    most operands of any alternation inside the term, itself included (0 if none): the lazy DFA's
    work budget per state reads it. `derivatives` (weakly: byte -> reference; None until the
    first), `classes` and `alphabet` memoize `brzozowski.core.derivatives.derivative`,
    `derivative_classes` and `alphabet_classes`. `kept`: None, or (for a term a process-wide cache shares, see
    `brzozowski.core.derivatives.keep_derivatives`) its derivatives held strongly. `key`: the term's
    interning key (its kind and its children's ids).

    Operators build terms with the smart constructors: ``r & s`` (`inter`), ``r | s`` (`alt`),
    ``~r`` (`compl`), ``r + s`` (`concat`).

    >>> a, b = byte(ord("a")), byte(ord("b"))
    >>> ~(a + b), a & (a | b), ~~a is a, (star(a) & ~a) is inter(compl(a), star(a))
    (Term(~(ab)), Term(a), True, True)
    """

    __slots__ = (
        "kind", "id", "nullable", "first", "bits", "children", "lo", "hi", "derivatives", "classes",
        "__weakref__", "boolean", "empty", "widest", "alphabet", "key", "kept", "table",
    )

    kind: int
    id: int
    nullable: bool
    first: int
    bits: int
    children: tuple[Term, ...]
    lo: int
    hi: int | None
    derivatives: dict[int, weakref.ref[Term]] | None
    kept: dict[int, Term] | None
    classes: tuple[int, ...] | None
    alphabet: tuple[int, ...] | None
    key: tuple
    boolean: bool
    empty: bool | None
    widest: int
    table: LeafTable | None

    def __repr__(self) -> str:
        return f"Term({self})"

    def __str__(self) -> str:
        return _show(self)

    def __reduce__(self) -> object:  # terms are interned: copying one must not make a twin
        raise TypeError("terms are interned and cannot be pickled or copied")

    def __copy__(self) -> Term:
        return self

    def __and__(self, other: Term) -> Term:
        return inter(self, other) if isinstance(other, Term) else NotImplemented

    def __or__(self, other: Term) -> Term:
        return alt(self, other) if isinstance(other, Term) else NotImplemented

    def __add__(self, other: Term) -> Term:
        return concat(self, other) if isinstance(other, Term) else NotImplemented

    def __invert__(self) -> Term:
        return compl(self)

    def __deepcopy__(self, memo: object) -> Term:
        return self


class _Entry(weakref.ref):
    """The intern table's weak reference to a term, carrying the term's key so that the callback
    that runs when the term dies can remove it (`_forget`)."""

    __slots__ = ("key",)

    key: tuple


def _forget(entry: _Entry) -> None:
    """The term of `entry` died: remove its key, unless a new term took the key meanwhile (the
    removal is one C call that deletes the key only while it maps to a dead reference)."""
    _remove_dead_weakref(_TABLE, entry.key)


_TABLE: dict[tuple, _Entry] = {}
_LOCK = threading.Lock()
_IDS = itertools.count()


def intern_table_size() -> int:
    """How many distinct terms are alive in this process (dead ones leave the table)."""
    return len(_TABLE)


def freeze_long_lived() -> int:
    """Collect the garbage, then hide every object alive now from the garbage collector
    (``gc.collect(); gc.freeze()``). Returns how many objects are frozen.

    Call it once a long-running process has loaded what lives as long as it does (imports, the
    `brzozowski.Vocabulary` of each tokenizer, automata it keeps for good) and before it serves
    requests. Python's full collections traverse every tracked object (after an import of numpy and
    brzozowski, ~25,000 of them), and one runs every few schemas inside whichever mask step happens
    to trigger it: its pause grows with what the process keeps, not with the request. Frozen
    objects are never traversed again (nor freed: they were alive anyway); what is built later, the
    automata and terms of each request, is collected as usual. See
    benchmarks/record/2026-12-01-issue-09-memory-and-pauses.md.
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def _make(key: tuple, kind: int, nullable: bool, first: int, bits: int = 0, children: tuple = (),
          lo: int = 0, hi: int | None = None, known: tuple[bool, int] | None = None,
          table: LeafTable | None = None) -> Term:
    """The live term of `key`, or a new one with these fields. A new term enters the table with
    one atomic ``dict.setdefault``: of two threads making the same term, the one whose entry went
    in first wins and the other gets its term; a dead entry is replaced under the lock."""
    entry = _TABLE.get(key)
    if entry is not None:
        term = entry()
        if term is not None:
            return term
    term = Term.__new__(Term)
    term.kind = kind
    term.id = next(_IDS)
    term.nullable = nullable
    term.first = first
    term.bits = bits
    term.children = children
    term.lo = lo
    term.hi = hi
    term.derivatives = None  # a dict once a derivative is memoized (most terms never have one)
    term.kept = None
    term.classes = None
    term.alphabet = None
    term.key = key
    term.empty = None
    term.table = table
    if known is not None:  # (boolean, widest), from the one operand `_extended` adds
        term.boolean, term.widest = known
    else:
        boolean = kind >= K_INTER
        widest = len(children) if kind == K_ALT else 0
        for child in children:
            if child.boolean:
                boolean = True
            if child.widest > widest:
                widest = child.widest
        term.boolean, term.widest = boolean, widest
    entry = _Entry(term, _forget)
    entry.key = key
    found = _TABLE.setdefault(key, entry)
    if found is not entry:  # another thread's term, or a dead entry whose callback has not run yet
        with _LOCK:
            found = _TABLE.get(key)
            other = None if found is None else found()
            if other is not None:
                return other
            _TABLE[key] = entry
    return term


EMPTY = _make((K_EMPTY,), K_EMPTY, False, 0)
"""∅, the empty language: matches nothing. The only term with an empty language."""

EPSILON = _make((K_EPSILON,), K_EPSILON, True, 0)
"""ε, the language holding only the empty string."""


def byte_set(bits: int) -> Term:
    """The language of the one-byte strings whose byte is in `bits` (a 256-bit set); ∅ if empty."""
    if not 0 <= bits <= ALL_BYTES:
        raise ValueError(f"byte set out of range: {bits:#x}")
    if bits == 0:
        return EMPTY
    return _make((K_BYTES, bits), K_BYTES, False, bits, bits=bits)


_BYTES = tuple(byte_set(1 << b) for b in range(256))  # held for good: `literal` reads them


def byte(b: int) -> Term:
    """The language holding the one-byte string ``bytes([b])``."""
    return _BYTES[b]


def literal(data: bytes, then: Term = EPSILON) -> Term:
    """The language holding exactly the string `data`, followed by `then` if given: ``concat(
    literal(data), then)``, built right-nested onto `then` directly (no spine built twice)."""
    if then is EMPTY:
        return EMPTY
    result = then
    for b in reversed(data):
        head = _BYTES[b]
        result = head if result is EPSILON else _make(
            (K_CONCAT, head.id, result.id), K_CONCAT, False, head.first, children=(head, result))
    return result


def _operands(name: str, terms: tuple) -> None:
    """`InputTypeError` naming the first operand of `name` that is not a `Term` (the constructors
    call it only when an operand failed them: the check costs nothing otherwise)."""
    for i, term in enumerate(terms):
        if not isinstance(term, Term):
            raise InputTypeError(f"{name}'s operand {i} must be a Term (brzozowski.parse gives one), "
                                 f"not {type(term).__name__}: {term!r:.40}")


def concat(*terms: Term) -> Term:
    """Concatenation ``r1 r2 … rn``, right-nested; ε is the empty concatenation."""
    result = EPSILON
    try:
        for term in reversed(terms):
            result = _concat2(term, result)
    except AttributeError:
        _operands("concat", terms)
        raise
    return result


def _concat2(head: Term, tail: Term) -> Term:
    if head is EMPTY or tail is EMPTY:
        return EMPTY
    if head is EPSILON:
        return tail
    if tail is EPSILON:
        return head
    parts = _concat_parts(head) if head.kind == K_CONCAT else [head]
    result = tail
    for part in reversed(parts):  # (a b) c = a (b c): keep concatenations right-nested
        first = part.first | result.first if part.nullable else part.first
        result = _make((K_CONCAT, part.id, result.id), K_CONCAT, part.nullable and result.nullable,
                       first, children=(part, result))
    return result


_MERGED = (K_ALT, K_BYTES, K_EMPTY, K_EPSILON)  # the operands `alt` flattens, merges or drops


def alt(*terms: Term) -> Term:
    """Alternation ``r1 | r2 | … | rn``; ∅ is the empty alternation."""
    try:
        if len(terms) == 2:
            wide, one = terms if terms[0].kind == K_ALT else terms[::-1]
            if one.kind not in _MERGED:
                if wide.kind == K_ALT:  # one operand added to an alternation: no need to flatten it again
                    if not (one.nullable and wide.children[0] is EPSILON):
                        return _extended(wide, one)
                elif wide.kind not in _MERGED:  # two operands that need none of the merges below
                    if wide is one:
                        return one
                    a, b = (wide, one) if wide.id < one.id else (one, wide)
                    return _make((K_ALT, a.id, b.id), K_ALT, a.nullable or b.nullable, a.first | b.first,
                                 children=(a, b))
        operands: dict[int, Term] = {}
        bits = 0
        for term in terms:
            for t in term.children if term.kind == K_ALT else (term,):  # flatten nested alternations
                if t.kind == K_BYTES:
                    bits |= t.bits
                elif t is not EMPTY:
                    operands[t.id] = t
        if bits:
            merged = byte_set(bits)
            operands[merged.id] = merged
        if len(operands) <= 1:
            return next(iter(operands.values())) if operands else EMPTY
        if EPSILON.id in operands and any(t.nullable for t in operands.values() if t is not EPSILON):
            del operands[EPSILON.id]  # ε | r = r when r is nullable
            if len(operands) == 1:
                return next(iter(operands.values()))
        ids = sorted(operands)
        ordered = tuple([operands[i] for i in ids])
        first = 0
        nullable = False
        for t in ordered:
            first |= t.first
            nullable = nullable or t.nullable
        return _make((K_ALT, *ids), K_ALT, nullable, first, children=ordered)
    except AttributeError:  # an operand that is not a term: say which
        _operands("alt", terms)
        raise


def _extended(wide: Term, one: Term) -> Term:
    """``wide | one`` for an alternation `wide` and an operand that needs none of `alt`'s merges
    (not an alternation, a byte set, ∅ or ε, and no ε in `wide` for it to drop): `one` is inserted
    by id into the sorted operands, in C-level slices of `wide`'s key and children, so that adding
    operands one at a time costs the copies, not a Python loop over every operand."""
    ids = wide.key  # (K_ALT, id, id, ...), sorted
    at = bisect.bisect_left(ids, one.id, 1)
    if at < len(ids) and ids[at] == one.id:
        return wide  # already an operand
    children = wide.children[: at - 1] + (one,) + wide.children[at - 1:]
    widest = max(wide.widest, len(children), one.widest)
    return _make(ids[:at] + (one.id,) + ids[at:], K_ALT, wide.nullable or one.nullable,
                 wide.first | one.first, children=children, known=(wide.boolean or one.boolean, widest))


def star(term: Term) -> Term:
    """Kleene star ``r*``: zero or more repetitions."""
    if term is EMPTY or term is EPSILON:
        return EPSILON
    if term.kind == K_STAR:
        return term
    if term.kind == K_ALT and EPSILON in term.children:  # (ε | r)* = r*
        return star(alt(*(t for t in term.children if t is not EPSILON)))
    return _make((K_STAR, term.id), K_STAR, True, term.first, children=(term,))


def repeat(term: Term, lo: int, hi: int | None) -> Term:
    """Bounded repetition ``r{lo,hi}`` (``hi=None``: no upper bound), kept as one node."""
    if lo < 0 or (hi is not None and hi < lo):
        raise ValueError(f"bad repeat bounds {{{lo},{hi}}}")
    if hi == 0 or term is EPSILON:
        return EPSILON
    if term is EMPTY:
        return EPSILON if lo == 0 else EMPTY
    if term.nullable:  # r^m ⊆ r^n for nullable r, so the lower bound says nothing
        lo = 0
    if hi is None:
        if lo == 0:
            return star(term)
    elif hi == 1:
        return term if lo == 1 else alt(term, EPSILON)
    return _make((K_REPEAT, term.id, lo, hi), K_REPEAT, lo == 0, term.first, children=(term,),
                 lo=lo, hi=hi)


# ----------------------------------------------------------------------------------------------
# Intersection and complement (Owens, Reppy and Turon 2009, §4.1, with ~∅ written [\x00-\xff]*).

ANYTHING = star(byte_set(ALL_BYTES))
"""``[\x00-\xff]*`` = ``~∅``: every byte string."""


def inter(*terms: Term) -> Term:
    """Intersection ``r1 & r2 & … & rn``: the strings in every operand; ``~∅`` is the empty one."""
    try:
        operands: dict[int, Term] = {}
        bits = ALL_BYTES
        has_bytes = False
        for term in terms:
            for t in term.children if term.kind == K_INTER else (term,):  # flatten
                if t is EMPTY:
                    return EMPTY
                if t.kind == K_BYTES:
                    bits &= t.bits
                    has_bytes = True
                elif t is not ANYTHING:
                    operands[t.id] = t
        if has_bytes:
            if not bits:
                return EMPTY
            merged = byte_set(bits)
            operands[merged.id] = merged
        if len(operands) <= 1:
            return next(iter(operands.values())) if operands else ANYTHING
        if any(t.kind == K_COMPL and t.children[0].id in operands for t in operands.values()):
            return EMPTY  # r & ~r (complements of a universe within itself arise in schema terms)
        ordered = tuple([operands[i] for i in sorted(operands)])
        nullable = all(t.nullable for t in ordered)
        if EPSILON.id in operands:  # ε & r is ε if r is nullable, else ∅
            return EPSILON if nullable else EMPTY
        first = ALL_BYTES
        for t in ordered:
            first &= t.first
        if not first:  # no byte can start a string of every operand: only ε may be left
            return EPSILON if nullable else EMPTY
        return _make((K_INTER, *sorted(operands)), K_INTER, nullable, first, children=ordered)
    except AttributeError:  # an operand that is not a term: say which
        _operands("inter", terms)
        raise


def compl(term: Term) -> Term:
    """Complement ``~r``: every byte string not in the language of r."""
    if not isinstance(term, Term):
        _operands("compl", (term,))
    if term.kind == K_COMPL:
        return term.children[0]
    if term is EMPTY:
        return ANYTHING
    if term is ANYTHING:
        return EMPTY
    return _make((K_COMPL, term.id), K_COMPL, not term.nullable, ALL_BYTES, children=(term,))


# ----------------------------------------------------------------------------------------------
# Leaves: states of a process-wide automaton as atoms (brzozowski.automata.leaves).

class LeafTable(Protocol):
    """What a leaf's automaton offers the term algebra (`brzozowski.automata.leaves.LeafAutomaton`)."""

    id: int

    def derive(self, state: int, b: int) -> Term:
        """The derivative of the leaf of `state` by byte `b`: a leaf, ε or ∅."""

    def describe(self, state: int) -> Term | str:
        """What prints for the atom of `state`: the term it stands for, or a name."""

    def classes(self, state: int) -> tuple[int, ...]:
        """The derivative classes of the atom of `state`."""


def leaf(table: LeafTable, state: int, nullable: bool, first: int, alphabet: tuple[int, ...]) -> Term:
    """The atom standing for state `state` of the process-wide automaton `table`: the language of
    that state (never empty), with its `nullable` and its exact `first`; `alphabet`
    is a partition of the bytes that refines the classes of every state of `table`. Its
    derivatives are ``table.derive`` (a table lookup once the automaton knows the transition),
    so the inside of a leaf costs no term construction in any automaton that reaches it."""
    term = _make((K_LEAF, table.id, state), K_LEAF, nullable, first, lo=state, known=(False, 0),
                 table=table)
    if term.alphabet is None:
        term.alphabet = alphabet
    return term


# ----------------------------------------------------------------------------------------------
# Printing: a compact dump in regex-like syntax, for humans and notebooks (not re-parsed).

def _show(term: Term) -> str:
    """The text of `term`, built with an explicit stack of pending pieces (no recursion)."""
    out: list[str] = []
    pending: list[str | tuple[Term, int | None]] = [(term, None)]
    while pending:
        piece = pending.pop()
        if isinstance(piece, str):
            out.append(piece)
        else:
            pending.extend(reversed(_show_pieces(*piece)))
    return "".join(out)


def _show_pieces(term: Term, context: int | None) -> list[str | tuple[Term, int | None]]:
    """`term` printed as an operand of a `context` node, one level deep: text, and sub-terms
    with the context they are printed in."""
    kind = term.kind
    if kind == K_EMPTY:
        return ["∅"]
    if kind == K_EPSILON:
        return ["ε"]
    if kind == K_BYTES:
        return [show_byte_set(term.bits)]
    if kind == K_LEAF:  # printed as the term it stands for (or its automaton's name and state)
        shown = term.table.describe(term.lo)  # type: ignore[union-attr]
        return ["(", (shown, None), ")"] if isinstance(shown, Term) else [shown]
    pieces: list[str | tuple[Term, int | None]]
    if kind == K_CONCAT:
        pieces = [(t, K_CONCAT) for t in _concat_parts(term)]
    elif kind == K_ALT and EPSILON in term.children:  # r|ε prints as r?
        pieces = [(alt(*(t for t in term.children if t is not EPSILON)), K_STAR), "?"]
    elif kind in (K_ALT, K_INTER):
        operator = "|" if kind == K_ALT else "&"
        pieces = []
        for t in term.children:
            pieces += [operator, (t, kind)]
        del pieces[0]
    elif kind == K_COMPL:
        pieces = ["~", (term.children[0], K_STAR)]
    else:
        pieces = [(term.children[0], K_STAR), _show_suffix(term)]
    # Binding, loosest first: |, &, concatenation, ~ (prefix), the postfix quantifiers.
    needs_parens = (
        (kind == K_ALT and EPSILON not in term.children and context in (K_CONCAT, K_STAR, K_INTER))
        or (kind in (K_CONCAT, K_ALT, K_INTER) and context == K_STAR)
        or (kind == K_INTER and context == K_CONCAT)
        or (kind == K_COMPL and context == K_STAR)
    )
    return ["(", *pieces, ")"] if needs_parens else pieces


def _show_suffix(term: Term) -> str:
    """The quantifier of a star or repeat node."""
    if term.kind == K_STAR:
        return "*"
    if term.lo == 1 and term.hi is None:
        return "+"
    hi = "" if term.hi is None else str(term.hi)
    return f"{{{term.lo},{hi}}}" if term.lo != term.hi else f"{{{term.lo}}}"


def _concat_parts(term: Term) -> list[Term]:
    parts = []
    while term.kind == K_CONCAT:
        parts.append(term.children[0])
        term = term.children[1]
    parts.append(term)
    return parts
