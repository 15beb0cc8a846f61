"""Constrained generation: one request's position in the automaton, masked logits, masked sampling.

A `Constraint` follows one generation through a shared `TokenIndex`: ``mask()`` is what may come
next, ``advance(token)`` moves along, ``is_complete()`` says whether the text so far is in the
language. `apply_mask` turns forbidden logits into ``-inf`` and `constrained_sample` is sampling
(`brzozowski.sampling.sample`) on the masked logits followed by ``advance`` (spec §2.4).

Invariants (DESIGN.md "sampling / constraint"):

- ``advance`` refuses a token outside the current mask with a `TokenError` naming the token, its
  bytes and the state: if an engine ever samples one, that is a bug, and it surfaces here instead
  of silently drifting from the text.
- EOS is allowed exactly when the state accepts; advancing with it marks the constraint ``done``
  and leaves ``state`` where it was.
- Nothing comes after EOS: once ``done``, both ``mask()`` and ``advance()`` raise `TokenError`
  (an all-false mask would only move the error into `apply_mask`, further from its cause).
- So every text that ends with an accepted EOS is in the language.

>>> from brzozowski.dfa import regex_to_dfa
>>> from brzozowski.masks import TokenIndex
>>> vocab = [b"c", b"a", b"t", b"r", b"d", b"o", b"g", b"s", b"ca", b"cat", b"dog", b"ts", b"x", None, b""]
>>> c = Constraint(TokenIndex(regex_to_dfa("(cat|car|dog)s?"), vocab, eos_id=13))
>>> for token in (8, 11, 13):   # "ca", "ts", EOS
...     c.advance(token)
>>> c.state, c.done, c.is_complete()
(6, True, True)

Reference: spec §2.4 and §4; Willard & Louf (2023), "Efficient Guided Generation for LLMs".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .errors import InputTypeError, MaskError, TokenError
from .masks import DEAD, TokenIndex
from .sampling import SamplingParams, sample

__all__ = ["Constraint", "apply_mask", "constrained_sample"]


class Constraint:
    """One generation's position: ``state`` (an automaton state) and ``done`` (EOS was accepted).

    Cheap to create (the index, with its mask cache, is shared between requests); not meant to be
    shared between threads itself.
    """

    __slots__ = ("index", "state", "done")

    def __init__(self, index: TokenIndex) -> None:
        if not isinstance(index, TokenIndex):
            raise InputTypeError(f"Constraint needs a TokenIndex, not {index!r:.80} ({type(index).__name__})")
        self.index = index
        self.state: int = index.start
        self.done: bool = False

    def __repr__(self) -> str:
        return f"Constraint(state={self.state}, done={self.done})"

    def mask(self) -> np.ndarray:
        """The tokens allowed next (read-only bool[V]); `TokenError` once done."""
        self._refuse_after_eos("ask for a mask")
        return self.index.mask(self.state)

    def bitmask(self) -> np.ndarray:
        """The same mask packed in int32 words (bit t % 32 of word t // 32); `TokenError` once done."""
        self._refuse_after_eos("ask for a mask")
        return self.index.bitmask(self.state)

    def is_complete(self) -> bool:
        """Whether the text so far is in the language (always true once EOS was accepted)."""
        return self.done or self.index.is_accepting(self.state)

    def advance(self, token_id: int) -> None:
        """Move past `token_id`; `TokenError` if it is not in the current mask or comes after EOS.

        A token is in the mask exactly when its bytes lead somewhere from the current state (EOS:
        when the state accepts), so the check is the memoized next state itself, not a mask lookup.
        """
        self._refuse_after_eos(f"advance with token {token_id!r}")
        index = self.index
        token_id = index.check_token(token_id)
        target = index.next_state_unchecked(self.state, token_id)
        if target == DEAD:
            raise TokenError(
                f"token {token_id} ({self._describe(token_id)}) is not allowed in state "
                f"{self.state}: it is outside the mask"
            )
        if token_id == index.eos_id:
            self.done = True
        else:
            self.state = target

    def _refuse_after_eos(self, what: str) -> None:
        if self.done:
            raise TokenError(
                f"cannot {what}: EOS was already accepted in state {self.state}, nothing may follow"
            )

    def _describe(self, token_id: int) -> str:
        if token_id == self.index.eos_id:
            return "EOS"
        data = self.index.trie.tokens[token_id]
        return "a special token" if data is None else repr(data)


def apply_mask(logits: Any, mask: Any) -> np.ndarray:
    """A float64 copy of `logits` with ``-inf`` wherever `mask` is False.

    `MaskError` (naming the shapes) when the logits are not 1-D real numbers, the mask is not a
    bool array of the same shape, or the mask allows nothing (sampling could not draw anything).

    >>> apply_mask([1.0, 2.0, 3.0], np.array([True, False, True]))
    array([  1., -inf,   3.])
    """
    x = np.asarray(logits)
    m = np.asarray(mask)
    if x.dtype.kind not in "iuf":
        raise MaskError(f"logits must be real numbers, got dtype {x.dtype} of shape {x.shape}")
    if x.ndim != 1:
        raise MaskError(f"logits must be 1-D (one per token), got shape {x.shape}")
    if m.dtype != np.bool_:
        raise MaskError(f"the mask must be a bool array, got dtype {m.dtype} of shape {m.shape}")
    if m.shape != x.shape:
        raise MaskError(f"the mask has shape {m.shape} but the logits have shape {x.shape}")
    if not m.any():
        raise MaskError(f"the mask of shape {m.shape} allows no token: nothing could be sampled")
    out = np.array(x, dtype=np.float64, copy=True)
    out[~m] = -np.inf
    return out


def constrained_sample(
    logits: Any,
    c: Constraint,
    p: SamplingParams,
    history: Sequence[int] | np.ndarray,
    rng: np.random.Generator | None,
    prompt: Sequence[int] | np.ndarray = (),
) -> tuple[int, float]:
    """Sample one token from `logits` under `c`'s mask, advance `c` past it: ``(token, logprob)``.

    The logprob is `brzozowski.sampling.sample`'s, over the allowed tokens only (renormalized).
    """
    token, logprob = sample(apply_mask(logits, c.mask()), p, history, rng, prompt)
    c.advance(token)
    return token, logprob
