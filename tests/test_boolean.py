"""Intersection and complement: terms, derivatives, emptiness, canonical tables and masks, against
oracles that do not share the code under test — `re.fullmatch` on both operands, and a product /
complement construction over the independent Thompson tables of `tests/thompson.py`."""

from __future__ import annotations

import random
import re
from collections import deque

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brzozowski import (
    DEAD, LazyDFA, Term, TokenIndex, alt, compl, concat, inter, parse, regex_to_dfa,
)
from brzozowski.core.derivatives import derivative, derivative_classes, matches
from brzozowski.automata.dfa import canonical
from brzozowski.errors import BrzozowskiError, StateBudgetError
from brzozowski.golden import Oracle, is_dead
from brzozowski.automata.lazy import is_empty
from brzozowski.core.terms import ALL_BYTES, ANYTHING, EMPTY, EPSILON, byte, byte_set, literal, repeat, star

from .strategies import patterns, texts
from .thompson import reference_tables

a, b, c = byte(ord("a")), byte(ord("b")), byte(ord("c"))
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- normal forms --------------------------------------------------------------------------------

def test_normal_forms():
    r = parse("(ab)*c")
    assert inter(r, r) is r and inter(r, EMPTY) is EMPTY and inter(r, ANYTHING) is r
    assert compl(compl(r)) is r and compl(EMPTY) is ANYTHING and compl(ANYTHING) is EMPTY
    assert inter() is ANYTHING
    s, t = parse("a*"), parse("[ab]*b")
    assert inter(r, inter(s, t)) is inter(inter(t, r), s) is (s & t & r)  # flat, sorted
    assert inter(r, s).children == tuple(sorted((r, s), key=lambda x: x.id))
    assert parse("[a-c]") & parse("[b-d]") is parse("[bc]")  # byte sets intersected
    assert a & b is EMPTY
    assert inter(EPSILON, star(a)) is EPSILON and inter(EPSILON, a) is EMPTY
    assert parse("(ab)*") & parse("(ba)*") is EPSILON  # no common first byte, both nullable
    assert (r & s).nullable is False and (s & star(b)).nullable is True
    assert compl(r).nullable is True and compl(s).nullable is False
    assert compl(a).first == ALL_BYTES
    assert (s & t).first == 1 << ord("a")  # over-approximation allowed, never under
    assert (a + b) | ~a is alt(concat(a, b), compl(a))


def test_boolean_flag_is_computed_at_construction():
    plain = parse("(a|b)*c{2,5}")
    assert not plain.boolean and not star(plain).boolean
    mixed = concat(a, compl(b))
    assert mixed.boolean and star(mixed).boolean and alt(c, inter(plain, star(a))).boolean
    assert not is_empty(plain) and plain.empty is None  # no search for plain terms


def test_printing():
    # Binding, loosest first: |, &, concatenation, ~, postfix quantifiers. Operands of | and & are
    # in id (creation) order: build them in order, from bytes no other test uses.
    q = star(byte_set(0xFF << ord("q")))  # [q-x]*
    z = byte(ord("z"))
    zxy = star(alt(z, literal(b"xy")))
    assert str(q & zxy) == "[q-x]*&(z|xy)*"
    assert str(compl(literal(b"xy"))) == "~(xy)"
    assert str(star(compl(z))) == "(~z)*" and str(compl(q)) == "~[q-x]*"
    assert str(concat(compl(z), q)) == "~z[q-x]*"
    assert str(concat(q & zxy, z)) == "([q-x]*&(z|xy)*)z"
    assert str(alt(q & zxy, literal(b"xx"))) == "[q-x]*&(z|xy)*|xx"


def test_operators_need_terms():
    assert isinstance(parse("a"), Term) and isinstance(~parse("a") + parse("b"), Term)
    with pytest.raises(TypeError):
        a & "b"  # noqa: B018
    with pytest.raises(TypeError):
        a + b"b"  # noqa: B018


# -- membership against re.fullmatch -------------------------------------------------------------

@SETTINGS
@given(r=patterns, s=patterns, words=st.lists(texts, min_size=1, max_size=8))
def test_membership_of_intersection_and_complement(r, s, words):
    rr, ss = re.compile(r.encode()), re.compile(s.encode())
    R, S = parse(r), parse(s)
    both, neither, diff = R & S, ~(R | S), R & ~S
    for w in words:
        in_r, in_s = rr.fullmatch(w) is not None, ss.fullmatch(w) is not None
        assert matches(both, w) == (in_r and in_s), (r, s, w)
        assert matches(~R, w) == (not in_r), (r, w)
        assert matches(neither, w) == (not in_r and not in_s), (r, s, w)
        assert matches(diff, w) == (in_r and not in_s), (r, s, w)
        for term, want in ((both, in_r and in_s), (~R, not in_r)):
            if not is_empty(term):
                assert LazyDFA(term).matches(w) == want


@SETTINGS
@given(r=patterns, s=patterns)
def test_derivative_classes_are_sound_for_boolean_terms(r, s):
    for term in (parse(r) & parse(s), ~parse(r), parse(r) & ~parse(s)):
        for bits in derivative_classes(term):
            members = [i for i in range(256) if (bits >> i) & 1]
            first = derivative(term, members[0])
            assert all(derivative(term, m) is first for m in members[:: max(1, len(members) // 16)])


# -- canonical tables against an independent product construction ------------------------------

def _complete(pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """The Thompson reference DFA of `pattern` with an explicit sink state (no DEAD)."""
    accept, trans = reference_tables(pattern)
    sink = len(accept)
    trans = np.vstack([np.where(trans == -1, sink, trans), np.full((1, 256), sink)])
    return np.append(accept, False), trans.astype(np.int32)


def product(tables: list[tuple[np.ndarray, np.ndarray]], accepts) -> tuple[np.ndarray, np.ndarray]:
    """The reachable product of complete DFAs; a product state accepts iff `accepts(flags)`."""
    start = tuple(0 for _ in tables)
    index = {start: 0}
    states = [start]
    rows = []
    for current in states:  # grows while read
        row = []
        for byte_ in range(256):
            target = tuple(int(trans[s, byte_]) for (_, trans), s in zip(tables, current))
            if target not in index:
                index[target] = len(states)
                states.append(target)
            row.append(index[target])
        rows.append(row)
    accept = np.array([accepts([bool(acc[s]) for (acc, _), s in zip(tables, state)])
                       for state in states])
    return accept, np.array(rows, dtype=np.int32)


def live_states(accept: np.ndarray, trans: np.ndarray) -> set[int]:
    """The states of a complete table from which an accepting state can be reached."""
    reverse: list[set[int]] = [set() for _ in accept]
    for s, row in enumerate(trans.tolist()):
        for t in row:
            reverse[t].add(s)
    live = {s for s in range(len(accept)) if accept[s]}
    todo = list(live)
    while todo:
        for s in reverse[todo.pop()]:
            if s not in live:
                live.add(s)
                todo.append(s)
    return live


COMBINATIONS = {
    "r&s": (lambda R, S: R & S, lambda f: f[0] and f[1]),
    "r&~s": (lambda R, S: R & ~S, lambda f: f[0] and not f[1]),
    "~r": (lambda R, S: ~R, lambda f: not f[0]),
    "~(r|s)": (lambda R, S: ~(R | S), lambda f: not (f[0] or f[1])),
    "~r|s": (lambda R, S: ~R | S, lambda f: not f[0] or f[1]),
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(r=patterns, s=patterns, name=st.sampled_from(sorted(COMBINATIONS)))
def test_regex_to_dfa_equals_the_product_construction(r, s, name):
    build, accepts = COMBINATIONS[name]
    term = build(parse(r), parse(s))
    accept, trans = product([_complete(r), _complete(s)], accepts)
    empty_reference = 0 not in live_states(accept, trans)
    assert is_empty(term) == empty_reference, (r, s, name)
    if empty_reference:
        with pytest.raises(BrzozowskiError, match="empty"):
            regex_to_dfa(term)
        with pytest.raises(BrzozowskiError, match="empty"):
            canonical(accept, trans)
    else:
        assert regex_to_dfa(term) == canonical(accept, trans), (r, s, name)


# A boolean term inside other operators: `is_empty` decides the operators by their structure and
# searches only the & and ~ inside; the expected answer comes from the product oracle of each part.
WRAPPINGS = {
    "x t y": (lambda t, u: concat(literal(b"x"), t, literal(b"y")), lambda e, f: e),
    "t|u": (lambda t, u: alt(t, u), lambda e, f: e and f),
    "t u": (lambda t, u: concat(t, u), lambda e, f: e or f),
    "t{2,3}": (lambda t, u: repeat(t, 2, 3), lambda e, f: e),
    "t{0,2}|u": (lambda t, u: alt(repeat(t, 0, 2), u), lambda e, f: False),
    "t* u": (lambda t, u: concat(star(t), u), lambda e, f: f),
    "(t|x) u": (lambda t, u: concat(alt(t, literal(b"x")), u), lambda e, f: f),
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(r=patterns, s=patterns, first=st.sampled_from(sorted(COMBINATIONS)),
       second=st.sampled_from(sorted(COMBINATIONS)), wrap=st.sampled_from(sorted(WRAPPINGS)))
def test_emptiness_of_boolean_terms_inside_other_operators(r, s, first, second, wrap):
    tables = [_complete(r), _complete(s)]
    parts, empties = [], []
    for name in (first, second):
        build, accepts = COMBINATIONS[name]
        parts.append(build(parse(r), parse(s)))
        empties.append(0 not in live_states(*product(tables, accepts)))
    build, expected = WRAPPINGS[wrap]
    term = build(*parts)
    assert is_empty(term) == expected(*empties), (r, s, first, second, wrap, str(term))


@SETTINGS
@given(r=patterns, s=patterns)
def test_de_morgan_and_absorption_on_canonical_tables(r, s):
    R, S = parse(r), parse(s)
    laws = [
        (~(R | S), ~R & ~S),
        (~(R & S), ~R | ~S),
        (R | (R & S), R),
        (R & (R | S), R),
        (~~R | EMPTY, R),
        (R & ~R | S, S),  # r & ~r is empty, whatever its shape
    ]
    for left, right in laws:
        if is_empty(left) or is_empty(right):
            assert is_empty(left) and is_empty(right), (r, s, str(left), str(right))
        else:
            assert regex_to_dfa(left) == regex_to_dfa(right), (r, s, str(left), str(right))


# -- emptiness -----------------------------------------------------------------------------------

@pytest.mark.parametrize("term, empty", [
    (a & b, True),
    (parse(".*a.*") & ~parse(".*a.*"), True),
    (parse("(ab)*") & parse("(ba)*"), False),  # nullable only: the language is {ε}
    (parse("(ab)*") & parse("(ba)*") & parse(".+"), True),
    (parse("(ab)+") & parse("a(ba)*b"), False),
    (parse("[ab]*a[ab]{3}") & parse("[ab]*b[ab]{3}") & parse("[ab]{4}"), True),
    (parse("(aa)*") & parse("a(aa)*"), True),
    (parse("(aa)*") & parse("(aaa)*") & parse("a+"), False),  # a^6
    (~ANYTHING | (a & c), True),
    (~parse("a*"), False),
    (concat(parse("x"), a & b, parse("y")), True),  # ∅ collapses the concatenation
    (concat(parse("x"), parse("a+b") & parse("a{3}b"), parse("y")), False),
    # the structure above the & and ~ (an empty-language part: (aa)* & a(aa)*)
    (alt(parse("(aa)*") & parse("a(aa)*"), parse("a+") & ~parse("b")), False),
    (alt(parse("(aa)*") & parse("a(aa)*"), parse("b+") & ~parse("b*")), True),
    (concat(star(parse("(aa)*") & parse("a(aa)*") & parse("a+")), parse("y")), False),
    (concat(repeat(parse("(aa)*") & parse("a(aa)*") & parse("a+"), 0, 2), parse("y")), False),
    (concat(repeat(parse("(aa)*") & parse("a(aa)*") & parse("a+"), 2, 3), parse("y")), True),
], ids=str)
def test_emptiness_cases(term, empty):
    assert is_empty(term) is empty
    assert is_empty(term) is empty  # memoized answer agrees
    assert is_dead(term) is empty  # the golden oracle's one test of "dead"


def test_emptiness_inside_a_concatenation_is_found():
    term = concat(parse("x"), parse("(aa)*") & parse("a(aa)*") & parse("a+"), parse("y"))
    assert term is not EMPTY and is_empty(term)


def test_nullable_but_otherwise_empty():
    term = parse("(ab)*") & parse("(ab|b)*") & parse("(a|ba)*")
    assert not is_empty(term) and term.nullable
    dfa = regex_to_dfa(term)
    assert dfa.n_states == 1 and dfa.is_accepting(0) and (dfa.row(0) == DEAD).all()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(r=patterns, s=patterns, name=st.sampled_from(sorted(COMBINATIONS)), quick=st.sampled_from([0, 3, 10**6]))
def test_emptiness_depth_first_breadth_first_or_both_is_the_product_constructions(r, s, name, quick):
    """`is_empty` searches depth first within `QUICK_SEARCH` derivatives (none wider than
    `QUICK_WIDEST`), then breadth first: with no depth-first search, with one that gives up after 3
    terms, and with one that never gives up,
    the answer is the product construction's (and a found string's path is settled non-empty)."""
    from brzozowski.automata import lazy

    build, accepts = COMBINATIONS[name]
    accept, trans = product([_complete(r), _complete(s)], accepts)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lazy, "QUICK_SEARCH", quick)
        if quick == 10**6:  # (never gives up: no width either)
            patch.setattr(lazy, "QUICK_WIDEST", quick)
        term = build(parse(r), parse(s))
        path: list = []
        assert is_empty(term, keep=path) == (0 not in live_states(accept, trans)), (r, s, name, quick)
    assert all(t.empty is False for t in path) and (not path or path[-1] is term)


def test_emptiness_respects_the_state_budget():
    hard = parse("[ab]*a[ab]{12}") & parse("[ab]*b[ab]{12}") & ~parse("[ab]*")
    with pytest.raises(StateBudgetError, match="budget"):
        is_empty(hard, max_states=100)
    assert is_empty(hard)  # with the default budget: [ab]* covers both, so nothing is left


def test_emptiness_of_a_term_that_widens_at_every_byte_is_searched_breadth_first_at_once():
    """The complement of nested repeats grows at every byte (9,800 operands 200 bytes down) and its
    witness is one byte away (a newline, which ``.`` leaves out): the depth-first search gives up at
    the first derivative wider than `QUICK_WIDEST` and the breadth-first one finds it, a few dozen
    derivatives in all, not `QUICK_SEARCH` ever wider ones (seconds at every state of an automaton
    over it: `test_wide_alternations_under_a_complement_…` took minutes)."""
    from brzozowski.automata import lazy

    term = compl(parse("(.{0,100}){0,100}"))
    derived = []
    derive = lazy.derivative
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lazy, "derivative", lambda t, byte, keep=None: derived.append(byte) or derive(t, byte, keep))
        assert not is_empty(term)
    assert len(derived) < lazy.QUICK_WIDEST and ord("\n") in derived


def test_lazy_dfa_sends_empty_language_states_to_dead():
    term = parse("(ab|cd)*") & ~parse(".*cd.*")  # after 'c' only 'd…' may follow: forbidden
    after_c = derivative(term, ord("c"))
    assert after_c is not EMPTY and is_empty(after_c)
    lazy = LazyDFA(term)
    assert lazy.next_state(lazy.start, ord("c")) == DEAD
    assert lazy.step(lazy.start, b"ababc") == DEAD
    assert lazy.row(lazy.start)[ord("c")] == DEAD
    assert DEAD in lazy.class_row(lazy.start)
    assert regex_to_dfa(term) == regex_to_dfa("(ab)*")
    with pytest.raises(BrzozowskiError, match="empty language"):
        LazyDFA(a & ~parse("a|b"))


def test_every_lazy_state_is_live():
    term = parse("[a-c]*a[a-c]") & ~parse(".*b.*") | (parse("c+") & parse("c{2}b?"))
    lazy = LazyDFA(term)
    state = 0
    while state < lazy.n_states:
        lazy.row(state)
        assert not is_empty(lazy.term(state))
        state += 1


# -- masks over a real vocabulary ----------------------------------------------------------------

MASK_CASES = {  # name: (the term, its parts, when a product state of the parts accepts)
    "ab-cd-no-cd": (
        lambda: parse("(ab|cd)*") & ~parse(".*cd.*"),
        ["(ab|cd)*", ".*cd.*"], lambda f: f[0] and not f[1]),
    "word-not-keyword": (
        lambda: parse("[a-z]{1,8}") & ~parse("if|in|int|import|def|class"),
        ["[a-z]{1,8}", "if|in|int|import|def|class"], lambda f: f[0] and not f[1]),
    "digits-even-not-zero": (
        lambda: parse("[0-9]{2,6}") & parse("[0-9]*[02468]") & ~parse("0+"),
        ["[0-9]{2,6}", "[0-9]*[02468]", "0+"], lambda f: f[0] and f[1] and not f[2]),
    "has-a-and-b": (
        lambda: parse("[ a-z]*a[ a-z]*") & parse("[ a-z]*b[ a-z]*") & parse("[ a-z]{0,12}"),
        ["[ a-z]*a[ a-z]*", "[ a-z]*b[ a-z]*", "[ a-z]{0,12}"], all),
}


@pytest.fixture(scope="module")
def cl100k_subset():
    from brzozowski.vocab.tokenizers import load_tiktoken_vocab

    vocab, eos_id = load_tiktoken_vocab("cl100k_base")
    rng = random.Random(12)
    short = {i for i, t in enumerate(vocab) if t is not None and len(t) <= 2 and t.isascii()}
    keep = sorted(set(rng.sample(range(len(vocab)), 6000)) | short)
    keep.append(eos_id)
    return [vocab[i] for i in keep], len(keep) - 1


def _witnesses(lazy: LazyDFA) -> dict[int, bytes]:
    """A shortest text leading to each state of `lazy` (breadth first; discovers every state)."""
    found = {lazy.start: b""}
    queue = deque([lazy.start])
    while queue:
        state = queue.popleft()
        row = lazy.row(state)
        for byte_ in range(256):
            target = int(row[byte_])
            if target != DEAD and target not in found:
                found[target] = found[state] + bytes([byte_])
                queue.append(target)
    return found


@pytest.mark.parametrize("name", sorted(MASK_CASES))
def test_masks_never_admit_a_token_into_an_empty_language(cl100k_subset, name):
    vocab, eos_id = cl100k_subset
    build, parts, accepts = MASK_CASES[name]
    lazy = LazyDFA(build())
    index = TokenIndex(lazy, vocab, eos_id=eos_id)
    accept, trans = product([_complete(p) for p in parts], accepts)
    live = live_states(accept, trans)

    def reference_step(state: int, data: bytes) -> int:
        for byte_ in data:
            state = int(trans[state, byte_])
        return state

    admitted_somewhere = 0
    for state, text in _witnesses(lazy).items():
        here = reference_step(0, text)
        assert here in live
        mask = index.mask(state)
        for t, token in enumerate(vocab):
            if token is None:
                want = t == eos_id and bool(accept[here])
            else:
                want = reference_step(here, token) in live
            assert bool(mask[t]) == want, (name, text, token)
            if want and token is not None:
                admitted_somewhere += 1
                assert not is_empty(lazy.term(index.next_state(state, t)))
    assert admitted_somewhere > 0


def test_golden_oracle_agrees_on_a_boolean_term():
    term = parse("(ab|cd)*") & ~parse(".*cd.*")
    vocab = [b"a", b"b", b"c", b"d", b"ab", b"cd", b"abc", b"abab", None, b"ba"]
    oracle = Oracle(term, vocab, eos_id=8)
    lazy = LazyDFA(term)
    index = TokenIndex(lazy, vocab, eos_id=8)
    for text in (b"", b"a", b"ab", b"abab", b"aba"):
        mask = index.mask(lazy.step(lazy.start, text))
        assert oracle.mask_after(text) == np.flatnonzero(mask).tolist(), text
    assert oracle.mask_after(b"") == [0, 4, 7, 8]  # a, ab, abab, EOS: never c, cd or abc


def test_an_automaton_keeps_the_path_its_emptiness_search_found(monkeypatch):
    """`LazyDFA` asks whether its start is empty; the search's path to a nullable term is kept
    with the automaton, so the states along it are known not to be empty without a new search
    (a search's other terms are not kept)."""
    from brzozowski.automata import lazy

    searches = []
    search = lazy._search
    monkeypatch.setattr(lazy, "_search", lambda *args: (searches.append(args[0]), search(*args))[1])
    automaton = LazyDFA(parse("abc") & parse("[a-c]+"))  # not counted: `counted_not_empty` would answer
    assert len(searches) == 1
    state = automaton.start
    for b in b"abc":
        state = automaton.step(state, bytes([b]))
    assert automaton.is_accepting(state) and len(searches) == 1
