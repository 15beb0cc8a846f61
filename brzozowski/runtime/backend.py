"""A structured-output backend with the calls a serving engine makes (the shape of vLLM v1's).

vLLM's scheduler keeps one *backend* per engine and one *grammar* per request; its worker applies a
batch bitmask to the logits. `BrzozowskiBackend` and `BrzozowskiGrammar` have exactly those calls
(``vllm/v1/structured_output/backend_types.py``: `StructuredOutputBackend`,
`StructuredOutputGrammar`), so an engine adapter is a thin subclass; nothing here imports vLLM.

- ``BrzozowskiBackend(vllm_config, tokenizer, vocab_size)`` (vLLM's dataclass fields, in that
  order; `vllm_config` is not read) or ``BrzozowskiBackend(vocabulary=...)`` with a
  `brzozowski.vocab.vocabulary.Vocabulary`. ``compile_grammar(request_type, grammar_spec)``: the
  request types vLLM has (`StructuredOutputOptions`: JSON, JSON_OBJECT, REGEX, CHOICE; vLLM's own
  enum members and their lower-case names are accepted too). A JSON spec is JSON text or any schema
  `brzozowski.json.user_schemas.as_json_schema` reads; CHOICE is a JSON list of strings (or the list):
  the language of exactly one of them. Compiled token indexes are shared between requests with the
  same spec (`SHARED_GRAMMARS` kept), as vLLM caches compiled grammars.
  ``allocate_token_bitmask(max_num_seqs)``: the int32 ``(rows, ceil(vocab_size / 32))`` array
  (a torch tensor sharing its memory when the backend was made with ``tensors=True``).
- `BrzozowskiGrammar`, one request: ``accept_tokens(request_id, tokens) -> bool`` (all or nothing:
  False, and nothing moves, when any token is refused), ``validate_tokens(tokens) -> list`` (the
  prefix `accept_tokens` would take; trailing ``-1`` speculative padding is dropped, as vLLM's
  ``strip_speculative_padding`` does), ``rollback(n)``, ``fill_bitmask(bitmask, index)`` (a numpy
  array or a CPU torch tensor; once terminated the row allows EOS alone), ``is_terminated()``,
  ``reset()``, ``find_jump_string()`` (the forced text, for jump-forward decoding).

Invariants (those of `brzozowski.runtime.constraint.Constraint`, which each grammar wraps): the
row ``fill_bitmask`` writes is ``Constraint.bitmask()``; ``validate_tokens(t)`` then
``accept_tokens(t)`` moves exactly past the validated prefix; ``accept_tokens(t)`` then
``rollback(len(t))`` returns to the state before; EOS terminates and nothing follows it.

>>> from brzozowski.vocab.vocabulary import Vocabulary
>>> backend = BrzozowskiBackend(vocabulary=Vocabulary([b"yes", b"no", b"y", None], eos_id=3))
>>> grammar = backend.compile_grammar(StructuredOutputOptions.CHOICE, '["yes", "no"]')
>>> grammar.validate_tokens([2, 0]), grammar.accept_tokens("r1", [0, 3]), grammar.is_terminated()
([2], True, True)

Reference: vLLM v1 ``StructuredOutputManager.grammar_bitmask`` (the batch fill with speculative
rows, then rollback) and ``backend_guidance.py`` / ``backend_xgrammar.py``.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..automata.lazy import LazyDFA
from ..core.terms import alt, literal
from ..errors import ArgumentError, InputTypeError, SchemaError
from ..masks.index import TokenIndex
from ..vocab.vocabulary import Vocabulary
from .constraint import Constraint, _check_bitmask_array, allocate_bitmask
from .transformers import _eos_only, tokenizer_vocabulary

__all__ = ["SHARED_GRAMMARS", "BrzozowskiBackend", "BrzozowskiGrammar", "StructuredOutputOptions"]

SHARED_GRAMMARS = 64
"""How many compiled specs (token indexes) a backend keeps for requests that repeat one."""


class StructuredOutputOptions(enum.Enum):
    """The request types (vLLM's names; its GRAMMAR and STRUCTURAL_TAG are not supported)."""

    JSON = "json"
    JSON_OBJECT = "json_object"
    REGEX = "regex"
    CHOICE = "choice"


class BrzozowskiBackend:
    """Engine-level: one vocabulary, compiled specs shared between requests (see the module doc).

    `schema_options` go to `brzozowski.json.compiler.compile_json_schema` for JSON requests
    (``any_whitespace=True`` is what vLLM's default "whitespace flexible" JSON means).
    """

    def __init__(self, vllm_config: Any = None, tokenizer: Any = None, vocab_size: int | None = None, *,
                 vocabulary: Vocabulary | None = None, tensors: bool = False, **schema_options: Any) -> None:
        import cachetools

        if (tokenizer is None) == (vocabulary is None):
            raise ArgumentError("BrzozowskiBackend needs exactly one of tokenizer= or vocabulary=")
        if vocabulary is None:
            vocabulary = tokenizer_vocabulary(tokenizer, vocab_size)
        elif not isinstance(vocabulary, Vocabulary):
            raise InputTypeError(f"vocabulary must be a brzozowski Vocabulary, not {type(vocabulary).__name__}")
        self.vllm_config = vllm_config
        self.tokenizer = tokenizer
        self.vocabulary = vocabulary
        self.vocab_size = vocabulary.trie.vocab_size
        self.tensors = bool(tensors)
        self.schema_options = schema_options
        self._indexes: cachetools.LRUCache = cachetools.LRUCache(maxsize=SHARED_GRAMMARS)

    def compile_grammar(self, request_type: Any, grammar_spec: Any) -> BrzozowskiGrammar:
        """A fresh `BrzozowskiGrammar` for one request; `SchemaError`/`RegexSyntaxError` for a bad spec."""
        kind = _request_type(request_type)
        key = (kind, grammar_spec if isinstance(grammar_spec, str) else None)
        index = self._indexes.get(key) if key[1] is not None else None
        if index is None:
            index = TokenIndex(self._automaton(kind, grammar_spec), self.vocabulary)
            if key[1] is not None:
                self._indexes[key] = index
        return BrzozowskiGrammar(index)

    def _automaton(self, kind: StructuredOutputOptions, spec: Any) -> LazyDFA:
        from ..json.compiler import compile_json_schema

        if kind is StructuredOutputOptions.REGEX:
            if not isinstance(spec, str):
                raise InputTypeError(f"a regex request's spec is a pattern (str), not {type(spec).__name__}")
            return LazyDFA(spec)
        if kind is StructuredOutputOptions.JSON_OBJECT:
            return compile_json_schema({"type": "object"}, **self.schema_options)
        spec = _json_spec(spec, kind)
        if kind is StructuredOutputOptions.JSON:
            return compile_json_schema(spec, **self.schema_options)
        if not isinstance(spec, list) or not spec or not all(isinstance(c, str) for c in spec):
            raise SchemaError("a choice request's spec is a non-empty JSON list of strings", "", "choice")
        return LazyDFA(alt(*(literal(c.encode("utf-8")) for c in spec)))

    def allocate_token_bitmask(self, max_num_seqs: int) -> Any:
        """An all-allowed int32 bitmask of `max_num_seqs` rows (see `allocate_bitmask`)."""
        bits = allocate_bitmask(max_num_seqs, self.vocab_size)
        if self.tensors:
            import torch

            return torch.from_numpy(bits)
        return bits

    def destroy(self) -> None:
        """Drop the shared compiled specs."""
        self._indexes.clear()


def _request_type(request_type: Any) -> StructuredOutputOptions:
    if isinstance(request_type, StructuredOutputOptions):
        return request_type
    name = getattr(request_type, "name", request_type)  # vLLM's own enum: by member name
    if isinstance(name, str):
        for option in StructuredOutputOptions:
            if name in (option.name, option.value):
                return option
    raise ArgumentError(f"request type {request_type!r} is none of "
                        f"{', '.join(o.name for o in StructuredOutputOptions)}")


def _json_spec(spec: Any, kind: StructuredOutputOptions) -> Any:
    if isinstance(spec, (str, bytes)):
        try:
            return json.loads(spec)
        except (ValueError, RecursionError) as e:
            raise SchemaError(f"the {kind.value} request's spec is not JSON: {e}", "", None) from None
    return spec


class BrzozowskiGrammar:
    """Request-level: one `Constraint` with vLLM's calls (see the module doc)."""

    __slots__ = ("constraint", "index")

    def __init__(self, index: TokenIndex) -> None:
        self.index = index
        self.constraint = Constraint(index)

    @property
    def num_processed_tokens(self) -> int:
        """Tokens accepted so far (EOS included): the most `rollback` can undo."""
        return self.constraint.n_accepted

    def accept_tokens(self, request_id: str, tokens: Sequence[int]) -> bool:
        """Advance past every token of `tokens` and say True, or move nothing and say False."""
        tokens = list(tokens)
        if self.constraint.validate_tokens(tokens) != len(tokens):
            return False
        for token in tokens:
            self.constraint.advance(token)
        return True

    def validate_tokens(self, tokens: Sequence[int]) -> list[int]:
        """The longest prefix of `tokens` that `accept_tokens` would take (nothing moves)."""
        tokens = list(tokens)
        while tokens and tokens[-1] == -1:
            tokens.pop()
        return tokens[: self.constraint.validate_tokens(tokens)]

    def rollback(self, num_tokens: int) -> None:
        """Undo the last `num_tokens` accepted tokens (a `TokenError` for more than were accepted)."""
        self.constraint.rollback(num_tokens)

    def fill_bitmask(self, bitmask: Any, index: int) -> None:
        """Write this request's allowed tokens into row `index` of `bitmask` (EOS alone once terminated)."""
        array = bitmask
        if not isinstance(bitmask, np.ndarray) and hasattr(bitmask, "numpy"):
            array = bitmask.numpy()  # a CPU torch tensor: the same memory
        if self.constraint.done:
            _check_bitmask_array(array, index, -(-self.index.vocab_size // 32))
            _eos_only(array, index, self.index.eos_id)
        else:
            self.constraint.fill_bitmask(array, index)

    def is_terminated(self) -> bool:
        """Whether EOS was accepted."""
        return self.constraint.done

    def reset(self) -> None:
        """Back to the start, as a fresh request."""
        self.constraint = Constraint(self.index)

    def find_jump_string(self) -> str | None:
        """The text every continuation starts with (its longest whole-UTF-8 prefix), or None."""
        forced = self.constraint.forced_bytes()
        while forced:
            try:
                return forced.decode("utf-8")
            except UnicodeDecodeError as e:
                forced = forced[: e.start]
        return None

