"""Constraint, apply_mask and constrained_sample (docs/semantics.md, "The mask rule"): the lifecycle
of one generation, masked logits, greedy and seeded sampling under a mask, and generated texts
checked with Python's re."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brzozowski import DEAD, LazyDFA, regex_to_dfa
from brzozowski.runtime.constraint import Constraint, apply_mask, constrained_sample
from brzozowski.errors import MaskError, TokenError
from brzozowski.masks.index import TokenIndex
from brzozowski.runtime.sampling import SamplingParams

from .corpus import HAND, HAND_EOS, HAND_MASKS, HAND_VOCAB


def hand_index() -> TokenIndex:
    return TokenIndex(regex_to_dfa(HAND), HAND_VOCAB, eos_id=HAND_EOS)


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
        c.advance(HAND_EOS)
    with pytest.raises(TokenError, match=r"token 14 \(b''\)"):  # the empty token, never
        c.advance(14)
    with pytest.raises(TokenError, match="token 2 "):  # "t" cannot start a word
        c.advance(2)
    with pytest.raises(TokenError, match="outside the vocabulary"):
        c.advance(15)
    assert (c.state, c.done) == (0, False)
    c.advance(9)  # "cat"
    assert (c.state, c.done, c.is_complete()) == (5, False, True)
    assert c.mask().nonzero()[0].tolist() == HAND_MASKS[5] == [7, 13]
    c.advance(7)  # "s"
    assert (c.state, c.is_complete()) == (6, True)
    with pytest.raises(TokenError, match=r"token 7 \(b's'\).*state 6"):
        c.advance(7)
    c.advance(HAND_EOS)
    assert (c.state, c.done, c.is_complete()) == (6, True, True)
    # nothing after EOS: neither a mask nor another token (not even EOS)
    for token in (7, HAND_EOS, 0):
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
    logits[HAND_EOS], logits[7] = 1.0, 0.0
    token, logprob = constrained_sample(logits, c, greedy, [], None)
    assert token == HAND_EOS and c.done
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
        text = b"".join(HAND_VOCAB[t] for t, _ in runs[0] if t != HAND_EOS)
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
            (t == HAND_EOS and dfa.is_accepting(state))
            or (t != HAND_EOS and HAND_VOCAB[t] and dfa.step(state, HAND_VOCAB[t]) != DEAD)
        )
        if ok:
            c.advance(t)
            if t == HAND_EOS:
                done = True
            else:
                state = dfa.step(state, HAND_VOCAB[t])
        else:
            with pytest.raises(TokenError):
                c.advance(t)
        assert (c.state, c.done) == (state, done)


# -- the engine API: rollback, validate_tokens, forced_bytes, fill_bitmask, copy --------------------

from brzozowski.runtime.constraint import (  # noqa: E402  (grouped with the tests that use them)
    allocate_bitmask, fill_bitmasks, forced_tokens, greedy_tokenizer,
)

from .strategies import ALPHABET, patterns  # noqa: E402

#: Every byte as a token, a few multi-byte tokens over the patterns' alphabet, a special token, EOS.
ENGINE_VOCAB = [bytes([b]) for b in range(256)] + [b"ab", b"abc", b"00", b"a\n", b" _.", b"cab", None, b"<eos>"]
ENGINE_EOS = len(ENGINE_VOCAB) - 1


def engine_index(pattern: str, lazy: bool) -> TokenIndex:
    automaton = LazyDFA(pattern) if lazy else regex_to_dfa(pattern)
    return TokenIndex(automaton, ENGINE_VOCAB, eos_id=ENGINE_EOS)


def walk(index: TokenIndex, choices: list[int]) -> tuple[Constraint, list[int]]:
    """Advance a fresh constraint by picking, at each step, allowed token number `choice` (mod count)."""
    c = Constraint(index)
    taken = []
    for choice in choices:
        if c.done:
            break
        allowed = c.mask().nonzero()[0]
        token = int(allowed[choice % len(allowed)])
        c.advance(token)
        taken.append(token)
    return c, taken


def same_position(a: Constraint, b: Constraint) -> bool:
    if (a.state, a.done, a.n_accepted) != (b.state, b.done, b.n_accepted):
        return False
    return a.done or np.array_equal(a.mask(), b.mask())


choices = st.lists(st.integers(min_value=0, max_value=10_000), max_size=12)


@settings(max_examples=60, deadline=None)
@given(patterns, choices, st.integers(min_value=0, max_value=12), st.booleans())
def test_rollback_equals_a_fresh_replay(pattern, picks, j, lazy):
    index = engine_index(pattern, lazy)
    c, taken = walk(index, picks)
    j = min(j, len(taken))
    c.rollback(j)
    replay = Constraint(index)
    for token in taken[: len(taken) - j]:
        replay.advance(token)
    assert same_position(c, replay)
    for token in taken[len(taken) - j:]:  # and the undone tokens are accepted again
        c.advance(token)
    assert c.n_accepted == len(taken)


#: Candidate tokens: mostly the patterns' own bytes (so that long prefixes are accepted), EOS, anything.
candidate_tokens = st.one_of(
    st.sampled_from(list(ALPHABET)), st.just(ENGINE_EOS), st.integers(min_value=0, max_value=len(ENGINE_VOCAB) - 1)
)


@settings(max_examples=60, deadline=None)
@given(patterns, choices, st.lists(candidate_tokens, max_size=8))
def test_validate_tokens_equals_stepping_one_by_one(pattern, picks, candidates):
    index = engine_index(pattern, lazy=False)
    c, _ = walk(index, picks)
    before = (c.state, c.done, c.n_accepted)
    count = c.validate_tokens(candidates)
    assert (c.state, c.done, c.n_accepted) == before  # nothing moved
    stepper, expected = c.copy(), 0
    for token in candidates:
        try:
            stepper.advance(token)
        except TokenError:
            break
        expected += 1
    assert count == expected
    allowed_prefix = candidates[:count]
    assert c.validate_tokens(allowed_prefix) == count


def brute_force_forced(pattern: str, dfa, prefix: bytes) -> bytes:
    """Grow the set of live continuations of `prefix` one byte at a time over all 256 bytes (the DFA
    says what is live, `re.fullmatch` what is complete) until it is not a single string or the single
    string completes a match: that string is what every continuation starts with."""
    state = dfa.step(dfa.start, prefix)
    common = b""
    while not re.fullmatch(pattern.encode(), prefix + common) and len(common) <= dfa.n_states:  # a forced
        # chain longer than the states is a dead cycle (a DFA bug): stop, the comparison will fail
        extensions = [common + bytes([b]) for b in range(256) if dfa.step(state, common + bytes([b])) != DEAD]
        if len(extensions) != 1:
            break
        common = extensions[0]
    return common


@settings(max_examples=80, deadline=None)
@given(patterns, choices, st.booleans())
def test_forced_bytes_equals_the_unique_continuation(pattern, picks, lazy):
    index = engine_index(pattern, lazy)
    c, taken = walk(index, picks)
    if c.done:
        assert c.forced_bytes() == b""
        return
    prefix = b"".join(ENGINE_VOCAB[t] for t in taken)
    forced = c.forced_bytes()
    assert forced == brute_force_forced(pattern, regex_to_dfa(pattern), prefix)
    tokens = forced_tokens(c, greedy_tokenizer(ENGINE_VOCAB))
    assert b"".join(ENGINE_VOCAB[t] for t in tokens) == forced  # every byte alone is a token here
    assert c.validate_tokens(tokens) == len(tokens)


def test_forced_bytes_by_hand():
    index = engine_index(r'\{"name":"(get|put)_[a-z]+"\}', lazy=False)
    c = Constraint(index)
    assert c.forced_bytes() == b'{"name":"'
    tokenize = greedy_tokenizer(ENGINE_VOCAB)
    assert forced_tokens(c, tokenize) == [ord(ch) for ch in '{"name":"']
    for t in forced_tokens(c, tokenize):
        c.advance(t)
    assert c.forced_bytes() == b""  # g or p
    c.advance(ord("g"))
    assert c.forced_bytes() == b"et_"
    for ch in b"et_x":
        c.advance(ch)
    assert c.forced_bytes() == b""  # more letters or the closing quote
    c.advance(ord('"'))
    assert c.forced_bytes() == b"}"
    c.advance(ord("}"))
    assert c.forced_bytes() == b""  # complete: EOS is a choice
    c.advance(ENGINE_EOS)
    assert c.forced_bytes() == b"" and forced_tokens(c, tokenize) == []
    with pytest.raises(TokenError, match="byte 0x78 at offset 1"):
        greedy_tokenizer([b"a", None])(b"ax")


@settings(max_examples=40, deadline=None)
@given(patterns, st.lists(choices, min_size=1, max_size=4))
def test_fill_bitmask_rows_equal_bitmask(pattern, batch_picks):
    index = engine_index(pattern, lazy=True)
    constraints = [c for c, _ in (walk(index, picks) for picks in batch_picks)]
    constraints = [c for c in constraints if not c.done]
    out = allocate_bitmask(len(constraints) + 1, index.vocab_size)
    out[:] = 0x5A5A5A5A
    fill_bitmasks(constraints, out)
    for row, c in enumerate(constraints):
        assert np.array_equal(out[row], c.bitmask())
        bits = np.unpackbits(out[row].view(np.uint8), bitorder="little")[: index.vocab_size]
        assert np.array_equal(bits.astype(bool), c.mask())
        single = np.zeros_like(out)
        c.fill_bitmask(single, row)
        assert np.array_equal(single[row], out[row]) and not single[np.arange(len(out)) != row].any()
    assert (out[len(constraints)] == 0x5A5A5A5A).all()  # rows past the batch are left alone


@settings(max_examples=40, deadline=None)
@given(patterns, choices, choices)
def test_copy_is_independent(pattern, first, second):
    index = engine_index(pattern, lazy=False)
    c, taken = walk(index, first)
    twin = c.copy()
    assert same_position(c, twin) and twin.index is c.index
    before = (c.state, c.done, c.n_accepted)
    for choice in second:  # move the twin on and back: the original never notices
        if twin.done:
            break
        allowed = twin.mask().nonzero()[0]
        twin.advance(int(allowed[choice % len(allowed)]))
    assert (c.state, c.done, c.n_accepted) == before
    twin.rollback(twin.n_accepted)
    assert (c.state, c.done, c.n_accepted) == before
    assert same_position(twin, Constraint(index))
    if taken:
        c.rollback(1)
        assert twin.n_accepted == 0


def test_engine_api_errors_name_the_bad_value():
    index = hand_index()
    c = Constraint(index)
    c.advance(9)  # "cat"
    for bad, message in ((-1, "cannot roll back -1 tokens: 1 were accepted"),
                         (2, "cannot roll back 2 tokens"), ("1", "not '1'"), (True, "not True")):
        with pytest.raises(TokenError, match=message):
            c.rollback(bad)
    assert (c.state, c.n_accepted) == (5, 1)
    with pytest.raises(TokenError, match="token id 99 is outside the vocabulary"):
        c.validate_tokens([7, 99])  # a non-id is an error even behind an accepted token
    with pytest.raises(TokenError, match="not 'x'"):
        c.validate_tokens(["x"])
    assert c.validate_tokens([]) == 0 and c.validate_tokens([7, HAND_EOS, 7]) == 2
    out = allocate_bitmask(2, index.vocab_size)
    with pytest.raises(MaskError, match="int32"):
        c.fill_bitmask(out.astype(np.int64))
    with pytest.raises(MaskError, match="3 words per row, the vocabulary needs 1"):
        c.fill_bitmask(np.zeros((2, 3), dtype=np.int32))
    with pytest.raises(MaskError, match="row 2 is not a row"):
        c.fill_bitmask(out, 2)
    with pytest.raises(MaskError, match="3 constraints do not fit"):
        fill_bitmasks([c, c, c], out)
    with pytest.raises(MaskError, match="batch_size must be a positive int, not 0"):
        allocate_bitmask(0, 10)
    c.advance(HAND_EOS)
    assert c.validate_tokens([HAND_EOS]) == 0
    with pytest.raises(TokenError, match="EOS was already accepted"):
        c.fill_bitmask(out)
    c.rollback(1)  # un-finishing: EOS may be taken back too
    assert (c.done, c.state) == (False, 5)
    c.fill_bitmask(out, 1)
    assert np.array_equal(out[1], index.bitmask(5))
