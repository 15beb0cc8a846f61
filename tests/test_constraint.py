"""Constraint, apply_mask and constrained_sample (spec §2.4): the lifecycle of one generation, masked
logits, greedy and seeded sampling under a mask, and generated texts checked with Python's re."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brzozowski import DEAD, LazyDFA, regex_to_dfa
from brzozowski.constraint import Constraint, apply_mask, constrained_sample
from brzozowski.errors import MaskError, TokenError
from brzozowski.masks import TokenIndex
from brzozowski.sampling import SamplingParams

HAND = "(cat|car|dog)s?"
HAND_VOCAB = [b"c", b"a", b"t", b"r", b"d", b"o", b"g", b"s", b"ca", b"cat", b"dog", b"ts", b"x",
              None, b""]
EOS = 13


def hand_index() -> TokenIndex:
    return TokenIndex(regex_to_dfa(HAND), HAND_VOCAB, eos_id=EOS)


def log_softmax_at(logits: np.ndarray, allowed: np.ndarray, t: int) -> float:
    x = logits[allowed]
    top = x.max()
    return float(logits[t] - (top + math.log(np.exp(x - top).sum())))


# -- Constraint ---------------------------------------------------------------------------------


def test_constraint_lifecycle():
    index = hand_index()
    c = Constraint(index)
    assert (c.state, c.done, c.is_complete()) == (0, False, False)
    assert np.array_equal(c.mask(), index.mask(0))
    # refusing tokens outside the mask, naming the token and the state; the state does not move
    with pytest.raises(TokenError, match=r"token 12 \(b'x'\).*state 0"):
        c.advance(12)
    with pytest.raises(TokenError, match=r"token 13 \(EOS\).*state 0"):  # EOS only when complete
        c.advance(EOS)
    with pytest.raises(TokenError, match=r"token 14 \(b''\)"):  # the empty token, never
        c.advance(14)
    with pytest.raises(TokenError, match="token 2 "):  # "t" cannot start a word
        c.advance(2)
    with pytest.raises(TokenError, match="outside the vocabulary"):
        c.advance(15)
    assert (c.state, c.done) == (0, False)
    c.advance(9)  # "cat"
    assert (c.state, c.done, c.is_complete()) == (5, False, True)
    assert c.mask().nonzero()[0].tolist() == [7, 13]
    c.advance(7)  # "s"
    assert (c.state, c.is_complete()) == (6, True)
    with pytest.raises(TokenError, match=r"token 7 \(b's'\).*state 6"):
        c.advance(7)
    c.advance(EOS)
    assert (c.state, c.done, c.is_complete()) == (6, True, True)
    # nothing after EOS: neither a mask nor another token (not even EOS)
    for token in (7, EOS, 0):
        with pytest.raises(TokenError, match="EOS was already accepted"):
            c.advance(token)
    with pytest.raises(TokenError, match="EOS was already accepted"):
        c.mask()
    with pytest.raises(TokenError, match="EOS was already accepted"):
        c.bitmask()
    assert (c.state, c.done) == (6, True)


def test_constraints_share_an_index_independently():
    index = hand_index()
    a, b = Constraint(index), Constraint(index)
    a.advance(8)  # "ca"
    b.advance(10)  # "dog"
    assert (a.state, b.state) == (3, 5)
    a.advance(11)  # "ts"
    assert a.state == 6 and a.is_complete() and not a.done
    assert np.array_equal(b.bitmask(), index.bitmask(5))


def test_constraint_needs_an_index():
    with pytest.raises(TypeError, match="TokenIndex"):
        Constraint(regex_to_dfa(HAND))


# -- apply_mask ---------------------------------------------------------------------------------


def test_apply_mask():
    logits = np.array([0.5, -1.0, 2.0, 3.0], dtype=np.float32)
    mask = np.array([True, False, True, False])
    out = apply_mask(logits, mask)
    assert out.dtype == np.float64
    assert out.tolist() == [0.5, -math.inf, 2.0, -math.inf]
    assert logits.tolist() == [0.5, -1.0, 2.0, 3.0]  # a copy: the input is untouched
    everything = np.ones(4, dtype=bool)
    same = apply_mask(logits, everything)
    assert same.tolist() == [0.5, -1.0, 2.0, 3.0] and same is not logits
    assert apply_mask([1, 2, 3], [False, True, False]).tolist() == [-math.inf, 2.0, -math.inf]
    with pytest.raises(MaskError, match="allows no token"):
        apply_mask(logits, np.zeros(4, dtype=bool))
    with pytest.raises(MaskError, match=r"\(3,\).*\(4,\)"):
        apply_mask(logits, np.ones(3, dtype=bool))
    with pytest.raises(MaskError, match=r"1-D.*\(2, 2\)"):
        apply_mask(logits.reshape(2, 2), np.ones((2, 2), dtype=bool))
    with pytest.raises(MaskError, match=r"\(1, 4\).*\(4,\)"):
        apply_mask(logits, np.ones((1, 4), dtype=bool))
    with pytest.raises(MaskError, match="bool array.*int"):
        apply_mask(logits, np.array([1, 0, 1, 0]))
    with pytest.raises(MaskError, match="real numbers"):
        apply_mask(np.array(["a", "b"]), np.ones(2, dtype=bool))


# -- sampling under a mask ----------------------------------------------------------------------


def test_greedy_takes_the_best_allowed_token():
    index = hand_index()
    greedy = SamplingParams(temperature=0)
    # State 0 allows 0 "c", 4 "d", 8 "ca", 9 "cat", 10 "dog". "x" (12) has the largest logit of all.
    logits = np.array([1.0, 9.0, 0.0, 0.0, 2.5, 0.0, 0.0, 0.0, 2.0, 2.5, 1.5, 0.0, 10.0, 0.0, 0.0])
    c = Constraint(index)
    allowed = index.mask(0).copy()
    token, logprob = constrained_sample(logits, c, greedy, [], None)
    assert token == 4  # "d" and "cat" tie at 2.5: the lowest id wins; "x" and "a" are not allowed
    assert logprob == pytest.approx(log_softmax_at(logits, allowed, 4))  # renormalized over allowed
    assert logprob > math.log(math.exp(2.5) / np.exp(logits).sum())  # not over the whole vocabulary
    assert c.state == 2  # advanced past "d"
    # In state 5 only "s" and EOS remain; make EOS the best.
    c = Constraint(index)
    c.advance(10)  # "dog"
    logits = np.zeros(15)
    logits[EOS], logits[7] = 1.0, 0.0
    token, logprob = constrained_sample(logits, c, greedy, [], None)
    assert token == EOS and c.done
    assert logprob == pytest.approx(1.0 - math.log(math.e + 1.0))


def test_sampling_only_draws_allowed_tokens_and_is_seeded():
    index = hand_index()
    rng_logits = np.random.default_rng(7)
    params = SamplingParams(temperature=1.0)
    for seed in range(20):
        logits = rng_logits.normal(size=15)
        runs = []
        for _ in range(2):
            c = Constraint(index)
            rng = np.random.default_rng(seed)
            steps = []
            while not c.done and len(steps) < 20:  # every word is done within 5 tokens
                allowed = c.mask().copy()
                token, logprob = constrained_sample(logits, c, params, [t for t, _ in steps], rng)
                assert allowed[token]
                assert logprob == pytest.approx(log_softmax_at(logits, allowed, token))
                steps.append((token, logprob))
            assert c.done
            runs.append(steps)
        assert runs[0] == runs[1]  # same seed, same tokens
        text = b"".join(HAND_VOCAB[t] for t, _ in runs[0] if t != EOS)
        assert re.fullmatch(HAND.encode(), text)


def test_a_disallowed_sample_surfaces():
    """If the sampler ever returned a token outside the mask, advance would refuse it."""
    c = Constraint(hand_index())
    with pytest.raises(TokenError, match="not allowed"):
        c.advance(int(np.argmax(np.where(c.mask(), -np.inf, 1.0))))


@pytest.mark.parametrize(
    "pattern",
    [HAND, r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])", r'\{"a":(0|[1-9][0-9]{0,3})(,"b":(true|false))?\}'],
)
def test_generated_texts_are_in_the_language(pattern):
    vocab = [bytes([b]) for b in range(256)] + [b"20", b"-0", b'{"a', b'":', b",", b"true", b"}", None]
    eos = len(vocab) - 1
    index = TokenIndex(LazyDFA(pattern), vocab, eos_id=eos)
    rng = np.random.default_rng(0)
    params = SamplingParams(temperature=1.0)
    for request in range(10):
        c = Constraint(index)
        history: list[int] = []
        while not c.done and len(history) < 200:
            logits = rng.normal(size=len(vocab))
            logits[eos] += 3.0  # encourage stopping once allowed
            token, _ = constrained_sample(logits, c, params, history, rng)
            history.append(token)
        assert c.done, (pattern, request)
        text = b"".join(vocab[t] for t in history[:-1])
        assert re.fullmatch(pattern.encode(), text), text
        assert history[-1] == eos and eos not in history[:-1]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=14), max_size=8))
def test_any_token_sequence_is_accepted_iff_the_masks_allow_it(tokens):
    """advance accepts exactly the sequences whose every token is in the mask of its state."""
    index = hand_index()
    c = Constraint(index)
    dfa = index.automaton
    state, done = 0, False
    for t in tokens:
        ok = not done and (
            (t == EOS and dfa.is_accepting(state))
            or (t != EOS and HAND_VOCAB[t] and dfa.step(state, HAND_VOCAB[t]) != DEAD)
        )
        if ok:
            c.advance(t)
            if t == EOS:
                done = True
            else:
                state = dfa.step(state, HAND_VOCAB[t])
        else:
            with pytest.raises(TokenError):
                c.advance(t)
        assert (c.state, c.done) == (state, done)
