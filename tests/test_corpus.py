"""The shared corpus (tests/corpus.py) is checked against oracles, not against the library alone:
the hand example's table and language by Python's ``re`` over every short text, its masks by the
definition walked byte by byte over the table, and every listed pattern by ``re`` on a sample."""

from __future__ import annotations

import itertools
import re

import pytest

from brzozowski import DEAD, TokenIndex, regex_to_dfa

from .corpus import (
    DRAWN_PATTERNS,
    HAND,
    HAND_ACCEPT,
    HAND_EDGES,
    HAND_EOS,
    HAND_MASKS,
    HAND_N_STATES,
    HAND_NON_WORDS,
    HAND_STATE_TEXT,
    HAND_VOCAB,
    HAND_WORDS,
    REAL_PATTERNS,
    SYNTAX_PATTERNS,
    TWO_LETTER_PATTERNS,
)

HAND_RE = re.compile(HAND.encode())


def hand_step(state: int, data: bytes) -> int:
    """The hand table, walked: DEAD for any byte without an edge."""
    for b in data:
        state = HAND_EDGES.get((state, chr(b)), DEAD)
        if state == DEAD:
            return DEAD
    return state


def test_the_hand_language_is_exactly_the_listed_words():
    letters = sorted({chr(b) for word in HAND_WORDS for b in word}) + ["x"]
    found = [
        "".join(t).encode()
        for n in range(6)
        for t in itertools.product(letters, repeat=n)
        if HAND_RE.fullmatch("".join(t).encode())
    ]
    assert sorted(found) == sorted(HAND_WORDS)
    assert not any(HAND_RE.fullmatch(w) for w in HAND_NON_WORDS)


def test_the_hand_table_agrees_with_re_on_every_prefix():
    """Each state's text leads to it; a state accepts exactly when its text is a word; the table's
    edges are exactly the one-byte extensions that stay a prefix of some word."""
    prefixes = {w[:k] for w in HAND_WORDS for k in range(len(w) + 1)}
    assert sorted(HAND_STATE_TEXT) == list(range(HAND_N_STATES))
    for state, text in HAND_STATE_TEXT.items():
        assert hand_step(0, text) == state
        assert HAND_ACCEPT[state] == bool(HAND_RE.fullmatch(text))
        for b in range(256):
            extended = text + bytes([b])
            assert (hand_step(state, bytes([b])) != DEAD) == (extended in prefixes), (state, b)


def test_the_hand_masks_follow_from_the_table():
    for state, allowed in HAND_MASKS.items():
        want = [
            t for t, data in enumerate(HAND_VOCAB)
            if (HAND_ACCEPT[state] if t == HAND_EOS else bool(data) and hand_step(state, data) != DEAD)
        ]
        assert allowed == want, state


def test_the_library_computes_the_hand_example():
    dfa = regex_to_dfa(HAND)
    assert dfa.n_states == HAND_N_STATES and dfa.accept.tolist() == HAND_ACCEPT
    index = TokenIndex(dfa, HAND_VOCAB, eos_id=HAND_EOS)
    for state, allowed in HAND_MASKS.items():
        assert index.mask(state).nonzero()[0].tolist() == allowed


@pytest.mark.parametrize(
    "pattern", sorted({*SYNTAX_PATTERNS, *REAL_PATTERNS.values(), *DRAWN_PATTERNS, *TWO_LETTER_PATTERNS})
)
def test_every_listed_pattern_compiles_to_a_non_empty_language_that_re_agrees_with(pattern):
    oracle = re.compile(pattern.encode())
    dfa = regex_to_dfa(pattern)
    assert dfa.accept.any(), "every corpus pattern has a non-empty language"
    for text in [b"", b"a", b"ab", b"cat", b"2024-01-31", b"a@b.cd", b"1.2.3.4", b"-1.5e3", b"\n"]:
        assert dfa.matches(text) == bool(oracle.fullmatch(text)), text
