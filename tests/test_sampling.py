"""Tests for brzozowski.runtime.sampling (its module docstring states the rules): SamplingParams and sample.

The oracle is `reference`, a deliberately naive pure-Python sampler distribution written from the
definitions in the module docstring (sorting, dicts, no numpy): the vectorized one must keep the
same tokens with the same log-probabilities. Draws are checked against that distribution by a
chi-square statistic with fixed seeds (deterministic, so never flaky, but a wrong temperature, a
wrong filter or a biased draw moves the statistic far past the bound).
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

import numpy as np
import pytest

from brzozowski.errors import BrzozowskiError, MaskError, TokenError
from brzozowski.errors import SamplingParamsError
from brzozowski.runtime.sampling import SamplingParams, distribution, sample

NEG = -math.inf


def reference(logits, p: SamplingParams, history=(), prompt=()):
    """{token: logprob} of the tokens sample may return, from the definitions, naively."""
    x = [float(v) for v in logits]
    if p.repetition_penalty != 1.0:
        for t in set(prompt) | set(history):
            x[t] = x[t] / p.repetition_penalty if x[t] > 0 else x[t] * p.repetition_penalty
    for t, c in Counter(history).items():
        x[t] -= p.frequency_penalty * c + p.presence_penalty
    finite = [i for i, v in enumerate(x) if v != NEG]
    if p.temperature == 0:
        best = min(finite, key=lambda i: (-x[i], i))
        return {best: -math.log(sum(math.exp(x[i] - x[best]) for i in finite))}
    y = {i: x[i] / p.temperature for i in finite}
    kept = list(finite)
    if 0 < p.top_k < len(kept):
        kth = sorted((y[i] for i in kept), reverse=True)[p.top_k - 1]
        kept = [i for i in kept if y[i] >= kth]
    if p.top_p < 1.0:
        m = max(y[i] for i in kept)
        z = sum(math.exp(y[i] - m) for i in kept)
        prob = {i: math.exp(y[i] - m) / z for i in kept}
        cum, threshold = 0.0, None
        for i in sorted(kept, key=lambda i: -prob[i]):
            cum += prob[i]
            if cum >= p.top_p:
                threshold = prob[i]
                break
        if threshold is None:  # rounding left the total a hair under top_p: keep everything
            threshold = min(prob.values())
        kept = [i for i in kept if prob[i] >= threshold]
    if p.min_p > 0.0:
        m = max(y[i] for i in kept)
        kept = [i for i in kept if math.exp(y[i] - m) >= p.min_p]
    m = max(y[i] for i in kept)
    lse = m + math.log(sum(math.exp(y[i] - m) for i in kept))
    return {i: y[i] - lse for i in kept}


def as_dict(ids, logprobs):
    return dict(zip(ids.tolist(), logprobs.tolist()))


def chi_square(counts: Counter, probs: dict[int, float], n: int) -> tuple[float, int]:
    assert set(counts) <= set(probs), f"drew {set(counts) - set(probs)}, outside {set(probs)}"
    stat = sum((counts.get(t, 0) - n * q) ** 2 / (n * q) for t, q in probs.items())
    return stat, len(probs) - 1


def chi_square_bound(df: int) -> float:
    """Far in the right tail (about 6 standard deviations of a chi-square with df degrees)."""
    return df + 6 * math.sqrt(2 * df)


# --- SamplingParams ---------------------------------------------------------------------------


def test_params_defaults_are_plain_sampling():
    p = SamplingParams()
    assert (p.temperature, p.top_k, p.top_p, p.min_p) == (1.0, 0, 1.0, 0.0)
    assert (p.repetition_penalty, p.frequency_penalty, p.presence_penalty) == (1.0, 0.0, 0.0)
    assert not p.greedy and SamplingParams(temperature=0).greedy
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.temperature = 0.5
    # numpy scalars are accepted and stored as Python numbers
    q = SamplingParams(temperature=np.float32(0.5), top_k=np.int64(3))
    assert type(q.temperature) is float and type(q.top_k) is int and q.top_k == 3


@pytest.mark.parametrize(
    "field, value",
    [
        ("temperature", -0.1),
        ("temperature", math.nan),
        ("temperature", math.inf),
        ("temperature", "1"),
        ("temperature", True),
        ("top_k", -1),
        ("top_k", 2.5),
        ("top_k", True),
        ("top_p", 0.0),
        ("top_p", 1.5),
        ("top_p", math.nan),
        ("min_p", -0.1),
        ("min_p", 1.01),
        ("repetition_penalty", 0.0),
        ("repetition_penalty", -1.0),
        ("repetition_penalty", math.inf),
        ("frequency_penalty", math.nan),
        ("presence_penalty", -math.inf),
        ("presence_penalty", None),
    ],
)
def test_params_validated_at_construction(field, value):
    with pytest.raises(SamplingParamsError, match=field) as e:
        SamplingParams(**{field: value})
    assert e.value.field == field
    assert isinstance(e.value, BrzozowskiError) and isinstance(e.value, ValueError)


# --- greedy -----------------------------------------------------------------------------------


def test_greedy_ties_to_the_lowest_id():
    g = SamplingParams(temperature=0)
    assert sample([1.0, 3.0, 3.0, NEG, 3.0], g, [], None)[0] == 1
    assert sample([NEG, NEG, 2.0, 2.0], g, [], None)[0] == 2
    assert sample(np.zeros(1000), g, [], None)[0] == 0
    # a tie made by a penalty also goes to the lowest id
    assert sample([2.0, 1.0], SamplingParams(temperature=0, repetition_penalty=2.0), [0], None)[0] == 0
    # greedy ignores the filters (none of them can remove the largest logit) and needs no rng
    assert sample([0.0, 5.0, 1.0], SamplingParams(temperature=0, top_k=1, top_p=0.1, min_p=0.9), [], None) == (
        1,
        pytest.approx(5.0 - math.log(math.exp(0) + math.exp(5) + math.exp(1))),
    )


def test_greedy_logprob_is_over_finite_logits_after_penalties():
    logits = [1.0, 3.0, NEG, 2.5, NEG]
    g = SamplingParams(temperature=0, frequency_penalty=1.0)
    tok, lp = sample(logits, g, [1], None)  # token 1 penalized to 2.0: token 3 (2.5) wins
    assert tok == 3
    assert lp == pytest.approx(2.5 - math.log(math.exp(1.0) + math.exp(2.0) + math.exp(2.5)))
    assert as_dict(*distribution(logits, g, [1])) == pytest.approx(reference(logits, g, [1]))


# --- the distribution against the naive reference ---------------------------------------------


def _random_case(rng: np.random.Generator):
    v = int(rng.integers(1, 40))
    if rng.random() < 0.5:
        logits = rng.normal(0, 3, v)
    else:  # integer logits: lots of ties
        logits = rng.integers(-3, 4, v).astype(float)
    logits[rng.random(v) < rng.random() * 0.8] = NEG
    if np.all(logits == NEG):
        logits[int(rng.integers(v))] = float(rng.normal())
    params = SamplingParams(
        temperature=float(rng.choice([0.0, 0.3, 1.0, 2.0])),
        top_k=int(rng.choice([0, 0, 1, 2, 5])),
        top_p=float(rng.choice([1.0, 1.0, 0.3, 0.75, 0.95])),
        min_p=float(rng.choice([0.0, 0.0, 0.05, 0.3])),
        repetition_penalty=float(rng.choice([1.0, 1.0, 1.3, 0.8])),
        frequency_penalty=float(rng.choice([0.0, 0.0, 0.5, -0.2])),
        presence_penalty=float(rng.choice([0.0, 0.0, 0.4])),
    )
    history = rng.integers(0, v, int(rng.integers(0, 6))).tolist()
    prompt = rng.integers(0, v, int(rng.integers(0, 4))).tolist()
    return logits, params, history, prompt


def test_distribution_matches_the_naive_reference():
    rng = np.random.default_rng(2026)
    for case in range(600):
        logits, params, history, prompt = _random_case(rng)
        got = as_dict(*distribution(logits, params, history, prompt))
        want = reference(logits, params, history, prompt)
        assert set(got) == set(want), (case, params)
        assert got == pytest.approx(want, abs=1e-9), (case, params)
        if not params.greedy:  # greedy reports the model's logprob of its one token
            assert math.fsum(math.exp(v) for v in got.values()) == pytest.approx(1.0)
        # and sample returns one of those tokens with exactly that logprob
        tok, lp = sample(logits, params, history, np.random.default_rng(case), prompt)
        assert tok in want and lp == pytest.approx(want[tok], abs=1e-9)


# --- filters by hand --------------------------------------------------------------------------


def _kept(logits, **kw):
    return distribution(logits, SamplingParams(**kw))[0].tolist()


def test_top_k_keeps_the_k_largest_and_their_ties():
    logits = [0.0, 4.0, 1.0, 3.0, 2.0, NEG]
    assert _kept(logits, top_k=1) == [1]
    assert _kept(logits, top_k=3) == [1, 3, 4]
    assert _kept(logits, top_k=5) == [0, 1, 2, 3, 4]
    assert _kept(logits, top_k=50) == [0, 1, 2, 3, 4]  # never a -inf token
    assert _kept([5.0, 5.0, 5.0, 1.0], top_k=2) == [0, 1, 2]  # ties with the k-th are kept


def test_top_p_keeps_the_nucleus():
    logits = np.log([0.5, 0.1, 0.3, 0.1])
    assert _kept(logits, top_p=0.4) == [0]
    assert _kept(logits, top_p=0.79) == [0, 2]
    assert _kept(logits, top_p=0.85) == [0, 1, 2, 3]  # 0.1 and 0.1 tie: both kept
    assert _kept(logits, top_p=0.01) == [0]  # at least one token
    ids, lp = distribution(logits, SamplingParams(top_p=0.79))
    assert np.exp(lp) == pytest.approx([0.5 / 0.8, 0.3 / 0.8])  # renormalized over the nucleus
    # the nucleus is taken after top-k, over renormalized probabilities
    assert _kept(logits, top_k=2, top_p=0.6) == [0]
    assert _kept(logits, top_k=2, top_p=0.7) == [0, 2]
    # and at a temperature: T = 0.5 squares and renormalizes the probabilities
    # (0.25, 0.01, 0.09, 0.01) / 0.36: token 0 has 0.694
    assert _kept(logits, temperature=0.5, top_p=0.69) == [0]
    assert _kept(logits, temperature=0.5, top_p=0.7) == [0, 2]


def test_top_p_over_a_large_flat_vocabulary():
    """The nucleus does not fit the first window: it must widen, not truncate."""
    rng = np.random.default_rng(3)
    logits = rng.normal(0, 0.1, 50_000)
    ids, lp = distribution(logits, SamplingParams(top_p=0.9))
    p = np.exp(logits - logits.max())
    p /= p.sum()
    order = np.sort(p)[::-1]
    n_nucleus = int(np.searchsorted(np.cumsum(order), 0.9)) + 1
    assert len(ids) == n_nucleus > 40_000
    assert set(ids.tolist()) == set(np.flatnonzero(p >= order[n_nucleus - 1]).tolist())


def test_min_p_keeps_tokens_near_the_best():
    logits = np.log([0.5, 0.3, 0.1, 0.1])
    assert _kept(logits, min_p=0.25) == [0, 1]  # p >= 0.125
    assert _kept(logits, min_p=0.19) == [0, 1, 2, 3]  # p >= 0.095
    assert _kept(logits, min_p=1.0) == [0]
    assert _kept([2.0, 2.0, 1.0], min_p=1.0) == [0, 1]
    # the ratio is taken after the temperature: at T = 2, p_2 / p_0 = sqrt(0.2) ~ 0.447
    assert _kept(logits, temperature=2.0, min_p=0.4) == [0, 1, 2, 3]
    assert _kept(logits, temperature=2.0, min_p=0.5) == [0, 1]


# --- penalties --------------------------------------------------------------------------------


def test_repetition_penalty_over_prompt_and_history():
    logits = [2.0, -2.0, 1.0, 0.5]
    p = SamplingParams(temperature=0, repetition_penalty=2.0)
    # token 0 (history) 2 -> 1; token 1 (prompt) -2 -> -4; token 2 untouched (1.0): tie 0/2 -> 0
    _, lp = sample(logits, p, [0, 0, 0], None, prompt=[1])
    want = [1.0, -4.0, 1.0, 0.5]
    assert lp == pytest.approx(1.0 - math.log(sum(math.exp(v) for v in want)))
    assert sample(logits, p, [0], None, prompt=[2])[0] == 0  # 2 -> 1.0 vs 0.5 for token 2
    assert sample(logits, p, [0], None, prompt=[])[0] == 0  # 1.0 vs 1.0: tie to the lowest
    assert sample(logits, p, [0, 2], None)[0] == 0  # 1.0 vs 0.5
    assert sample(logits, p, [0, 3], None)[0] == 0
    # counted once per distinct token, not per occurrence
    one = distribution(logits, SamplingParams(repetition_penalty=1.5), [0])
    many = distribution(logits, SamplingParams(repetition_penalty=1.5), [0] * 7)
    assert np.allclose(one[1], many[1])


def test_frequency_and_presence_penalties_over_history_only():
    logits = [3.0, 3.0, 3.0, 0.0]
    p = SamplingParams(frequency_penalty=0.5, presence_penalty=0.25)
    got = as_dict(*distribution(logits, p, history=[0, 0, 1], prompt=[2, 2, 2]))
    # token 0: 3 - 2*0.5 - 0.25 = 1.75; token 1: 3 - 0.5 - 0.25 = 2.25; token 2 (prompt): 3
    x = np.array([1.75, 2.25, 3.0, 0.0])
    want = x - (x.max() + math.log(np.exp(x - x.max()).sum()))
    assert got == pytest.approx(dict(enumerate(want.tolist())))
    # negative penalties encourage repetition
    assert sample(logits, SamplingParams(temperature=0, presence_penalty=-1.0), [2], None)[0] == 2


def test_penalties_never_revive_a_forbidden_token():
    logits = [NEG, 0.0, NEG]
    p = SamplingParams(repetition_penalty=0.5, frequency_penalty=-5.0, presence_penalty=-5.0)
    assert distribution(logits, p, history=[0, 0, 2], prompt=[0])[0].tolist() == [1]


# --- draws ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        SamplingParams(),
        SamplingParams(temperature=0.5),
        SamplingParams(temperature=2.0, top_k=5),
        SamplingParams(top_p=0.8),
        SamplingParams(min_p=0.1, repetition_penalty=1.5, presence_penalty=0.5),
    ],
)
def test_draws_follow_the_softmax(params):
    rng = np.random.default_rng(11)
    logits = np.array([0.0, 1.0, 0.5, NEG, -0.5, 1.5, 0.2, NEG, 1.2, -1.0])
    history = [5, 5, 1]
    want = reference(logits, params, history)
    n = 6_000
    counts = Counter(sample(logits, params, history, rng)[0] for _ in range(n))
    stat, df = chi_square(counts, {t: math.exp(v) for t, v in want.items()}, n)
    assert stat < chi_square_bound(df), (stat, df, counts)


def test_minus_inf_is_never_drawn():
    rng = np.random.default_rng(5)
    v = 64
    allowed = rng.random(v) < 0.2
    allowed[[3, 40]] = True
    logits = np.where(allowed, rng.normal(0, 1, v), NEG)
    logits[40] = -1e300  # finite but with a weight that underflows to 0: never drawn either
    for params in (SamplingParams(), SamplingParams(temperature=50.0), SamplingParams(top_p=0.999)):
        drawn = {sample(logits, params, [], rng)[0] for _ in range(3000)}
        assert drawn <= set(np.flatnonzero(allowed).tolist()) - {40}
    # one allowed token among many forbidden ones
    only = np.full(200_000, NEG)
    only[123_456] = -7.0
    assert sample(only, SamplingParams(temperature=3.0), [], rng) == (123_456, 0.0)


def test_extreme_draws_stay_in_range():
    """rng.random() close to 1 must still pick a token with weight, never one past the end."""

    class AlmostOne(np.random.Generator):
        def random(self, *a, **k):
            return np.nextafter(1.0, 0.0)

    rng = AlmostOne(np.random.PCG64(0))
    logits = np.array([0.0, 0.0, -1e300, NEG])
    assert sample(logits, SamplingParams(), [], rng)[0] == 1

    class Zero(np.random.Generator):
        def random(self, *a, **k):
            return 0.0

    # u = 0 must not land on a leading token whose weight underflowed to 0
    assert sample(np.array([-1e300, 0.0, 0.0]), SamplingParams(), [], Zero(np.random.PCG64(0)))[0] == 1


def test_seeded_draws_are_deterministic():
    logits = np.random.default_rng(0).normal(0, 2, 1000)
    p = SamplingParams(temperature=0.8, top_p=0.95)

    def run(seed):
        rng = np.random.default_rng(seed)
        return [sample(logits, p, [], rng) for _ in range(100)]

    assert run(1) == run(1)
    assert run(1) != run(2)


def test_sample_logprob_is_renormalized_over_the_allowed_tokens():
    logits = np.array([2.0, NEG, 1.0, 0.0, NEG, -1.0])
    rng = np.random.default_rng(9)
    allowed = [0, 2, 3, 5]
    for params in (SamplingParams(), SamplingParams(temperature=0.7)):
        y = logits[allowed] / params.temperature
        lse = y.max() + math.log(np.exp(y - y.max()).sum())
        for _ in range(50):
            tok, lp = sample(logits, params, [], rng)
            assert tok in allowed
            assert lp == pytest.approx(logits[tok] / params.temperature - lse)
    # after top-k, over the two left
    tok, lp = sample(logits, SamplingParams(top_k=2), [], rng)
    assert lp == pytest.approx(logits[tok] - math.log(math.exp(2.0) + math.exp(1.0)))


def test_caller_logits_are_not_modified():
    logits = np.array([1.0, 2.0, NEG, 0.5], dtype=np.float32)
    before = logits.copy()
    sample(logits, SamplingParams(temperature=0.5, repetition_penalty=2.0, frequency_penalty=1.0), [1], np.random.default_rng(0), [0])
    sample(logits, SamplingParams(temperature=0), [1], None)
    assert np.array_equal(logits, before)


def test_large_vocabulary():
    rng = np.random.default_rng(1)
    logits = rng.normal(0, 3, 200_019)
    logits[rng.random(200_019) < 0.5] = NEG
    for params in (SamplingParams(), SamplingParams(top_p=0.9, top_k=1000), SamplingParams(min_p=0.01)):
        tok, lp = sample(logits, params, rng.integers(0, 200_019, 1000), rng)
        assert logits[tok] > NEG and lp <= 0.0


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "logits, message",
    [
        ([NEG, NEG, NEG], "every one of the 3 logits is -inf"),
        ([], r"1-D and non-empty, got shape \(0,\)"),
        ([[0.0, 1.0]], r"1-D and non-empty, got shape \(1, 2\)"),
        (np.float64(1.0), r"got shape \(\)"),
        ([0.0, math.nan, 1.0], "NaN, first at index 1"),
        ([0.0, math.inf], r"\+inf, first at index 1"),
        (["a", "b"], "real numbers"),
        ([True, False], "real numbers"),
    ],
)
def test_bad_logits_raise(logits, message):
    with pytest.raises(MaskError, match=message):
        sample(logits, SamplingParams(), [], np.random.default_rng(0))


def test_bad_history_prompt_params_rng_raise():
    rng = np.random.default_rng(0)
    with pytest.raises(TokenError, match=r"history\[1\] = 3 is not a token id in 0..2"):
        sample([0.0, 1.0, 2.0], SamplingParams(), [0, 3], rng)
    with pytest.raises(TokenError, match=r"prompt\[0\] = -1"):
        sample([0.0, 1.0, 2.0], SamplingParams(), [], rng, prompt=[-1])
    with pytest.raises(TokenError, match="history must be a 1-D sequence of token ids"):
        sample([0.0, 1.0, 2.0], SamplingParams(), [0.5], rng)
    with pytest.raises(SamplingParamsError, match="params must be a SamplingParams"):
        sample([0.0, 1.0], {"temperature": 0}, [], rng)
    with pytest.raises(SamplingParamsError, match="rng must be a numpy.random.Generator"):
        sample([0.0, 1.0], SamplingParams(), [], None)
    with pytest.raises(SamplingParamsError, match="rng must be"):
        sample([0.0, 1.0], SamplingParams(), [], np.random.RandomState(0))
