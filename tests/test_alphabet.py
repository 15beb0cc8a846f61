"""The byte alphabet (`brzozowski.core.alphabet`): byte sets and ranges, partitions and their meet, byte
classes of partitions and of tables, `DEAD`, and the automaton protocol, each against a brute-force
oracle over the 256 bytes."""

from __future__ import annotations

import gc
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brzozowski
from brzozowski.core import alphabet
from brzozowski.core.alphabet import (
    ALL_BYTES,
    DEAD,
    ONE_CLASS,
    Automaton,
    ByteClasses,
    byte_range,
    byte_ranges,
    byte_set_of_ranges,
    meet,
    partition_by,
    partition_of,
    show_byte_set,
    table_classes,
    target_runs,
)

from .strategies import patterns

byte_sets = st.integers(min_value=0, max_value=ALL_BYTES)


def _partitions() -> st.SearchStrategy[tuple[int, ...]]:
    """Random partitions: a random class label per byte (few labels, so classes have members)."""
    def build(labels: list[int]) -> tuple[int, ...]:
        sets: dict[int, int] = {}
        for b, label in enumerate(labels):
            sets[label] = sets.get(label, 0) | (1 << b)
        return partition_of(list(sets.values()))
    return st.lists(st.integers(0, 5), min_size=256, max_size=256).map(build)


partitions = _partitions()


def _class_labels(partition: tuple[int, ...]) -> list[int]:
    """The brute-force class of every byte: the index of the set holding it."""
    return [next(i for i, bits in enumerate(partition) if (bits >> b) & 1) for b in range(256)]


def _assert_is_partition(partition: tuple[int, ...]) -> None:
    union = 0
    for bits in partition:
        assert bits and not union & bits  # non-empty, disjoint
        union |= bits
    assert union == ALL_BYTES
    lowest = [bits & -bits for bits in partition]
    assert lowest == sorted(lowest)


@settings(max_examples=200, deadline=None)
@given(bits=byte_sets)
def test_ranges_are_the_maximal_runs_of_a_set_and_convert_back(bits):
    ranges = byte_ranges(bits)
    assert byte_set_of_ranges(ranges) == bits
    members = [b for b in range(256) if (bits >> b) & 1]
    assert [b for lo, hi in ranges for b in range(lo, hi + 1)] == members
    assert all(hi + 1 < lo2 for (_, hi), (lo2, _) in zip(ranges, ranges[1:]))  # maximal: gaps between


@pytest.mark.parametrize("lo, hi", [(0, 0), (0, 255), (97, 122), (255, 255), (5, 4)])
def test_byte_range_holds_exactly_lo_to_hi(lo, hi):
    assert [b for b in range(256) if (byte_range(lo, hi) >> b) & 1] == list(range(lo, hi + 1))


@settings(max_examples=200, deadline=None)
@given(bits=byte_sets.filter(bool))
def test_a_printed_byte_set_is_a_pattern_for_exactly_its_bytes(bits):
    oracle = re.compile(show_byte_set(bits).encode(), re.DOTALL)
    assert [b for b in range(256) if oracle.fullmatch(bytes([b]))] == [
        b for b in range(256) if (bits >> b) & 1
    ]


@settings(max_examples=150, deadline=None)
@given(p=partitions, q=partitions)
def test_meet_is_the_coarsest_common_refinement(p, q):
    _assert_is_partition(p)
    result = meet(p, q)
    _assert_is_partition(result)
    labels_p, labels_q, labels = _class_labels(p), _class_labels(q), _class_labels(result)
    for x in range(0, 256, 7):
        for y in range(256):  # same class in the meet iff same class in both
            assert (labels[x] == labels[y]) == (labels_p[x] == labels_p[y] and labels_q[x] == labels_q[y])
    assert meet(p, q) is result  # memoized, interned
    assert meet(q, p) == result and meet(p, ONE_CLASS) is p and meet(ONE_CLASS, q) == q


def test_partitions_are_interned_whatever_the_order_of_their_sets():
    low, high = byte_range(0, 99), byte_range(100, 255)
    assert partition_of([high, 0, low]) is partition_of([low, high]) == (low, high)


def test_an_emptied_memo_costs_time_not_correctness(monkeypatch):
    monkeypatch.setattr(alphabet, "MAX_PARTITION_MEMO", 1)
    monkeypatch.setattr(alphabet, "MAX_BYTE_CLASSES", 1)
    p = partition_of([byte_range(0, 99), byte_range(100, 255)])
    q = partition_of([byte_range(0, 9), byte_range(10, 255)])
    assert meet(p, q) == (byte_range(0, 9), byte_range(10, 99), byte_range(100, 255))
    assert meet(p, q) == meet(q, p)
    assert ByteClasses.of(p).partition == p and ByteClasses.of(q).partition == q
    assert len(alphabet._BYTE_CLASSES) == 1 and len(alphabet._PARTITIONS) <= 1


@settings(max_examples=100, deadline=None)
@given(p=partitions)
def test_byte_classes_number_the_bytes_by_their_class(p):
    classes = ByteClasses.of(p)
    assert ByteClasses.of(p) is classes and len(classes) == len(p)
    assert classes.class_of.tolist() == _class_labels(p)
    assert classes.representatives == tuple(min(b for b in range(256) if (bits >> b) & 1) for bits in p)
    assert classes.classes_of(list(range(256))) == _class_labels(p)


@settings(max_examples=100, deadline=None)
@given(table=st.integers(1, 6).flatmap(
    lambda n: st.lists(st.lists(st.integers(-1, n - 1), min_size=256, max_size=256),
                       min_size=n, max_size=n)))
def test_table_classes_group_exactly_the_bytes_with_equal_columns(table):
    trans = np.array(table, dtype=np.int32)
    columns, class_of = table_classes(trans)
    assert np.array_equal(columns[:, class_of], trans)
    distinct = {trans[:, b].tobytes() for b in range(256)}
    assert columns.shape[1] == len(distinct) == int(class_of.max()) + 1
    first_of_class = [int(np.flatnonzero(class_of == k)[0]) for k in range(columns.shape[1])]
    assert first_of_class == sorted(first_of_class)  # numbered in the order of their lowest byte


def test_table_classes_survive_a_hash_collision(monkeypatch):
    monkeypatch.setattr(alphabet, "_COLUMN_WEIGHTS", np.zeros(1 << 16, dtype=np.int64))  # all collide
    trans = np.array([[0] * 100 + [1] * 156, [1] * 50 + [DEAD] * 206], dtype=np.int32)
    columns, class_of = table_classes(trans)
    assert np.array_equal(columns[:, class_of], trans) and columns.shape[1] == 3


@settings(max_examples=150, deadline=None)
@given(row=st.lists(st.sampled_from([DEAD, 0, 1, 2]), min_size=256, max_size=256))
def test_target_runs_are_the_maximal_live_runs_of_a_row(row):
    runs = target_runs(np.array(row, dtype=np.int32))
    assert runs == target_runs(row)
    rebuilt = [DEAD] * 256
    for lo, hi, target in runs:
        assert target != DEAD
        rebuilt[lo:hi + 1] = [target] * (hi - lo + 1)
    assert rebuilt == row
    for (lo, hi, t), (lo2, _, t2) in zip(runs, runs[1:]):
        assert hi < lo2 and (hi + 1 < lo2 or t != t2)  # ascending, and adjacent runs differ


def test_both_automata_are_automata_and_nothing_else_is():
    dfa, lazy = brzozowski.regex_to_dfa("(cat|car|dog)s?"), brzozowski.LazyDFA("(cat|car|dog)s?")
    assert isinstance(dfa, Automaton) and isinstance(lazy, Automaton)
    assert not isinstance(dfa.trans, Automaton) and not isinstance("a|b", Automaton)
    for automaton in (dfa, lazy):
        state = automaton.step(automaton.start, b"ca")
        assert automaton.row(state)[ord("t")] == automaton.step(state, b"t") != DEAD
        assert automaton.row(state)[ord("x")] == DEAD == automaton.step(state, b"x")
        assert automaton.matches(b"cars") and not automaton.matches(b"ca")
        assert automaton.byte_classes.shape == (256,)


def test_the_old_homes_re_export_the_one_definition():
    from brzozowski.automata import dfa
    from brzozowski.automata import lazy
    from brzozowski.core import terms

    assert brzozowski.DEAD is dfa.DEAD is lazy.DEAD is DEAD == -1
    assert terms.ALL_BYTES is ALL_BYTES and terms.show_byte_set is show_byte_set


def _signature_partition(term) -> set[int]:
    """Oracle: bytes grouped by which byte sets of the term's DAG hold them."""
    sets, seen, todo = set(), set(), [term]
    while todo:
        t = todo.pop()
        if id(t) not in seen:
            seen.add(id(t))
            if t.kind == brzozowski.core.terms.K_BYTES:
                sets.add(t.bits)
            todo.extend(t.children)
    groups: dict[tuple, int] = {}
    for b in range(256):
        key = tuple(sorted(s for s in sets if (s >> b) & 1))
        groups[key] = groups.get(key, 0) | (1 << b)
    return set(groups.values())


@settings(max_examples=60, deadline=None)
@given(parts=st.lists(patterns, min_size=2, max_size=4), seed=st.integers(0, 3))
def test_alphabet_classes_memoized_on_sub_terms_equal_a_fresh_grouping(parts, seed):
    """A walk stops at sub-terms whose classes are memoized (a schema's cached "any value"); the
    result is the grouping of the bytes by the byte sets of the whole DAG either way."""
    from brzozowski.core.derivatives import alphabet_classes
    from brzozowski.core.terms import alt, concat, star
    terms = [brzozowski.parse(p) for p in parts]
    alphabet_classes(terms[seed % len(terms)])  # memoize one part first, as the schema compiler does
    whole = alt(concat(terms[0], star(terms[1])), *terms[2:])
    assert set(alphabet_classes(whole)) == _signature_partition(whole)
    assert alphabet_classes(whole) is alphabet_classes(whole)  # memoized on the term


@settings(max_examples=60, deadline=None)
@given(sets=st.lists(st.one_of(st.integers(0, ALL_BYTES), st.builds(byte_range, st.integers(0, 255),
                                                                       st.integers(0, 255))), max_size=80))
def test_partition_by_is_the_meet_of_every_set_one_at_a_time(sets):
    """All sets at once (bytes grouped by which sets hold them; over 8 and over 64 sets the
    signature spans several bytes) against meeting their two-class partitions one by one."""
    one_by_one = ONE_CLASS
    for bits in sets:
        one_by_one = meet(one_by_one, partition_of([bits, ALL_BYTES ^ bits]))
    assert partition_by(sets) is one_by_one  # the same interned partition


def test_full_memos_evict_their_oldest_entry_not_everything(monkeypatch):
    """Emptying a full memo of thousands of byte classes at once cost one mask step milliseconds
    of deallocation in a long run: each new entry evicts the oldest instead."""
    monkeypatch.setattr(alphabet, "MAX_PARTITION_MEMO", 3)
    monkeypatch.setattr(alphabet, "MAX_BYTE_CLASSES", 3)
    monkeypatch.setattr(alphabet, "_PARTITIONS", type(alphabet._PARTITIONS)())
    monkeypatch.setattr(alphabet, "_MEETS", type(alphabet._MEETS)())
    monkeypatch.setattr(alphabet, "_BYTE_CLASSES", type(alphabet._BYTE_CLASSES)())
    made = [partition_of([byte_range(0, 9 + i), byte_range(10 + i, 255)]) for i in range(5)]
    assert list(alphabet._PARTITIONS) == made[2:]
    for p in made:
        ByteClasses.of(p)
    assert list(alphabet._BYTE_CLASSES) == made[2:]
    halves = partition_of([byte_range(0, 127), byte_range(128, 255)])
    for p in made:
        meet(p, halves)
    assert len(alphabet._MEETS) == 3


def test_byte_classes_hold_no_list_the_collector_keeps_tracking():
    """Thousands of `ByteClasses` live in the process-wide memo: their representatives are a tuple
    of ints, which the garbage collector stops tracking (full collections then skip them)."""
    classes = ByteClasses.of(partition_of([byte_range(0, 99), byte_range(100, 200), byte_range(201, 255)]))
    gc.collect()
    assert classes.representatives == (0, 100, 201) and not gc.is_tracked(classes.representatives)
