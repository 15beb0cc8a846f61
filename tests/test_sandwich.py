"""The sandwich of a term that counts (`brzozowski.automata.sandwich`): tight ⊆ X ⊆ loose, both
forgetting the counts over the cap, against Python's ``re`` on the rewritten pattern and on random
strings; and what the counted strings read off it, the masks of a pattern that counts its words,
against the plain walk (`tests/test_counted_masks.py` runs the same masks under other tunings)."""

from __future__ import annotations

import gc
import re
import weakref

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brzozowski.automata.fewest import shortest
from brzozowski.core.alphabet import ALL_BYTES
from brzozowski.automata.sandwich import repeat_sandwich, unbounded_within
from brzozowski.core.derivatives import matches
from brzozowski.core.syntax import parse
from brzozowski.automata.lazy import is_empty
from brzozowski.core.terms import byte_set, compl, inter, repeat

from .strategies import patterns, texts


@pytest.mark.parametrize("pattern,cap,tight,loose", [
    ("(?:ab){0,49}c", 2, "(?:ab){0,2}c", "(?:ab)*c"),
    ("(?:ab){5,49}c", 2, "(?:ab){5}c", "(?:ab){5,}c"),
    ("(?:a{0,9}b){1,3}", 3, "(?:a{0,3}b){1,3}", "(?:a*b){1,3}"),
    ("x(?:(?:a|b){2,7}y)*", 4, "x(?:(?:a|b){2,4}y)*", "x(?:(?:a|b){2,}y)*"),
])
def test_the_sides_by_hand(pattern, cap, tight, loose):
    assert repeat_sandwich(parse(pattern), cap) == (parse(tight), parse(loose))


@pytest.mark.parametrize("pattern,cap", [("(?:ab){0,2}c", 2), ("a*b+c?", 0), ("(?:ab){0,9}", 9)])
def test_no_count_over_the_cap_no_sandwich(pattern, cap):
    assert repeat_sandwich(parse(pattern), cap) is None


def test_a_complement_has_no_sandwich():
    assert repeat_sandwich(compl(parse("(?:ab){0,49}")), 2) is None


@settings(max_examples=200, deadline=None)
@given(patterns, st.integers(0, 2), st.lists(texts, max_size=12))
def test_tight_inside_the_term_inside_loose(pattern, cap, strings):
    """Exactly (emptiness of the differences, on derivatives), and on random strings against ``re``."""
    term = parse(pattern)
    sides = repeat_sandwich(term, cap)
    if sides is None:
        return
    tight, loose = sides
    assert is_empty(inter(tight, compl(term))) and is_empty(inter(term, compl(loose))), (pattern, cap)
    for text in strings:
        inside = re.fullmatch(pattern.encode(), text) is not None
        assert not matches(tight, text) or inside, (pattern, cap, text)
        assert not inside or matches(loose, text), (pattern, cap, text)


@pytest.mark.parametrize("pattern,n,unbounded", [
    ("(?:ab){0,49}c", 20, "(?:ab)*c"),  # (20 bytes hold 10 ab's at most)
    ("(?:ab){0,49}c", 200, "(?:ab){0,49}c"),
    ("(?:ab){0,10}c", 21, "(?:ab)*c"),
    ("(?:ab){0,10}c", 22, "(?:ab){0,10}c"),  # (22 bytes hold 11: the bound binds)
    ("x(?:a{2,5}y){0,3}", 12, "x(?:a{2,5}y){0,3}"),
    ("x(?:a{2,5}y){0,3}", 11, "x(?:a{2,5}y)*"),
    ("x(?:a{2,5}y){0,3}", 5, "x(?:a{2,}y)*"),
    ("(?:a|bc){1,9}", 9, "(?:a|bc)+"),
    ("(?:a?){0,3}", 1, "(?:a?){0,3}"),  # (a body that can be empty: no count is idle)
])
def test_idle_counts_by_hand(pattern, n, unbounded):
    assert unbounded_within(parse(pattern), n, shortest) is parse(unbounded)


@pytest.mark.parametrize("pattern,n", [("x(?:qz){0,3}w", 100), ("x(?:qz){0,9}w", 4)])
def test_unbounded_within_keeps_no_term_alive(pattern, n):
    """Its memo is weak by term: a term dies with its last reference, whether its counts stayed
    bounded (its result is itself) or were unbounded, and so does every term inside it."""
    term = parse(pattern)
    result = unbounded_within(term, n, shortest)
    assert (result is term) == (n == 100)
    refs = [weakref.ref(term), weakref.ref(term.children[1])]
    del term, result
    gc.collect()
    assert [ref() for ref in refs] == [None, None]


@pytest.mark.parametrize("pattern,cap", [("x(?:qz){2}w", 1), ("x(?:qz){0,9}w", 2)])
def test_repeat_sandwich_keeps_no_term_alive(pattern, cap):
    """The same for the sandwiches, a side that is the term itself included (``(qz){2}`` under
    cap 1 is its own tight side)."""
    term = parse(pattern)
    tight, loose = repeat_sandwich(term, cap)
    assert tight is not loose
    refs = [weakref.ref(term), weakref.ref(term.children[1]), weakref.ref(tight)]
    del term, tight, loose
    gc.collect()
    assert [ref() for ref in refs] == [None, None, None]


@settings(max_examples=200, deadline=None)
@given(patterns, st.integers(0, 8), st.lists(texts, max_size=12))
def test_idle_counts_unbounded_keep_the_short_strings(pattern, n, strings):
    """The term with its idle counts unbounded has the same strings of at most n bytes (exactly:
    emptiness of the differences within n bytes; and on random strings against ``re``), and holds
    the term."""
    term = parse(pattern)
    unbounded = unbounded_within(term, n, shortest)
    short = repeat(byte_set(ALL_BYTES), 0, n)
    assert is_empty(inter(term, compl(unbounded))), (pattern, n)
    assert is_empty(inter(unbounded, compl(term), short)), (pattern, n)
    for text in strings:
        if len(text) <= n:
            assert matches(unbounded, text) == (re.fullmatch(pattern.encode(), text) is not None), (pattern, n, text)
