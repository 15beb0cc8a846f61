"""Strings bounded by a length and a pattern or format, masked with the count outside the state
(`brzozowski.json.masks.counted`): every mask along random walks equals the plain walk's (the
index with its strategies off), for random patterns, bounds near and far, formats, a string
followed by more of a document, and a vocabulary with escapes, split UTF-8 characters, tokens
that close the string and long tokens. And the law the strategy rests on, against brute force:
`completion_bound` bounds the shortest way to the end from every state a term reaches."""

from __future__ import annotations

import json
import random
from collections import deque

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brzozowski import TokenIndex, Vocabulary, compile_json_schema
from brzozowski.automata.fewest import completion_bound, shortest
from brzozowski.automata.lazy import is_empty
from brzozowski.core.derivatives import derivative, derivative_classes
from brzozowski.core.syntax import parse
from brzozowski.core.terms import EMPTY, compl, inter
from brzozowski.errors import SchemaError
from brzozowski.json.ecma_regex import parse_pattern
from brzozowski.budget import DEFAULT_LIMITS
from brzozowski.json.leaf_terms import FORMATS, json_string_term
from brzozowski.json.masks.passes import PatternPasses, pattern_passes
from brzozowski.json.strings import ANY_STRING
from brzozowski.masks.tuning import Tuning

from .strategies import ALPHABET, patterns, texts

POOL = [b"a", b"b", b"c", b"0", b".", b" ", b"_", b"\n", b"ab", b"abc", b"a b", b"c0.", b"abcabc",
        b"aaaaaaaa", b"bc bc bc", b"0000000000", b'"', b'",', b'"}', b'a"', b'a",', b'aaaa."', b'abc abc",',
        b'0000000000."}', b'b.",', b'"s":', b"\\",
        b'\\"', b"\\n", b"\\u00", b"\\u0061", b"\\u00e9a", b"\xc3", b"\xa9", b"\xc3\xa9", b"\xc3\xa9a",
        b"@", b"a@b", b".io", b"x", b"-", b"{", b'{"', b"}", b":", b"1", b"12", b"2024-01-02",
        b"T10:00:00Z", b"http", b"://", b"/"]
"""Tokens for the walks: the alphabet's bytes, words of it, JSON's specials around a string's end,
escapes, a UTF-8 character whole and split, and the pieces of emails, dates and URIs."""


def _vocabulary(tokens: list[bytes]) -> Vocabulary:
    return Vocabulary(tokens + [None], eos_id=len(tokens))


def _walk_and_compare(schema: dict, vocab: Vocabulary, seed: int, steps: int, tuning: Tuning) -> int:
    """Walk `steps` random allowed tokens, comparing each state's mask with the plain walk's;
    returns how many masks the counted strategy served."""
    automaton = compile_json_schema(schema)
    index = TokenIndex(automaton, vocab, tuning=tuning)
    bits_first = TokenIndex(automaton, vocab, tuning=tuning)  # (asked for bitmasks: computed packed)
    plain = TokenIndex(automaton, vocab)
    plain.set_strategy(strings=False)
    rng = random.Random(seed)
    state = automaton.start
    for _ in range(steps):
        mask = index.mask(state)
        assert np.array_equal(mask, plain.mask(state)), (schema, state, str(automaton.term(state))[:200])
        assert np.array_equal(bits_first.bitmask(state), plain.bitmask(state)), (schema, state)
        allowed = [int(t) for t in np.flatnonzero(mask) if t != vocab.eos_id]
        if not allowed:
            break
        state = index.next_state(state, rng.choice(allowed))
    assert bits_first.served["counted strings"] == index.served["counted strings"]
    return index.served["counted strings"]


SCHEMAS = [
    {"type": "string", "pattern": r"^(?:\S+\s+){0,4}\S+$", "maxLength": 30},
    {"type": "string", "pattern": r"^(?:\S+\s+){0,6}\S+$", "minLength": 2, "maxLength": 24},
    {"type": "string", "pattern": "^[ab ]*[.][a-c0 ]{0,6}$", "maxLength": 12},  # (the pattern's count the lesser)
    {"type": "string", "pattern": "^[a-c0 .]{0,12}$", "maxLength": 7},  # (the length bound the lesser)
    # (a pattern whose loose side ends sooner than it does)
    {"type": "string", "pattern": "^(?:a{0,3}c|a*bbbbbbc)$", "maxLength": 12},
    {"type": "string", "pattern": "^[a-c0 ]+$", "maxLength": 40},
    {"type": "string", "pattern": "^[a-c0 ]+$", "minLength": 3, "maxLength": 12},
    {"type": "string", "pattern": "b", "maxLength": 35},
    {"type": "string", "format": "email", "maxLength": 30},
    {"type": "string", "format": "date-time", "maxLength": 22},
    {"type": "object", "properties": {"s": {"type": "string", "pattern": "^[^\n]*[.]$", "maxLength": 28},
                                      "n": {"type": "integer"}},
     "required": ["s", "n"], "additionalProperties": False},
]


@pytest.mark.parametrize("checked_tokens,exact_tokens,repeat_cap,shared_states",
                         [(0, 0, 8, 20_000), (10_000, 0, 1, 20_000), (10_000, 64, 0, 20_000),
                          (10_000, 10_000, 2, 20_000), (0, 64, 1, 20_000), (10_000, 64, 1, 0), (0, 64, 2, 0)])
@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: json.dumps(s)[:60])
def test_counted_masks_equal_the_walk(schema, checked_tokens, exact_tokens, repeat_cap, shared_states):
    """(A cap below the pattern's counts reads its masks off its sandwich; with no shared pattern
    state kept, every pass is numbered in an automaton of its own.)"""
    vocab = _vocabulary(POOL)
    tuning = Tuning(counted_checked_tokens=checked_tokens, counted_exact_tokens=exact_tokens,
                    counted_repeat_cap=repeat_cap, shared_pattern_states=shared_states)
    served = sum(_walk_and_compare(schema, vocab, seed, 40, tuning) for seed in range(6))
    if checked_tokens and exact_tokens and schema.get("format") != "date-time":  # (date-time: its bound implied by the format)
        assert served > 0


def test_a_counted_strings_first_mask_builds_no_string_table():
    """The per-vocabulary string tables a counted string reads from its body (the counts to the
    string's end, `chars_to_end`, and the counts' order) are built with the `Vocabulary`: a first
    mask inside the string, served by the strategy, adds none (one-time work never falls in a
    step)."""
    vocab = _vocabulary(POOL)
    string = {"type": "string", "pattern": r"^(?:\S+\s+){0,4}\S+$", "maxLength": 30}
    tables = {key for key in vocab.trie.tables if str(key[0]).startswith("json-string")}
    automaton = compile_json_schema(string)
    index = TokenIndex(automaton, vocab)
    index.bitmask(automaton.step(automaton.start, b'"'))
    assert index.served["counted strings"] == 1
    assert {key for key in vocab.trie.tables if str(key[0]).startswith("json-string")} == tables


def test_the_indexes_of_one_vocabulary_share_a_patterns_passes():
    """A second schema whose string has the same pattern and bounds reads the first one's passes
    (`brzozowski.json.masks.passes`): none is added, the shared automaton gains no state, and its
    masks still equal the plain walk's."""
    vocab = _vocabulary(POOL)
    tuning = Tuning(counted_checked_tokens=0, shared_pattern_bytes=(32 << 20) - 1)  # (a store of its own)
    string = {"type": "string", "pattern": r"^(?:\S+\s+){0,4}\S+$", "maxLength": 30}
    assert sum(_walk_and_compare(string, vocab, seed, 40, tuning) for seed in range(6)) > 0
    automaton = compile_json_schema(string)
    store = pattern_passes(vocab.trie, automaton.max_states, automaton.limits, tuning)
    kept = {pattern: store.walks.get(pattern) for pattern in store.walks}
    states = store.table.automaton.n_states
    assert kept
    inside = {"type": "object", "properties": {"s": string}, "required": ["s"], "additionalProperties": False}
    assert sum(_walk_and_compare(inside, vocab, seed, 40, tuning) for seed in range(6)) > 0
    assert len(store.walks) == len(kept) and all(store.walks.get(p) is walked for p, walked in kept.items())
    assert store.table.automaton.n_states == states


def test_a_pattern_over_the_budget_only_beside_others_is_passed_in_a_fresh_automaton():
    """The shared automaton's budget spent on other patterns' states does not refuse a pattern
    that fits alone; one that does not fit alone is refused (None)."""
    vocab = _vocabulary(POOL)
    first, second, too_big = parse(rb"a{0,8}"), parse(rb"(?:ab){0,4}"), parse(rb"[a-c0 .]{0,40}")
    alone = []
    for pattern in (first, second):
        store = PatternPasses(vocab.trie, 1000, DEFAULT_LIMITS, Tuning())
        alone.append((store.walked(pattern), store.table.automaton.n_states))
    budget = max(n for _, n in alone) + 1
    assert alone[0][1] + alone[1][1] > budget
    store = PatternPasses(vocab.trie, budget, DEFAULT_LIMITS, Tuning())
    walked = [store.walked(pattern) for pattern in (first, second)]
    assert walked[1] is not None and walked[1].automaton is not walked[0].automaton
    for (expected, _), found in zip(alone, walked):
        assert np.array_equal(found.allowed, expected.allowed)
        assert np.array_equal(found.after > 0, expected.after > 0)
    assert store.walked(too_big) is None
    bounded = PatternPasses(vocab.trie, 1000, DEFAULT_LIMITS, Tuning(shared_pattern_states=0))
    walked = [bounded.walked(pattern) for pattern in (first, second)]
    assert walked[1].automaton is not walked[0].automaton and len(bounded.walks) == 1  # (past the states kept)


@pytest.mark.parametrize("schema,text", [
    ({"type": "string", "pattern": "^[ab ]*[.][a-c0 ]{0,6}$", "maxLength": 12}, [b'"', b"a", b".", b"c", b"ab"]),
    ({"type": "string", "pattern": "^[a-c0 .]{0,12}$", "maxLength": 7}, [b'"', b"ab", b"c0.", b"a"]),
    # (a count the bound makes idle, unbounded, and one it does not: at every step one more
    # repetition than the pattern allows fits in the characters left, for a token that holds two)
    ({"type": "string", "pattern": "^(?:ab ){0,4}c*$", "maxLength": 12}, [b'"', b"ab ab ", b"ab ", b"ab "]),
    ({"type": "string", "pattern": "^(?:ab ){0,3}c*$", "maxLength": 12}, [b'"', b"ab ", b"ab ", b"ab "]),
])
def test_a_pattern_that_counts_one_class_takes_the_lesser_bound(schema, text):
    """``C{0,k} & K`` is read as ``C* & K'`` with the lesser of the two counts, and a count that the
    characters left cannot reach is unbounded: along a text where each is the lesser, every mask
    equals the plain walk's (a token of more characters, or repetitions, than the pattern's count
    allows, below the length bound, must be refused)."""
    tokens = POOL + [b"ab ", b"ab ab ", b"ab ab ab "]
    vocab = _vocabulary(tokens)
    automaton = compile_json_schema(schema)
    index, plain = TokenIndex(automaton, vocab), TokenIndex(automaton, vocab)
    plain.set_strategy(strings=False)
    state = automaton.start
    for token in text:
        assert np.array_equal(index.mask(state), plain.mask(state)), (schema, token)
        state = index.next_state(state, tokens.index(token))
    assert np.array_equal(index.mask(state), plain.mask(state))
    assert index.served["counted strings"] > 0


@pytest.mark.parametrize("cap", [0, 1])
@pytest.mark.parametrize("schema", [
    {"type": "string", "pattern": r"^(?:\S+\s+){0,3}\S+$", "maxLength": 9},
    {"type": "string", "pattern": r"^(?:\S+\s+){0,2}\S+$", "maxLength": 12},
    {"type": "string", "pattern": "^(?:a{0,5}c|a*bbbbbbc)$", "maxLength": 12},  # (loose ends sooner)
], ids=lambda s: s["pattern"])
def test_near_the_bound_the_sides_settle_every_reachable_state(schema, cap):
    """Every state a small vocabulary reaches (breadth first) has the plain walk's mask, with the
    tokens near the bound settled by the pattern's sandwich sides first (no token is few enough
    to read one by one): a token the tight side ends within the bound is allowed, one the loose
    side cannot end within it refused, and only those."""
    tokens = [b"a", b"b", b"c", b" ", b"ab", b"a b", b"a b ", b"ab ", b"aaaa", b"bbbbbbc", b"bb", b"c ",
              b"abcde ", b"a b c ", b"abcdef", b'"', b'a"', b'c"', b"\\n", b"\xc3\xa9"]
    vocab = _vocabulary(tokens)
    automaton = compile_json_schema(schema)
    tuning = Tuning(counted_checked_tokens=0, counted_exact_tokens=64, counted_repeat_cap=cap)
    index, plain = TokenIndex(automaton, vocab, tuning=tuning), TokenIndex(automaton, vocab)
    plain.set_strategy(strings=False)
    seen, todo = {automaton.start}, deque([automaton.start])
    while todo:
        state = todo.popleft()
        mask = index.mask(state)
        assert np.array_equal(mask, plain.mask(state)), (schema, cap, str(automaton.term(state))[:200])
        for t in np.flatnonzero(mask[:-1]).tolist():
            after = index.next_state(state, t)
            if after not in seen:
                seen.add(after)
                todo.append(after)
    assert index.served["counted strings"] > 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=patterns, lengths=st.tuples(st.integers(0, 3), st.integers(0, 30)),
       picked=st.lists(st.sampled_from(POOL), min_size=6, max_size=30, unique=True),
       seed=st.integers(0, 1000), follows=st.booleans())
def test_counted_masks_equal_the_walk_for_random_patterns(pattern, lengths, picked, seed, follows):
    lo, span = lengths
    string = {"type": "string", "pattern": pattern, "minLength": lo, "maxLength": lo + span}
    schema = ({"type": "array", "items": string, "maxItems": 2} if follows else string)
    tokens = sorted(set(picked) | {bytes([b]) for b in ALPHABET} | {b'"', b"]", b"[", b","})
    try:
        compile_json_schema(schema)
    except ValueError:
        return  # (a pattern whose strings no bound allows)
    tuning = Tuning(counted_checked_tokens=seed % 2 * 100, counted_exact_tokens=seed % 3 * 8,
                    counted_repeat_cap=seed % 4, shared_pattern_states=seed % 5 * 5)
    _walk_and_compare(schema, _vocabulary(tokens), seed, 30, tuning)


def _shortest_by_search(term) -> int | None:
    """The shortest string's length, breadth first over derivatives (None: the language is empty)."""
    seen, todo = {term}, deque([(term, 0)])
    while todo:
        t, n = todo.popleft()
        if t.nullable:
            return n
        for bits in derivative_classes(t):
            d = derivative(t, (bits & -bits).bit_length() - 1)
            if d is not EMPTY and d not in seen:
                seen.add(d)
                todo.append((d, n + 1))
    return None


@settings(max_examples=150, deadline=None)
@given(patterns, st.lists(texts, max_size=6))
def test_completion_bound_bounds_every_reached_state(pattern, prefixes):
    term = parse(pattern)
    bound = completion_bound(term)
    assert shortest(term) == _shortest_by_search(term)
    for text in prefixes:
        reached = term
        for b in text:
            reached = derivative(reached, b)
        found = _shortest_by_search(reached)
        if found is not None:
            assert found <= bound, (pattern, text, found, bound)


@settings(max_examples=80, deadline=None)
@given(patterns)
def test_a_pattern_holds_only_string_contents(pattern):
    """The claim the counted strings rest on: a pattern's term is made of whole characters (every
    string of it is the contents of a JSON string), so intersecting it with ``C*`` changes nothing."""
    try:
        term = parse_pattern(pattern)[0]
    except SchemaError:
        return  # (a Python construct ECMA-262 refuses)
    assert is_empty(inter(term, compl(ANY_STRING)))


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_a_format_holds_only_json_strings(name):
    """... and a format's strings (its table leaf: contents and the closing quote) are JSON strings."""
    term = json_string_term(format=name)
    assert is_empty(inter(term, compl(json_string_term())))
