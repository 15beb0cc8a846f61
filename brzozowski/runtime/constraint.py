"""Constrained generation: one request's position in the automaton, masked logits, masked sampling.

A `Constraint` follows one generation through a shared `TokenIndex`: ``mask()`` is what may come
next, ``advance(token)`` moves along, ``is_complete()`` says whether the text so far is in the
language. `apply_mask` turns forbidden logits into ``-inf`` and `constrained_sample` is sampling
(`brzozowski.runtime.sampling.sample`) on the masked logits followed by ``advance``.

Invariants (the mask rule and the decided semantics of docs/semantics.md):

- ``advance`` refuses a token outside the current mask with a `TokenError` naming the token, its
  bytes and the state: if an engine ever samples one, that is a bug, and it surfaces here instead
  of silently drifting from the text.
- EOS is allowed exactly when the state accepts; advancing with it marks the constraint ``done``
  and leaves ``state`` where it was.
- Nothing comes after EOS: once ``done``, both ``mask()`` and ``advance()`` raise `TokenError`
  (an all-false mask would only move the error into `apply_mask`, further from its cause).
- So every text that ends with an accepted EOS is in the language.
- The engine calls (the names vLLM and XGrammar users know) never break these rules:
  ``rollback(n)`` returns exactly to the state after the first k - n of k accepted tokens (it
  keeps the trail of states it passed); ``validate_tokens(ids)`` answers what ``advance`` would
  accept without moving; ``forced_bytes()`` is the longest byte string every continuation of the
  language starts with; ``fill_bitmask`` writes the very words ``bitmask()`` returns; ``copy()``
  shares the index and nothing mutable.

>>> from brzozowski.automata.dfa import regex_to_dfa
>>> from brzozowski.masks.index import TokenIndex
>>> vocab = [b"c", b"a", b"t", b"r", b"d", b"o", b"g", b"s", b"ca", b"cat", b"dog", b"ts", b"x", None, b""]
>>> c = Constraint(TokenIndex(regex_to_dfa("(cat|car|dog)s?"), vocab, eos_id=13))
>>> for token in (8, 11, 13):   # "ca", "ts", EOS
...     c.advance(token)
>>> c.state, c.done, c.is_complete()
(6, True, True)
>>> c.rollback(2); c.state, c.done               # undo EOS and "ts": back after "ca"
(3, False)
>>> c.validate_tokens([11, 7, 13])                # "ts" yes, then "s" is too many
1
>>> d = Constraint(c.index); d.advance(4); d.forced_bytes()   # after "d" only "og" can follow
b'og'

Reference: docs/semantics.md ("The mask rule"); Willard & Louf (2023), "Efficient Guided
Generation for LLMs".
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor
from typing import Any

import numpy as np

from ..core.alphabet import DEAD
from ..budget import DEFAULT_LIMITS, Limits
from ..errors import InputLimitError, InputTypeError, MaskError, TokenError
from ..masks.index import TokenIndex
from .sampling import SamplingParams, sample

__all__ = [
    "FILL_CHUNK", "Constraint", "allocate_bitmask", "apply_mask", "constrained_sample", "fill_bitmasks",
    "forced_tokens", "greedy_tokenizer",
]


class Constraint:
    """One generation's position: ``state`` (an automaton state) and ``done`` (EOS was accepted).

    Cheap to create (the index, with its mask cache, is shared between requests); not meant to be
    shared between threads itself. It remembers the state before each accepted token (one int per
    token) so that `rollback` can undo any number of them.
    """

    __slots__ = ("index", "state", "done", "_trail")

    def __init__(self, index: TokenIndex) -> None:
        if not isinstance(index, TokenIndex):
            raise InputTypeError(f"Constraint needs a TokenIndex, not {index!r:.80} ({type(index).__name__})")
        self.index = index
        self.state: int = index.start
        self.done: bool = False
        self._trail: list[int] = []  # the state before each accepted token, EOS included

    def __repr__(self) -> str:
        return f"Constraint(state={self.state}, done={self.done}, tokens={len(self._trail)})"

    @property
    def n_accepted(self) -> int:
        """How many tokens were accepted so far (EOS included): the most `rollback` can undo."""
        return len(self._trail)

    def copy(self) -> Constraint:
        """An independent constraint in the same state, over the same (shared) index."""
        twin = Constraint.__new__(Constraint)
        twin.index, twin.state, twin.done = self.index, self.state, self.done
        twin._trail = self._trail.copy()
        return twin

    def mask(self) -> np.ndarray:
        """The tokens allowed next (read-only bool[V]); `TokenError` once done."""
        if self.done:  # (the check inline: a step asks for a mask every time)
            self._refuse_after_eos("ask for a mask")
        return self.index.mask(self.state)

    def bitmask(self) -> np.ndarray:
        """The same mask packed in int32 words (bit t % 32 of word t // 32); `TokenError` once done."""
        if self.done:  # (the check inline: a step asks for a mask every time)
            self._refuse_after_eos("ask for a mask")
        return self.index.bitmask(self.state)

    def fill_bitmask(self, out: np.ndarray, row: int = 0) -> None:
        """Write this step's packed mask into ``out[row]``, a row of a caller's int32 array of shape
        ``(batch, ceil(V / 32))`` (see `allocate_bitmask`), without allocating; `TokenError` once
        done, `MaskError` (naming the shape, dtype or row) when `out` cannot hold it."""
        words = self.bitmask()
        _check_bitmask_array(out, row, len(words))
        out[row] = words

    def validate_tokens(self, token_ids: Sequence[int]) -> int:
        """How many of `token_ids`, in order, `advance` would accept from here (nothing moves).

        Counting stops at the first token outside its mask; after an accepted EOS nothing more
        is accepted. An id that is not a token id at all is a `TokenError`, wherever it stands.
        """
        index = self.index
        ids = [index.check_token(t) for t in token_ids]
        if self.done:
            return 0
        state, eos = self.state, index.eos_id
        for count, token_id in enumerate(ids):
            target = index.next_state_unchecked(state, token_id)
            if target == DEAD:
                return count
            if token_id == eos:
                return count + 1
            state = target
        return len(ids)

    def rollback(self, n: int) -> None:
        """Undo the last `n` accepted tokens (EOS included): speculative decoding, beam search.

        `TokenError` naming `n` when it is not an int between 0 and `n_accepted`.
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise TokenError(f"rollback needs an int number of tokens, not {n!r}")
        n = int(n)
        if not 0 <= n <= len(self._trail):
            raise TokenError(
                f"cannot roll back {n} tokens: {len(self._trail)} were accepted (0..{len(self._trail)})"
            )
        if n:
            self.state = self._trail[-n]
            del self._trail[-n:]
            self.done = False  # EOS can only be the last accepted token

    def forced_bytes(self) -> bytes:
        """The bytes every continuation must start with: b"" when there is a choice (or once done).

        Following the automaton while the state does not accept (EOS would be a choice) and exactly
        one byte leads somewhere. This is what jump-forward decoding can append without asking
        the model; `forced_tokens` turns it into token ids.
        """
        if self.done:
            return b""
        automaton = self.index.automaton
        state, forced, seen = self.state, bytearray(), set()
        while not automaton.is_accepting(state) and state not in seen:
            seen.add(state)
            live = np.flatnonzero(automaton.row(state) != DEAD)
            if len(live) != 1:
                break
            forced.append(int(live[0]))
            state = int(automaton.row(state)[live[0]])
        return bytes(forced)

    def is_complete(self) -> bool:
        """Whether the text so far is in the language (always true once EOS was accepted)."""
        return self.done or self.index.is_accepting(self.state)

    def advance(self, token_id: int) -> None:
        """Move past `token_id`; `TokenError` if it is not in the current mask or comes after EOS.

        A token is in the mask exactly when its bytes lead somewhere from the current state (EOS:
        when the state accepts), so the check is the memoized next state itself, not a mask lookup.
        """
        if self.done:  # (the message only then: it formats the token)
            self._refuse_after_eos(f"advance with token {token_id!r}")
        index = self.index
        token_id = index.check_token(token_id)
        target = index.next_state_unchecked(self.state, token_id)
        if target == DEAD:
            raise TokenError(
                f"token {token_id} ({self._describe(token_id)}) is not allowed in state "
                f"{self.state}: it is outside the mask"
            )
        self._trail.append(self.state)
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


def allocate_bitmask(batch_size: int, vocab_size: int, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """An int32 array of shape ``(batch_size, ceil(vocab_size / 32))`` with every bit set (every
    token allowed): the buffer `Constraint.fill_bitmask` and `fill_bitmasks` write into.

    `MaskError` when a size is not a positive int; `InputLimitError` when the array would take more
    than ``limits.bitmask_bytes`` (a request cannot make a server allocate without bound).

    >>> allocate_bitmask(2, 40).shape
    (2, 2)
    """
    for name, value in (("batch_size", batch_size), ("vocab_size", vocab_size)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise MaskError(f"{name} must be a positive int, not {value!r}")
    if not isinstance(limits, Limits):
        raise InputTypeError(f"limits must be a brzozowski.budget.Limits, not {type(limits).__name__}")
    shape = (int(batch_size), -(-int(vocab_size) // 32))
    size = 4 * shape[0] * shape[1]
    if limits.bitmask_bytes is not None and size > limits.bitmask_bytes:
        raise InputLimitError(
            f"a bitmask of shape {shape} takes {size} bytes: more than Limits.bitmask_bytes "
            f"({limits.bitmask_bytes}) allows (batch_size={batch_size}, vocab_size={vocab_size})"
        )
    return np.full(shape, -1, dtype=np.int32)


FILL_CHUNK = 16
"""Rows per task when `fill_bitmasks` is given an executor (vLLM's scheduler hands out 16 too)."""


def fill_bitmasks(constraints: Sequence[Constraint], out: np.ndarray, *, executor: Executor | None = None) -> None:
    """Fill row i of `out` with the packed mask of ``constraints[i]``, for a whole batch in one call.

    `out` is a writable int32 array of shape ``(batch, ceil(V / 32))`` with ``batch >=
    len(constraints)``; rows past the constraints are left alone. Every argument is checked before
    any row is written: `InputTypeError` when `constraints` is not a sequence of `Constraint`
    (an iterator, None, another object: naming its row), `MaskError` for the array (shape, dtype,
    read-only). A constraint that is done is a `TokenError` naming its row.

    `executor` (a ``concurrent.futures.Executor`` the caller owns, e.g. a ``ThreadPoolExecutor``):
    the rows are filled in chunks of `FILL_CHUNK` on its workers. The rows and errors are the same
    either way; what runs outside the GIL there is numpy's part of the work (unpacking, the trie
    levels' array operations, the row copies), so it can pay only when masks are computed on the
    way over different indexes (the walk of one index holds that index's lock); rows whose masks are
    cached are one copy each, cheaper than handing them to a thread (`benchmarks/record/`).
    """
    if isinstance(constraints, (str, bytes)) or not isinstance(constraints, Sequence):
        raise InputTypeError(
            f"fill_bitmasks needs a sequence (list or tuple) of Constraint, not {type(constraints).__name__}"
        )
    if len(constraints) > (len(out) if isinstance(out, np.ndarray) and out.ndim == 2 else 0):
        shape = out.shape if isinstance(out, np.ndarray) else type(out).__name__
        raise MaskError(f"{len(constraints)} constraints do not fit a bitmask array of shape {shape}")
    for row, constraint in enumerate(constraints):
        if not isinstance(constraint, Constraint):
            raise InputTypeError(f"row {row} of fill_bitmasks is {type(constraint).__name__}, not a Constraint")
        constraint._refuse_after_eos(f"fill row {row} of the bitmask")
        _check_bitmask_array(out, row, -(-constraint.index.vocab_size // 32))
    if executor is None or len(constraints) <= FILL_CHUNK:
        _fill_rows(constraints, out, 0, len(constraints))
        return
    futures = [executor.submit(_fill_rows, constraints, out, lo, min(lo + FILL_CHUNK, len(constraints)))
               for lo in range(0, len(constraints), FILL_CHUNK)]
    for future in futures:  # in row order, so the first failing chunk's error is the one raised
        future.result()


def _fill_rows(constraints: Sequence[Constraint], out: np.ndarray, lo: int, hi: int) -> None:
    for row in range(lo, hi):
        out[row] = constraints[row].bitmask()


def _check_bitmask_array(out: Any, row: Any, words: int) -> None:
    if not isinstance(out, np.ndarray) or out.dtype != np.int32 or out.ndim != 2:
        what = f"dtype {out.dtype} and shape {out.shape}" if isinstance(out, np.ndarray) else type(out).__name__
        raise MaskError(f"the bitmask must be a 2-D int32 numpy array, got {what}")
    if out.shape[1] != words:
        raise MaskError(f"the bitmask array has {out.shape[1]} words per row, the vocabulary needs {words}")
    if isinstance(row, bool) or not isinstance(row, (int, np.integer)) or not 0 <= row < out.shape[0]:
        raise MaskError(f"row {row!r} is not a row of the bitmask array of shape {out.shape}")
    if not out.flags.writeable:
        raise MaskError(f"the bitmask array of shape {out.shape} is read-only: pass a writable array")


def greedy_tokenizer(vocab: Sequence[bytes | None]):
    """A tokenizer for `forced_tokens` from a vocabulary alone: the longest token at each position.

    (Not the model's own tokenization, but every piece is a real token; pass the model's tokenizer
    when you have it.)

    >>> greedy_tokenizer([b"a", b"b", b"ab", None])(b"abba")
    [2, 1, 0]
    """
    ids: dict[bytes, int] = {}
    for token_id, data in enumerate(vocab):
        if data:
            ids.setdefault(bytes(data), token_id)
    longest = max(map(len, ids), default=0)

    def tokenize(data: bytes) -> list[int]:
        out, i = [], 0
        while i < len(data):
            for size in range(min(longest, len(data) - i), 0, -1):
                token_id = ids.get(data[i:i + size])
                if token_id is not None:
                    out.append(token_id)
                    i += size
                    break
            else:
                raise TokenError(f"no token of the vocabulary starts with byte {data[i]:#04x} at offset {i}")
        return out

    return tokenize


def forced_tokens(constraint: Constraint, tokenize) -> list[int]:
    """The token ids of `constraint.forced_bytes()`, for jump-forward decoding: the longest prefix
    of ``tokenize(forced)`` that the constraint accepts (usually all of it). `tokenize` maps bytes
    to token ids: the model's tokenizer, or `greedy_tokenizer(vocab)`. Nothing is advanced.
    """
    forced = constraint.forced_bytes()
    if not forced:
        return []
    ids = [int(t) for t in tokenize(forced)]
    return ids[: constraint.validate_tokens(ids)]


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

    The logprob is `brzozowski.runtime.sampling.sample`'s, over the allowed tokens only (renormalized).
    """
    token, logprob = sample(apply_mask(logits, c.mask()), p, history, rng, prompt)
    c.advance(token)
    return token, logprob
