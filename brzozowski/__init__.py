"""brzozowski: constrained decoding for language models, built on Brzozowski derivatives.

A regex (Python `re` syntax for bytes, full match) or a JSON schema becomes a DFA whose states are
derivatives of the pattern; per state, a mask of the tokenizer's vocabulary says which tokens keep
the text inside the language. See README.md for the code map.
"""

__version__ = "0.1.0"
"""The package version: the one place it is written (pyproject.toml reads it from here)."""

from .automata.dfa import DFA, regex_to_dfa
from .automata.lazy import DEFAULT_MAX_STATES, LazyDFA
from .budget import DEFAULT_LIMITS, Limits
from .core.alphabet import DEAD, Automaton
from .core.syntax import MAX_REPEAT_COUNT, parse
from .core.terms import Term, alt, compl, concat, freeze_long_lived, inter
from .errors import (
    BrzozowskiError,
    BudgetError,
    GoldenMismatchError,
    MaskError,
    RegexSyntaxError,
    SamplingParamsError,
    SchemaError,
    SchemaProblem,
    StateBudgetError,
    InputLimitError,
    TimeBudgetError,
    TokenError,
    VocabularyError,
)
from .golden import Oracle, check_golden
from .json.compiler import DEFAULT_MAX_DEPTH, compile_json_schema, explain_json_schema
from .json.user_schemas import as_json_schema, tool_call_schema
from .json.strict import json_schema_to_regex
from .masks.index import TokenIndex
from .runtime.backend import BrzozowskiBackend, BrzozowskiGrammar, StructuredOutputOptions
from .runtime.constraint import Constraint, allocate_bitmask, apply_mask, constrained_sample, fill_bitmasks
from .runtime.transformers import TransformersLogitsProcessor, tokenizer_vocabulary
from .runtime.sampling import SamplingParams, distribution, sample
from .vocab.tokenizers import bytes_to_unicode, load_tiktoken_vocab, load_vocab, unicode_to_bytes, vocab_bytes
from .vocab.vocabulary import VocabTrie, Vocabulary, vocab_trie

__all__ = [
    "__version__",
    "DEAD",
    "DEFAULT_LIMITS",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_STATES",
    "DFA",
    "MAX_REPEAT_COUNT",
    "Automaton",
    "BrzozowskiBackend",
    "BrzozowskiError",
    "BrzozowskiGrammar",
    "BudgetError",
    "Constraint",
    "GoldenMismatchError",
    "InputLimitError",
    "LazyDFA",
    "Limits",
    "MaskError",
    "Oracle",
    "RegexSyntaxError",
    "SamplingParams",
    "SamplingParamsError",
    "SchemaError",
    "SchemaProblem",
    "StateBudgetError",
    "StructuredOutputOptions",
    "Term",
    "TimeBudgetError",
    "TokenError",
    "TokenIndex",
    "TransformersLogitsProcessor",
    "VocabTrie",
    "Vocabulary",
    "VocabularyError",
    "allocate_bitmask",
    "alt",
    "apply_mask",
    "as_json_schema",
    "bytes_to_unicode",
    "check_golden",
    "compile_json_schema",
    "compl",
    "concat",
    "constrained_sample",
    "distribution",
    "explain_json_schema",
    "fill_bitmasks",
    "freeze_long_lived",
    "inter",
    "json_schema_to_regex",
    "load_tiktoken_vocab",
    "load_vocab",
    "parse",
    "regex_to_dfa",
    "sample",
    "tokenizer_vocabulary",
    "tool_call_schema",
    "unicode_to_bytes",
    "vocab_bytes",
    "vocab_trie",
]
