"""The fewest repetitions after which a term ends (`brzozowski.automata.fewest`), against brute force:
every string of C^n S tried for n up to a few, for random patterns X (some with & and ~), characters
C of one or more bytes (one set not prefix-free) and tails S. And the law the emptiness test relies
on: with the shortcut, `is_empty` of a counted intersection ``X & C{lo,hi} S`` is what brute force says."""

from __future__ import annotations

from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

from brzozowski.automata.fewest import counted_not_empty, fewest_repeats
from brzozowski.automata.lazy import is_empty
from brzozowski.core.derivatives import matches
from brzozowski.core.syntax import parse
from brzozowski.core.terms import EPSILON, compl, concat, inter, repeat

from .strategies import patterns

MOST = 4  # counts tried by brute force

CHARACTERS = [("[a-c]", [b"a", b"b", b"c"]), ("(?:a|bc|0)", [b"a", b"bc", b"0"]), ("(?:a|ab)", [b"a", b"ab"])]
TAILS = [(None, [b""]), (r"\.", [b"."]), ("[_ ]", [b"_", b" "])]


def _ends_after(x, strings: list[bytes], tails: list[bytes], n: int) -> bool:
    return any(matches(x, b"".join(word) + tail) for word in product(strings, repeat=n) for tail in tails)


@st.composite
def counted_cases(draw):
    x = parse(draw(patterns))
    if draw(st.booleans()):
        other = parse(draw(patterns))
        x = inter(x, compl(other) if draw(st.booleans()) else other)
    c_text, strings = draw(st.sampled_from(CHARACTERS))
    s_text, tails = draw(st.sampled_from(TAILS))
    return x, parse(c_text), strings, EPSILON if s_text is None else parse(s_text), tails


@settings(max_examples=150, deadline=None)
@given(counted_cases())
def test_fewest_repeats_is_the_fewest_count_brute_force_finds(case):
    x, c, strings, s, tails = case
    ends = [_ends_after(x, strings, tails, n) for n in range(MOST + 1)]
    found = fewest_repeats(x, c, s)
    if found is None:
        assert not any(ends)  # no budget is reached by patterns this small: None means "never"
    elif found <= MOST:
        assert ends[found] and not any(ends[:found])
    else:
        assert not any(ends)


@settings(max_examples=150, deadline=None)
@given(counted_cases(), st.integers(0, 3), st.integers(0, 3))
def test_is_empty_of_a_counted_intersection_is_brute_force(case, lo, span):
    x, c, strings, s, tails = case
    term = inter(x, concat(repeat(c, lo, lo + span), s))
    expected = any(_ends_after(x, strings, tails, n) for n in range(lo, lo + span + 1))
    if counted_not_empty(term):
        assert expected
    assert is_empty(term) is not expected


def test_a_lower_bound_above_the_fewest_count_shows_nothing():
    x, c, quote = parse("bb(cc)*!"), parse("[a-c]"), parse("!")  # 2, 4, 6, ... characters
    assert fewest_repeats(x, c, quote) == 2
    assert counted_not_empty(inter(x, concat(repeat(c, 2, 5), quote)))
    assert not counted_not_empty(inter(x, concat(repeat(c, 3, 5), quote)))  # 4 characters do end, but not shown
    assert not is_empty(inter(x, concat(repeat(c, 3, 5), quote)))  # the search finds "bbcc!"
    assert is_empty(inter(x, concat(repeat(c, 3, 3), quote)))
