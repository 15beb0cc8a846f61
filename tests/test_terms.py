"""Terms and derivatives: interning, the smart constructors' normal forms, nullability, and the
derivative classes (a partition of the bytes whose members give the same derivative)."""

from __future__ import annotations

import copy
import gc
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from brzozowski.core.derivatives import derivative, derivative_classes, derivative_of_string, matches
from brzozowski.core.syntax import parse
from brzozowski.core import terms as store
from brzozowski.core.terms import (
    ALL_BYTES,
    EMPTY,
    EPSILON,
    alt,
    byte,
    byte_set,
    compl,
    concat,
    inter,
    intern_table_size,
    literal,
    repeat,
    star,
)

from .corpus import HAND
from .strategies import patterns, texts

a, b, c = byte(ord("a")), byte(ord("b")), byte(ord("c"))
terms = patterns.map(parse)


def test_interning_makes_identity_equality():
    assert concat(a, star(b)) is concat(a, star(b))
    assert parse("(ab)*") is star(literal(b"ab"))
    size = intern_table_size()
    concat(a, star(b))
    assert intern_table_size() == size
    assert copy.deepcopy(concat(a, b)) is concat(a, b)


def test_a_dead_terms_callback_never_removes_the_term_that_took_its_key():
    # A term dies; before its callback runs, another thread builds the same term again under the
    # same key. The late callback must leave the new term's entry alone.
    live = literal(b"the-key-is-taken-again")
    key = live.key
    assert store._TABLE[key]() is live

    class Mortal:
        pass

    mortal = Mortal()
    late = store._Entry(mortal, None)
    late.key = key
    del mortal
    gc.collect()
    assert late() is None
    store._forget(late)  # the late callback of the dead twin
    assert store._TABLE[key]() is live
    assert concat(byte(ord("t")), live.children[1]) is live


def test_a_dead_term_leaves_the_table():
    term = literal(b"this-term-will-die")
    key = term.key
    assert key in store._TABLE
    del term
    gc.collect()
    assert key not in store._TABLE


def test_widest_is_the_widest_alternation_anywhere_inside():
    wide = parse("x|yy|zzz|(ab)*")  # four operands
    assert wide.widest == 4 and byte(1).widest == 0 and literal(b"abc").widest == 0
    assert alt(a, b, c).widest == 0  # one merged byte set, no alternation
    assert concat(a, wide).widest == 4 and star(wide).widest == 4 and repeat(wide, 2, 5).widest == 4
    assert compl(wide).widest == 4 and inter(star(a), compl(concat(wide, b))).widest == 4
    assert alt(wide, parse("q(r|ss)")).widest == 5  # flattened: x, yy, zzz, (ab)*, q(r|ss)


def test_alternation_normal_form():
    assert alt(a, b) is alt(b, a)  # sorted
    assert alt(a, a) is a  # de-duplicated
    assert alt(alt(a, concat(b, c)), c) is alt(a, alt(concat(b, c), c))  # flattened
    assert alt(a, b) is byte_set((1 << ord("a")) | (1 << ord("b")))  # byte sets merged
    assert alt(a, EMPTY) is a and alt() is EMPTY  # ∅ dropped
    assert alt(EPSILON, star(a)) is star(a)  # ε dropped beside a nullable operand
    assert alt(EPSILON, a) is not a


def test_concatenation_normal_form():
    assert concat(concat(a, b), c) is concat(a, concat(b, c))  # right-nested
    assert concat(a, EPSILON) is a and concat(EPSILON, a) is a
    assert concat(a, EMPTY) is EMPTY and concat(EMPTY, star(a)) is EMPTY
    assert concat() is EPSILON


def test_star_and_repeat_normal_forms():
    assert star(star(a)) is star(a)
    assert star(EPSILON) is EPSILON and star(EMPTY) is EPSILON
    assert star(alt(EPSILON, a)) is star(a)
    assert repeat(a, 0, 0) is EPSILON
    assert repeat(a, 1, 1) is a
    assert repeat(a, 0, 1) is alt(a, EPSILON)
    assert repeat(a, 0, None) is star(a)
    assert repeat(star(a), 2, 5) is repeat(star(a), 0, 5)  # a nullable body: the minimum says nothing
    assert repeat(EMPTY, 0, 3) is EPSILON and repeat(EMPTY, 2, 3) is EMPTY
    assert repeat(a, 3, 7).lo == 3 and repeat(a, 3, 7).hi == 7  # one node
    with pytest.raises(ValueError):
        repeat(a, 3, 2)
    with pytest.raises(ValueError):
        byte_set(1 << 256)


def test_the_only_empty_language_is_the_empty_term():
    assert byte_set(0) is EMPTY
    assert concat(a, byte_set(0), b) is EMPTY
    assert alt(concat(a, EMPTY), EMPTY) is EMPTY
    assert derivative(literal(b"ab"), ord("b")) is EMPTY


def test_derivatives_by_hand():
    hand = parse(HAND)
    assert derivative_of_string(hand, b"ca") is concat(parse("[rt]"), alt(parse("s"), EPSILON))
    assert derivative_of_string(hand, b"dog") is alt(parse("s"), EPSILON)
    assert derivative_of_string(hand, b"x") is EMPTY
    assert derivative(repeat(a, 2, 3), ord("a")) is repeat(a, 1, 2)
    assert derivative(star(literal(b"ab")), ord("a")) is concat(b, star(literal(b"ab")))


@settings(max_examples=150, deadline=None)
@given(term=terms)
def test_derivative_classes_partition_the_bytes_and_are_sound(term):
    classes = derivative_classes(term)
    union = 0
    for members in classes:
        assert members and not union & members  # non-empty, disjoint
        union |= members
    assert union == ALL_BYTES  # covering
    lowest = [m & -m for m in classes]
    assert lowest == sorted(lowest)
    for members in classes:
        bytes_in_class = [x for x in range(256) if (members >> x) & 1]
        first = derivative(term, bytes_in_class[0])
        assert all(derivative(term, x) is first for x in bytes_in_class)


@settings(max_examples=150, deadline=None)
@given(pattern=patterns, data=st.lists(texts, max_size=8))
def test_nullable_and_matching_agree_with_python(pattern, data):
    term = parse(pattern)
    oracle = re.compile(pattern.encode())
    assert term.nullable == bool(oracle.fullmatch(b""))
    for text in data:
        assert matches(term, text) == bool(oracle.fullmatch(text))


@settings(max_examples=100, deadline=None)
@given(term=terms)
def test_first_is_exactly_the_bytes_with_a_non_empty_derivative(term):
    for x in range(256):
        assert ((term.first >> x) & 1) == (derivative(term, x) is not EMPTY)


@settings(max_examples=100, deadline=None)
@given(left=terms, right=terms, third=terms)
def test_alternation_is_associative_commutative_idempotent(left, right, third):
    assert alt(left, right) is alt(right, left)
    assert alt(left, left) is left
    assert alt(alt(left, right), third) is alt(left, alt(right, third))
    assert concat(concat(left, right), third) is concat(left, concat(right, third))


def _general_alt(operands):
    """The alternation built through alt's general path only (three or more arguments)."""
    return store.alt(*operands, store.EMPTY, store.EMPTY)


@settings(max_examples=100, deadline=None)
@given(parts=st.lists(terms | st.sampled_from([EPSILON, parse("a*"), parse("[ab]"), parse("x") & ~parse("y")]),
                      min_size=1, max_size=8))
@example(parts=[EPSILON, parse("[ab]"), parse("a*")])  # ε must go once a nullable operand comes
@example(parts=[parse("x") & ~parse("y"), parse("a*"), parse("b+")])
def test_adding_operands_one_at_a_time_gives_the_general_normal_form(parts):
    """alt(wide, one) inserts one operand into a flat alternation without flattening it again;
    the result is the very term the general path builds, with the same fields."""
    one_at_a_time = parts[0]
    for part in parts[1:]:
        one_at_a_time = alt(one_at_a_time, part) if len(parts) % 2 else alt(part, one_at_a_time)
    general = _general_alt(parts)
    assert one_at_a_time is general, (parts, one_at_a_time, general)
    kids = general.children
    assert general.boolean == (general.kind >= store.K_INTER or any(k.boolean for k in kids))
    assert general.widest == max([len(kids) if general.kind == store.K_ALT else 0] + [k.widest for k in kids])
    assert general.key == (general.kind, *[k.id for k in kids]) or general.kind != store.K_ALT


def test_printing_is_a_compact_regex():
    assert str(parse(HAND)) == HAND == "(cat|car|dog)s?"
    assert str(parse("[a-z]+x{2,5}")) == "[a-z]+x{2,5}"
    assert str(EMPTY) == "∅" and str(EPSILON) == "ε"
    assert repr(star(a)) == "Term(a*)"
