"""Sampling one token from logits: penalties, temperature, top-k, top-p, min-p.

`sample(logits, params, history, rng, prompt=())` returns ``(token_id, logprob)``. A logit of
``-inf`` is a token that can never be drawn: that is how a mask (`apply_mask`) forbids tokens, so
constrained decoding is just sampling on masked logits.

The steps, in order, on a float64 copy of the logits (the caller's array is never modified):

1. **Repetition penalty** (Keskar et al. 2019, CTRL; as in Hugging Face and vLLM): for every distinct
   token in the *prompt or the history*, a positive logit is divided by ``repetition_penalty``, a
   negative one multiplied by it (so a penalty > 1 always makes the token less likely).
2. **Frequency and presence penalties** (OpenAI's API; as in vLLM): over the *history only* (the
   generated tokens, not the prompt), ``logit -= frequency_penalty * count + presence_penalty *
   (count > 0)``.
3. **Greedy** when ``temperature == 0``: the largest logit, ties to the lowest id. No filter applies
   (none could remove the largest logit).
4. Otherwise divide by the **temperature**, then keep the tokens that survive **top-k** (the ``k``
   largest logits; every token tied with the ``k``-th largest is kept too, so the set does not depend
   on the order of ties), then **top-p** (the nucleus: the fewest most likely tokens whose
   probability, renormalized after top-k, adds up to at least ``top_p``; tokens tied with the last
   one are kept too; at least one token is always kept), then **min-p** (tokens whose probability is
   at least ``min_p`` times the largest probability). Draw from the softmax over what is left.

The returned **logprob** is the log of the probability with which the token was chosen: the
log-softmax of the temperature-scaled logits over the tokens left after the filters (so it is
renormalized over the allowed tokens, and ``0.0`` when only one is left). For greedy, where the
choice is certain, it is instead the log-softmax of the penalized logits (temperature 1) over every
token whose logit is finite: the model's own log-probability of its best allowed token.

Invariants: a token whose logit is ``-inf`` (after penalties) is never returned; the same inputs and
an identically seeded ``numpy.random.Generator`` give the same token; all work is vectorized numpy,
O(V) per call (top-p adds a partial sort of the head of the distribution).

>>> import numpy as np
>>> logits = np.array([1.0, 3.0, 3.0, -np.inf])
>>> sample(logits, SamplingParams(temperature=0), history=[], rng=None)[0]   # ties to the lowest id
1
>>> tok, lp = sample(logits, SamplingParams(top_k=2), [], np.random.default_rng(0))
>>> tok in (1, 2), round(lp, 4)                                              # two tokens left, 1/2 each
(True, -0.6931)

References: Holtzman et al. 2020 (nucleus sampling); Keskar et al. 2019 (CTRL, repetition penalty);
Nguyen et al. 2024 (min-p sampling); vLLM ``SamplingParams`` for where each penalty applies.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np

from ..errors import MaskError, SamplingParamsError, TokenError

__all__ = ["SamplingParams", "distribution", "sample"]


# Top-p first looks at this many of the most likely tokens (an O(V) partition) and sorts only
# those (O(W log W)); a nucleus that does not fit (a flat distribution) gets one full sort
# (O(V log V)). Language-model nuclei are usually far smaller than this window.
_TOP_P_WINDOW = 1024


@dataclass(frozen=True)
class SamplingParams:
    """How to sample: validated once, here, so `sample` never sees a bad value.

    ``temperature`` >= 0 (0 is greedy); ``top_k`` >= 0 (0 is off); 0 < ``top_p`` <= 1 (1 is off);
    0 <= ``min_p`` <= 1 (0 is off); ``repetition_penalty`` > 0 (1 is off); ``frequency_penalty``
    and ``presence_penalty`` any finite number (0 is off; negative ones encourage repetition).

    >>> SamplingParams(temperature=0).greedy
    True
    >>> SamplingParams(top_p=0)
    Traceback (most recent call last):
    ...
    brzozowski.errors.SamplingParamsError: top_p must be in (0, 1], got 0
    """

    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0
    min_p: float = 0.0
    repetition_penalty: float = 1.0
    frequency_penalty: float = 0.0
    presence_penalty: float = 0.0

    def __post_init__(self) -> None:
        def real(name: str) -> float:
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, Real) or math.isnan(float(v)):
                raise SamplingParamsError(f"{name} must be a real number, got {v!r}", name)
            v = float(v)
            if math.isinf(v):
                raise SamplingParamsError(f"{name} must be finite, got {v!r}", name)
            object.__setattr__(self, name, v)
            return v

        if real("temperature") < 0:
            raise SamplingParamsError(f"temperature must be >= 0, got {self.temperature!r}", "temperature")
        k = self.top_k
        if isinstance(k, bool) or not isinstance(k, Integral) or k < 0:
            raise SamplingParamsError(f"top_k must be an integer >= 0 (0 is off), got {k!r}", "top_k")
        object.__setattr__(self, "top_k", int(k))
        top_p = self.top_p
        if not 0.0 < real("top_p") <= 1.0:
            raise SamplingParamsError(f"top_p must be in (0, 1], got {top_p!r}", "top_p")
        if not 0.0 <= real("min_p") <= 1.0:
            raise SamplingParamsError(f"min_p must be in [0, 1], got {self.min_p!r}", "min_p")
        if real("repetition_penalty") <= 0:
            raise SamplingParamsError(
                f"repetition_penalty must be > 0 (1 is off), got {self.repetition_penalty!r}",
                "repetition_penalty",
            )
        real("frequency_penalty")
        real("presence_penalty")

    @property
    def greedy(self) -> bool:
        """True when the temperature is 0: the largest logit wins, ties to the lowest id."""
        return self.temperature == 0.0


def sample(
    logits: Any,
    params: SamplingParams,
    history: Sequence[int] | np.ndarray,
    rng: np.random.Generator | None,
    prompt: Sequence[int] | np.ndarray = (),
) -> tuple[int, float]:
    """Draw one token id from ``logits`` (shape ``[V]``) under ``params``: ``(token_id, logprob)``.

    ``history`` is the generated tokens so far (repetition, frequency and presence penalties),
    ``prompt`` the prompt's tokens (repetition penalty only). ``rng`` is a
    ``numpy.random.Generator`` (may be None when greedy). See the module docstring for the order of
    the steps and the exact meaning of ``logprob``.

    Raises `MaskError` when ``logits`` is not 1-D and non-empty, holds NaN or ``+inf``, or is ``-inf``
    everywhere; `TokenError` for a history or prompt id outside ``0..V-1``; `SamplingParamsError`
    for ``params`` or ``rng`` of the wrong type.
    """
    ids, vals, weights = _filtered(logits, params, history, prompt)
    n = len(vals)
    if n == 1:
        return (int(ids[0]) if ids is not None else 0), float(vals[0])
    if not isinstance(rng, np.random.Generator):
        raise SamplingParamsError(
            f"rng must be a numpy.random.Generator (e.g. numpy.random.default_rng(seed)) when "
            f"temperature > 0, got {type(rng).__name__}",
            "rng",
        )
    # Inverse CDF over the kept tokens only; side="right" never lands on a zero-weight token.
    cdf = np.cumsum(weights, out=weights)  # in place: at V = 200k every fresh array costs page faults
    total = float(cdf[-1])
    j = int(np.searchsorted(cdf, rng.random() * total, side="right"))
    if j >= n:  # u * total rounded up to total: take the last token with weight
        j = int(np.searchsorted(cdf, total, side="left"))
    token = int(ids[j]) if ids is not None else j
    return token, float(vals[j] - math.log(total))


def distribution(
    logits: Any,
    params: SamplingParams,
    history: Sequence[int] | np.ndarray = (),
    prompt: Sequence[int] | np.ndarray = (),
) -> tuple[np.ndarray, np.ndarray]:
    """The tokens `sample` may return and their log-probabilities: ``(ids int64[n], logprobs[n])``.

    ``ids`` ascend and ``exp(logprobs)`` sums to 1, except when greedy: then the one token greedy
    picks, with the logprob `sample` reports for it (the model's, over every finite logit).
    Same errors as `sample`.

    >>> ids, lp = distribution([0.0, 0.0, -np.inf, 5.0], SamplingParams(min_p=0.1))
    >>> ids.tolist(), np.exp(lp).round(3).tolist()
    ([3], [1.0])
    """
    ids, vals, weights = _filtered(logits, params, history, prompt)
    if ids is None:
        ids = np.arange(len(vals), dtype=np.int64)
    if len(vals) == 1:
        return ids, vals  # already the logprob (see _filtered)
    return ids, vals - math.log(float(weights.sum()))


def _filtered(
    logits: Any, params: SamplingParams, history: Any, prompt: Any
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray | None]:
    """The kept tokens: (ids, or None for all of 0..V-1; logits minus their max; exp of those).

    When one token is left, ``vals`` holds its logprob instead and ``weights`` is None.
    """
    if not isinstance(params, SamplingParams):
        raise SamplingParamsError(
            f"params must be a SamplingParams, got {type(params).__name__}", "params"
        )
    x = _work_copy(logits)
    v = x.shape[0]
    _penalize(x, params, _token_ids(history, v, "history"), _token_ids(prompt, v, "prompt"))

    best = int(np.argmax(x))  # the first maximum: ties go to the lowest id
    top = float(x[best])
    if top == -np.inf:
        raise MaskError("every logit is -inf after the penalties: no token can be drawn")
    if top == np.inf:
        raise MaskError(f"the penalties overflowed logit {best} to +inf")
    if params.greedy:
        x -= top
        total = float(np.exp(x, out=x).sum())  # over every finite logit (exp(-inf) = 0)
        return np.array([best], dtype=np.int64), np.array([-math.log(total)]), None

    x -= top  # the largest is now 0; -inf stays -inf
    if params.temperature != 1.0:
        # After the shift, so nothing overflows upward: a tiny temperature (1e-310) sends the
        # others to -inf (a probability that underflows to 0 anyway), the largest stays 0.
        with np.errstate(over="ignore"):
            x /= params.temperature
    finite = x > -np.inf
    # ids None stands for "all of 0..V-1": no gathers, no index array in the unmasked case
    ids: np.ndarray | None = None if finite.all() else np.flatnonzero(finite)
    vals = x if ids is None else x[ids]
    weights: np.ndarray | None = None

    def keep(mask: np.ndarray) -> None:
        nonlocal ids, vals, weights
        ids = np.flatnonzero(mask) if ids is None else ids[mask]
        vals = vals[mask]
        if weights is not None:
            weights = weights[mask]

    if 0 < params.top_k < len(vals):
        n = len(vals)
        keep(vals >= np.partition(vals, n - params.top_k)[n - params.top_k])

    if params.top_p < 1.0 and len(vals) > 1:
        weights = np.exp(vals)
        keep(weights >= _nucleus_threshold(weights, params.top_p))

    if params.min_p > 0.0 and len(vals) > 1:
        # p_i >= min_p * p_max  <=>  logit_i - logit_max >= log(min_p): exact under renormalization
        keep(vals >= math.log(params.min_p))

    if len(vals) == 1:
        return (ids if ids is not None else np.zeros(1, dtype=np.int64)), np.zeros(1), None
    if weights is None:
        weights = np.exp(vals)
    return ids, vals, weights


def _nucleus_threshold(w: np.ndarray, top_p: float) -> float:
    """The weight of the last token of the nucleus, by descending weight (``w`` unnormalized)."""
    n = len(w)
    target = top_p * float(w.sum())
    m = min(n, _TOP_P_WINDOW)
    while True:
        head = w if m == n else w[np.argpartition(w, n - m)[n - m :]]  # the m largest
        head = np.sort(head)[::-1]
        cum = np.cumsum(head)
        j = int(np.searchsorted(cum, target, side="left"))  # first prefix with mass >= target
        if j < m or m == n:
            return float(head[min(j, m - 1)])
        m = n  # a flat distribution: one full sort beats widening step by step


def _work_copy(logits: Any) -> np.ndarray:
    try:
        arr = np.asarray(logits)
    except (TypeError, ValueError) as e:
        raise MaskError(f"logits must be a 1-D array of numbers: {e}") from None
    if arr.dtype.kind not in "iuf":
        raise MaskError(f"logits must be real numbers, got dtype {arr.dtype}")
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise MaskError(f"logits must be 1-D and non-empty, got shape {arr.shape}")
    x = np.array(arr, dtype=np.float64, copy=True)
    top = x.max()
    if np.isnan(top):
        raise MaskError(f"logits hold NaN, first at index {int(np.flatnonzero(np.isnan(x))[0])}")
    if top == np.inf:
        raise MaskError(f"logits hold +inf, first at index {int(np.argmax(x))}")
    if top == -np.inf:
        raise MaskError(f"every one of the {x.shape[0]} logits is -inf: no token can be drawn")
    return x


def _token_ids(ids: Any, v: int, what: str) -> np.ndarray:
    arr = np.asarray(ids)
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise TokenError(f"{what} must be a 1-D sequence of token ids, got {arr.dtype} of shape {arr.shape}")
    bad = np.flatnonzero((arr < 0) | (arr >= v))
    if len(bad):
        i = int(bad[0])
        raise TokenError(f"{what}[{i}] = {int(arr[i])} is not a token id in 0..{v - 1}")
    return arr.astype(np.int64, copy=False)


def _penalize(x: np.ndarray, params: SamplingParams, history: np.ndarray, prompt: np.ndarray) -> None:
    if params.repetition_penalty != 1.0 and (len(history) or len(prompt)):
        seen = np.unique(np.concatenate([prompt, history]))
        s = x[seen]
        x[seen] = np.where(s > 0, s / params.repetition_penalty, s * params.repetition_penalty)
    if (params.frequency_penalty or params.presence_penalty) and len(history):
        seen, counts = np.unique(history, return_counts=True)
        x[seen] -= params.frequency_penalty * counts + params.presence_penalty
