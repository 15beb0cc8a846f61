"""Tests written to kill mutants that the rest of the suite let through (issue 15).

Each test names the planted bug it catches. They go through public APIs only (`TokenIndex`,
`distribution`, `sample`), so they keep holding when the modules behind them are rewritten.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from brzozowski import DEAD, SamplingParams, TokenIndex, distribution, regex_to_dfa, sample

from .corpus import TWO_LETTER_PATTERNS

# Over {a, b}, DFAs such as a*b* give different next states to (s, last token) and (s + 1, first
# token): a memo keyed by anything but the exact (state, token) pair returns a wrong state for one.


@pytest.mark.parametrize("pattern", TWO_LETTER_PATTERNS)
@pytest.mark.parametrize("vocab, eos_id", [([b"a", b"b"], None), ([b"a", b"b", None], 2)])
def test_next_state_agrees_with_the_dfa_for_every_state_and_token_in_order(pattern, vocab, eos_id):
    """Survivor 1: a memo key ``s * (V - 1) + t`` makes (s, V-1) and (s+1, 0) share an entry.

    Asked in row-major order, the second pair of each collision would get the first one's answer.
    """
    dfa = regex_to_dfa(pattern)
    index = TokenIndex(dfa, vocab, eos_id=eos_id)
    for state in range(dfa.n_states):
        mask = index.mask(state)
        for token_id, data in enumerate(vocab):
            got = index.next_state(state, token_id)
            if token_id == eos_id:
                want = state if dfa.is_accepting(state) else DEAD
            else:
                want = int(dfa.step(state, data))
            assert got == want, (pattern, state, token_id)
            assert bool(mask[token_id]) == (got != DEAD), (pattern, state, token_id)
    # asked again in reverse order (every answer now comes from the memo), nothing changes
    for state in reversed(range(dfa.n_states)):
        for token_id in reversed(range(len(vocab))):
            again = index.next_state(state, token_id)
            fresh = TokenIndex(dfa, vocab, eos_id=eos_id).next_state(state, token_id)
            assert again == fresh, (pattern, state, token_id)


def test_the_memo_separates_pairs_whose_products_collide():
    """The collision of survivor 1, spelled out on ``a*b*`` (state 0 loops on a, b leads to 1)."""
    dfa = regex_to_dfa("a*b*")
    index = TokenIndex(dfa, [b"a", b"b"])
    after_b = index.next_state(dfa.start, 1)
    assert after_b != DEAD
    assert index.next_state(after_b, 0) == DEAD  # "a" after "b" leaves a*b*
    assert index.next_state(after_b, 1) == after_b


HALF_QUARTER_QUARTER = np.log(np.array([0.5, 0.25, 0.25]))


def test_top_p_stops_at_a_prefix_whose_mass_equals_top_p_exactly():
    """Survivor 2: with probabilities 1/2, 1/4, 1/4 and top_p = 0.5 the first token alone is the
    nucleus (its mass already reaches 0.5); a ``side="right"`` search kept the next one too."""
    ids, logprobs = distribution(HALF_QUARTER_QUARTER, SamplingParams(top_p=0.5))
    assert ids.tolist() == [0]
    assert logprobs.tolist() == [0.0]
    rng = np.random.default_rng(0)
    for _ in range(20):
        assert sample(HALF_QUARTER_QUARTER, SamplingParams(top_p=0.5), [], rng) == (0, 0.0)


def test_top_p_just_above_an_exact_prefix_takes_the_tied_tail():
    """Past the exact boundary the nucleus needs the second token, and the third is tied with it."""
    ids, logprobs = distribution(HALF_QUARTER_QUARTER, SamplingParams(top_p=0.5000001))
    assert ids.tolist() == [0, 1, 2]
    assert np.allclose(logprobs, np.log([0.5, 0.25, 0.25]))


@pytest.mark.parametrize(
    "probs, top_p, kept",
    [
        ([0.25, 0.25, 0.5], 0.5, [2]),  # the largest first, wherever it stands
        ([0.5, 0.375, 0.125], 0.875, [0, 1]),  # 1/2 + 3/8 = 7/8 exactly
        ([0.125, 0.5, 0.375], 0.875, [1, 2]),
        ([0.75, 0.125, 0.125], 0.75, [0]),
    ],
)
def test_top_p_exact_prefix_sums_in_any_order(probs, top_p, kept):
    """Dyadic probabilities make every prefix sum exact in binary floating point."""
    ids, logprobs = distribution(np.log(np.array(probs)), SamplingParams(top_p=top_p))
    assert ids.tolist() == kept
    mass = sum(probs[i] for i in kept)
    assert np.allclose(logprobs, [math.log(probs[i] / mass) for i in kept])
