"""Hugging Face transformers: a logits processor for ``model.generate`` that keeps every row in a language.

Two pieces:

- `tokenizer_vocabulary(tokenizer, vocab_size)`: the `brzozowski.vocab.vocabulary.Vocabulary` of a
  transformers tokenizer (token bytes by `brzozowski.vocab.tokenizers.vocab_bytes`, specials None,
  EOS the tokenizer's ``eos_token_id``), padded with None up to the model's logits width (a model's
  ``config.vocab_size`` may exceed the tokenizer's length: those ids are never allowed). Read once
  per tokenizer and width, shared by every processor and index while the tokenizer lives.
- `TransformersLogitsProcessor`: ``processor(input_ids, scores) -> scores``, the protocol of
  ``transformers.LogitsProcessor``. One `brzozowski.runtime.constraint.Constraint` per row of the
  batch; its first call sees the (left-padded) prompts, each later call exactly one new token per
  row. With ``num_return_sequences=k`` (or a batch of prompts under one pattern) the rows are
  ``batch * k``: give one index for all rows, or one per prompt (row r follows ``indexes[r // k]``,
  the order ``generate`` repeats prompts in). The packed masks of the batch (`fill_bitmasks`) go to
  the scores' device as one int32 tensor and are unpacked there (shifts and ``&``, no Python loop);
  forbidden scores become ``-inf``. A row that accepted EOS keeps EOS as its only allowed token
  (``generate`` pads finished rows; their scores must stay finite somewhere).

`logits_processor(tokenizer, schema=..., regex=...)` builds one from a tokenizer and a schema (any
form `brzozowski.json.user_schemas.as_json_schema` reads) or a regex; indexes are shared per tokenizer
and pattern, as `brzozowski.runtime.llama.shared_index` shares them per model.

Invariant: a row's generated tokens are always a prefix of a string of the language, and the
string itself once the row ended on EOS. Greedy search and sampling keep rows in place; beam search
reorders rows between calls and is not supported. torch is imported only when a processor runs.

Two lines for a user (not run here: they need a model)::

    processor = logits_processor(tokenizer, schema=Weather, vocab_size=model.config.vocab_size)
    out = model.generate(**inputs, logits_processor=[processor], do_sample=True)

Reference: transformers' ``LogitsProcessor`` protocol (``generation/logits_process.py``).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import ArgumentError, InputTypeError, TokenError, VocabularyError
from ..masks.index import TokenIndex
from ..vocab.tokenizers import vocab_bytes
from ..vocab.vocabulary import Vocabulary
from .constraint import Constraint, allocate_bitmask, fill_bitmasks

__all__ = ["SHARED_INDEXES", "TransformersLogitsProcessor", "logits_processor", "tokenizer_vocabulary"]

SHARED_INDEXES = 8
"""How many token indexes (patterns) `logits_processor` keeps per tokenizer and width."""

_vocabularies: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # tokenizer -> {width: Vocabulary}
_indexes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # tokenizer -> LRU of indexes


def tokenizer_vocabulary(tokenizer: Any, vocab_size: int | None = None) -> Vocabulary:
    """The shared `Vocabulary` of a transformers tokenizer, `vocab_size` ids wide (default: the
    tokenizer's own length). `VocabularyError` when the tokenizer has no EOS or is wider than
    `vocab_size`."""
    per_width = _vocabularies.get(tokenizer)
    if per_width is None:
        per_width = _vocabularies[tokenizer] = {}
    tokens = None
    if vocab_size is None:
        tokens = vocab_bytes(tokenizer)
        vocab_size = len(tokens)
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, (int, np.integer)) or vocab_size < 1:
        raise ArgumentError(f"vocab_size must be a positive int, not {vocab_size!r}")
    found = per_width.get(int(vocab_size))
    if found is not None:
        return found
    tokens = vocab_bytes(tokenizer) if tokens is None else tokens
    if len(tokens) > vocab_size:
        raise VocabularyError(f"the tokenizer has {len(tokens)} token ids but the model only {vocab_size} scores")
    eos = getattr(tokenizer, "eos_token_id", None)
    if eos is None:
        raise VocabularyError("the tokenizer declares no eos_token_id: a constrained generation could not end")
    found = per_width[int(vocab_size)] = Vocabulary(tokens + [None] * (vocab_size - len(tokens)), int(eos))
    return found


def logits_processor(tokenizer: Any, *, schema: Any = None, regex: str | None = None,
                     vocab_size: int | None = None, **schema_options: Any) -> TransformersLogitsProcessor:
    """A `TransformersLogitsProcessor` under a `schema` or a `regex` (exactly one) for `tokenizer`'s
    model; `vocab_size` is the model's logits width (``model.config.vocab_size``; default the
    tokenizer's length). `schema_options` go to `brzozowski.json.compiler.compile_json_schema`."""
    import cachetools

    from ..automata.lazy import LazyDFA
    from ..json.compiler import compile_json_schema

    if (schema is None) == (regex is None):
        raise ArgumentError("logits_processor needs exactly one of schema= or regex=")
    if schema_options and schema is None:
        raise ArgumentError(f"logits_processor: {', '.join(sorted(schema_options))} only apply to schema=")
    vocabulary = tokenizer_vocabulary(tokenizer, vocab_size)
    lazy = compile_json_schema(schema, **schema_options) if schema is not None else LazyDFA(regex)
    per_tokenizer = _indexes.get(tokenizer)
    if per_tokenizer is None:
        per_tokenizer = _indexes[tokenizer] = cachetools.LRUCache(maxsize=SHARED_INDEXES)
    key = (lazy.term(lazy.start), vocabulary.trie.vocab_size)  # interned: equal languages share
    index = per_tokenizer.get(key)
    if index is None:
        index = per_tokenizer[key] = TokenIndex(lazy, vocabulary)
    return TransformersLogitsProcessor(index)


class TransformersLogitsProcessor:
    """``(input_ids, scores) -> scores`` for ``model.generate``: see the module doc.

    ``constraints`` holds one `Constraint` per row once the first call has seen the batch;
    `reset` forgets the generation (the next call is a new prompt batch, as is any call whose
    sequence length is not one more than the last one's).
    """

    def __init__(self, indexes: TokenIndex | Sequence[TokenIndex]) -> None:
        if isinstance(indexes, TokenIndex):
            indexes = [indexes]
        if not isinstance(indexes, Sequence) or not indexes or not all(isinstance(i, TokenIndex) for i in indexes):
            raise InputTypeError("TransformersLogitsProcessor needs a TokenIndex or a non-empty list of them")
        if len({i.vocab_size for i in indexes}) != 1 or len({i.eos_id for i in indexes}) != 1:
            raise VocabularyError("the indexes of one processor must share one vocabulary size and EOS")
        self.indexes = list(indexes)
        self.vocab_size = indexes[0].vocab_size
        self.eos_id = indexes[0].eos_id
        self.reset()

    def reset(self) -> None:
        """Forget the generation: the next call's `input_ids` are new prompts."""
        self.constraints: list[Constraint] = []
        self._length = -1
        self._bits: np.ndarray | None = None
        self._shifts = None

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import torch

        rows, length = (int(n) for n in input_ids.shape)
        if scores.shape[-1] != self.vocab_size:
            raise VocabularyError(
                f"the model gives {scores.shape[-1]} scores but the constraint's vocabulary has "
                f"{self.vocab_size} ids: build it with tokenizer_vocabulary(tokenizer, model.config.vocab_size)")
        if length != self._length + 1 or rows != len(self.constraints):
            self._start(rows)
        else:
            new = input_ids[:, -1].tolist()
            for row, (constraint, token) in enumerate(zip(self.constraints, new)):
                if not constraint.done:
                    try:
                        constraint.advance(int(token))
                    except TokenError as e:
                        raise TokenError(f"row {row}: {e} (was a beam search reordering rows?)") from None
        self._length = length
        live = [c for c in self.constraints if not c.done]
        if len(live) == rows:
            fill_bitmasks(self.constraints, self._bits)
        else:
            for row, constraint in enumerate(self.constraints):
                if constraint.done:
                    _eos_only(self._bits, row, self.eos_id)
                else:
                    constraint.fill_bitmask(self._bits, row)
        bits = torch.from_numpy(self._bits).to(scores.device, non_blocking=True)
        if self._shifts is None or self._shifts.device != scores.device:
            self._shifts = torch.arange(32, dtype=torch.int32, device=scores.device)
        allowed = ((bits.unsqueeze(-1) >> self._shifts) & 1).to(torch.bool).reshape(rows, -1)[:, : self.vocab_size]
        return scores.masked_fill(~allowed, float("-inf"))

    def _start(self, rows: int) -> None:
        if rows % len(self.indexes):
            raise ArgumentError(f"{rows} rows cannot be shared among {len(self.indexes)} indexes (one per prompt)")
        per = rows // len(self.indexes)
        self.constraints = [Constraint(self.indexes[row // per]) for row in range(rows)]
        self._bits = allocate_bitmask(rows, self.vocab_size)


def _eos_only(bits: np.ndarray, row: int, eos_id: int) -> None:
    """Row `row` of a packed bitmask allows EOS alone (what a finished generation may still take)."""
    bits[row] = 0
    bits[row].view(np.uint32)[eos_id // 32] = np.uint32(1) << np.uint32(eos_id % 32)
