"""Tests for brzozowski.runtime.backend (the vLLM-shaped backend) and the batch bitmask calls.

The driver below calls the backend the way vLLM v1's scheduler and worker do: drafts cut to their
valid prefix (``validate_tokens``), a batch bitmask with one row per speculative position plus the
bonus row (fill, accept, ..., then ``rollback``), then the tokens the "model" kept accepted at once.
Oracles: a shadow `Constraint` replaying the accepted tokens (every row must be its
``bitmask()``), ``re.fullmatch``, ``jsonschema`` and the choice list for the finished texts.
"""

from __future__ import annotations

import enum
import json
import random
import re
from concurrent.futures import ThreadPoolExecutor

import jsonschema
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brzozowski import Constraint, InputLimitError, MaskError, TokenError
from brzozowski.errors import ArgumentError, InputTypeError, SchemaError
from brzozowski.runtime.backend import BrzozowskiBackend, StructuredOutputOptions
from brzozowski.runtime.constraint import FILL_CHUNK, allocate_bitmask, fill_bitmasks
from brzozowski.vocab.vocabulary import Vocabulary

PIECES = [b'{"', b'":', b'",', b'"}', b'",', b"true", b"false", b"null", b"yes", b"no", b"may", b"be",
          b"maybe", b'"a":', b'"b":', b'"c":', b"12", b"99", b"-0", b"ab", b"bc"]
TOKENS = [bytes([b]) for b in range(32, 127)] + PIECES + [None, None]  # two specials, the first is EOS
EOS = len(TOKENS) - 2
VOCAB = Vocabulary(TOKENS, EOS)

SCHEMA = {"type": "object", "properties": {"a": {"type": "integer", "minimum": 0, "maximum": 99},
                                           "b": {"enum": ["x", "yes"]},
                                           "c": {"type": "string", "maxLength": 3, "pattern": "^[a-c]*$"}},
          "required": ["a", "b"]}
REGEX = r"[a-c]{1,6}(-[0-9]{2})?"
CHOICES = ["yes", "no", "maybe"]
REQUESTS = [(StructuredOutputOptions.CHOICE, json.dumps(CHOICES)), (StructuredOutputOptions.REGEX, REGEX),
            (StructuredOutputOptions.JSON, json.dumps(SCHEMA))]


def text_of(tokens):
    return b"".join(TOKENS[t] for t in tokens if t != EOS)


def allowed(row: np.ndarray) -> list[int]:
    bits = np.unpackbits(row.view(np.uint8), bitorder="little")[: len(TOKENS)]
    return np.flatnonzero(bits).tolist()


def finished_text_is_in_the_language(kind, spec, tokens) -> bool:
    text = text_of(tokens).decode("utf-8")
    if kind is StructuredOutputOptions.CHOICE:
        return text in json.loads(spec)
    if kind is StructuredOutputOptions.REGEX:
        return re.fullmatch(spec, text) is not None
    jsonschema.validate(json.loads(text), json.loads(spec))
    return True


@pytest.mark.parametrize("seed", range(6))
def test_a_scheduler_and_worker_driver_finishes_every_request_in_its_language(seed):
    rng = random.Random(seed)
    spec_tokens = 3
    backend = BrzozowskiBackend(vocabulary=VOCAB)
    requests = {f"r{i}": (kind, spec, backend.compile_grammar(kind, spec)) for i, (kind, spec) in
                enumerate(REQUESTS * 2)}
    accepted = {rid: [] for rid in requests}
    bitmask = backend.allocate_token_bitmask(len(requests) * (1 + spec_tokens))
    rows_checked = rolled_back = 0
    for _step in range(80):
        active = [rid for rid, (_, _, g) in requests.items() if not g.is_terminated()]
        if not active:
            break
        # scheduler: random drafts, cut to what the grammar accepts
        drafts = {}
        for rid in active:
            draft, walker = [], requests[rid][2].constraint.copy()  # a draft model: mostly right
            for _ in range(rng.randint(0, spec_tokens)):
                good = not walker.done and rng.random() < 0.7
                draft.append(rng.choice(allowed(walker.bitmask())) if good else rng.randrange(len(TOKENS)))
                if good:
                    walker.advance(draft[-1])
            drafts[rid] = requests[rid][2].validate_tokens(draft + [-1] * rng.randint(0, 1))
        # grammar_bitmask: one row per draft position and the bonus row, then roll back
        index, rows = 0, {}
        for rid in active:
            grammar = requests[rid][2]
            shadow = Constraint(grammar.index)
            for t in accepted[rid]:
                shadow.advance(t)
            advanced = 0
            for token in drafts[rid] + [None]:
                grammar.fill_bitmask(bitmask, index)
                if shadow.done:
                    assert allowed(bitmask[index]) == [EOS]
                else:
                    assert np.array_equal(bitmask[index], shadow.bitmask())
                    rows_checked += 1
                rows.setdefault(rid, []).append(index)
                if token is not None and not grammar.is_terminated():
                    assert grammar.accept_tokens(rid, [token])
                    shadow.advance(token)
                    advanced += 1
                index += 1
            if advanced:
                grammar.rollback(advanced)
                rolled_back += advanced
            assert grammar.num_processed_tokens == len(accepted[rid])
        # worker + sampler: keep a random number of drafts, sample the bonus token from its row
        for rid in active:
            kept = rng.randint(0, len(drafts[rid]))
            tokens = drafts[rid][:kept]
            if EOS in tokens:
                tokens = tokens[: tokens.index(EOS) + 1]
            else:
                choices = allowed(bitmask[rows[rid][kept]])
                bonus = EOS if EOS in choices and rng.random() < 0.4 else rng.choice(choices)
                tokens.append(bonus)
            assert requests[rid][2].accept_tokens(rid, tokens)
            accepted[rid] += tokens
    for rid, (kind, spec, grammar) in requests.items():
        assert grammar.is_terminated(), (rid, text_of(accepted[rid]))
        assert finished_text_is_in_the_language(kind, spec, accepted[rid])
    assert rows_checked > 30 and rolled_back > 0


@st.composite
def positions(draw):
    kind, spec = draw(st.sampled_from(REQUESTS))
    grammar = BrzozowskiBackend(vocabulary=VOCAB).compile_grammar(kind, spec)
    for _ in range(draw(st.integers(0, 6))):  # walk somewhere inside the language
        if grammar.is_terminated():
            break
        out = allocate_bitmask(1, len(TOKENS))
        grammar.fill_bitmask(out, 0)
        assert grammar.accept_tokens("x", [draw(st.sampled_from(allowed(out[0])))])
    walker, tokens = grammar.constraint.copy(), []  # a run of allowed tokens, then random ones
    for _ in range(draw(st.integers(0, 4))):
        if walker.done:
            break
        tokens.append(draw(st.sampled_from(allowed(walker.bitmask()))))
        walker.advance(tokens[-1])
    tokens += draw(st.lists(st.integers(0, len(TOKENS) - 1), max_size=3))
    return grammar, tokens


def snapshot(grammar):
    out = allocate_bitmask(1, len(TOKENS))
    grammar.fill_bitmask(out, 0)
    return grammar.constraint.state, grammar.is_terminated(), grammar.num_processed_tokens, out.tobytes()


@settings(max_examples=120, deadline=None)
@given(positions())
def test_validate_then_accept_then_rollback_laws(case):
    grammar, tokens = case
    before = snapshot(grammar)
    valid = grammar.validate_tokens(tokens)
    assert valid == tokens[: len(valid)]  # a prefix
    assert snapshot(grammar) == before  # validating moves nothing
    refused = grammar.accept_tokens("x", tokens) is False
    assert refused == (valid != tokens)
    if refused:
        assert snapshot(grammar) == before  # all or nothing
        assert grammar.accept_tokens("x", valid)
    assert grammar.num_processed_tokens == before[2] + len(valid)
    if len(valid) < len(tokens):  # the first refused token is refused from where the prefix led
        assert grammar.validate_tokens([tokens[len(valid)]]) == []
    grammar.rollback(len(valid))
    assert snapshot(grammar) == before


def test_request_types_by_vllm_member_name_and_by_value():
    class VllmOptions(enum.Enum):  # vLLM's StructuredOutputOptions members are known by name
        JSON = enum.auto()
        CHOICE = enum.auto()
        GRAMMAR = enum.auto()

    backend = BrzozowskiBackend(vocabulary=VOCAB)
    yes = [TOKENS.index(b"yes"), EOS]
    assert backend.compile_grammar(VllmOptions.CHOICE, '["yes"]').accept_tokens("r", yes)
    assert backend.compile_grammar("choice", ["no", "yes"]).accept_tokens("r", yes)
    assert not backend.compile_grammar("CHOICE", ["no"]).accept_tokens("r", yes)
    obj = backend.compile_grammar(StructuredOutputOptions.JSON_OBJECT, "")
    assert obj.accept_tokens("r", [TOKENS.index(b"{"), TOKENS.index(b"}"), EOS])
    assert backend.compile_grammar("json", SCHEMA).index is not backend.compile_grammar("json", SCHEMA).index
    assert backend.compile_grammar("regex", REGEX).index is backend.compile_grammar("regex", REGEX).index
    for bad, error, message in ((VllmOptions.GRAMMAR, ArgumentError, "GRAMMAR.*is none of"),
                                ("lark", ArgumentError, "none of JSON, JSON_OBJECT, REGEX, CHOICE")):
        with pytest.raises(error, match=message):
            backend.compile_grammar(bad, "x")
    for kind, spec, error, message in (("choice", "[]", SchemaError, "non-empty JSON list"),
                                       ("choice", '["a", 1]', SchemaError, "list of strings"),
                                       ("json", "{not json", SchemaError, "spec is not JSON"),
                                       ("regex", 5, InputTypeError, "pattern")):
        with pytest.raises(error, match=message):
            backend.compile_grammar(kind, spec)
    with pytest.raises(ArgumentError, match="exactly one of tokenizer= or vocabulary="):
        BrzozowskiBackend()


def test_a_terminated_grammar_fills_eos_alone_rolls_back_and_resets():
    grammar = BrzozowskiBackend(vocabulary=VOCAB).compile_grammar("choice", ["maybe", "no"])
    assert grammar.find_jump_string() is None  # "m" or "n": a choice
    assert grammar.accept_tokens("r", [TOKENS.index(b"m")])
    assert grammar.find_jump_string() == "aybe"
    assert grammar.accept_tokens("r", [TOKENS.index(b"a"), TOKENS.index(b"y")])
    assert grammar.accept_tokens("r", [TOKENS.index(b"be"), EOS]) and grammar.is_terminated()
    out = allocate_bitmask(2, len(TOKENS))
    grammar.fill_bitmask(out, 1)
    assert allowed(out[1]) == [EOS] and (out[0] == -1).all()
    assert grammar.validate_tokens([EOS]) == [] and grammar.accept_tokens("r", [EOS]) is False
    with pytest.raises(MaskError, match="row 2 is not a row"):
        grammar.fill_bitmask(out, 2)
    grammar.rollback(1)
    assert not grammar.is_terminated() and grammar.validate_tokens([EOS]) == [EOS]
    with pytest.raises(TokenError, match="cannot roll back 9 tokens"):
        grammar.rollback(9)
    grammar.reset()
    assert grammar.num_processed_tokens == 0


def test_a_torch_bitmask_is_filled_in_place():
    import torch  # (the test extra installs it)

    backend = BrzozowskiBackend(vocabulary=VOCAB, tensors=True)
    bitmask = backend.allocate_token_bitmask(3)
    assert isinstance(bitmask, torch.Tensor) and bitmask.dtype == torch.int32
    grammar = backend.compile_grammar("regex", REGEX)
    grammar.fill_bitmask(bitmask, 2)
    assert np.array_equal(bitmask[2].numpy(), grammar.constraint.bitmask())
    assert (bitmask[0] == -1).all()


# -- the batch calls: fill_bitmasks, its executor path, and hostile arguments (issue 39) ----------

def batch(n, seed=0):
    rng = random.Random(seed)
    backend = BrzozowskiBackend(vocabulary=VOCAB)
    constraints = []
    for i in range(n):
        grammar = backend.compile_grammar(*REQUESTS[i % 3])
        for _ in range(rng.randint(0, 3)):
            out = allocate_bitmask(1, len(TOKENS))
            grammar.fill_bitmask(out, 0)
            choices = [t for t in allowed(out[0]) if t != EOS]
            if choices:
                grammar.accept_tokens("r", [rng.choice(choices)])
        constraints.append(grammar.constraint)
    return constraints


def test_fill_bitmasks_with_an_executor_writes_the_serial_rows():
    constraints = batch(3 * FILL_CHUNK + 5)
    serial = allocate_bitmask(len(constraints) + 2, len(TOKENS))
    fill_bitmasks(constraints, serial)
    with ThreadPoolExecutor(max_workers=2) as executor:
        parallel = allocate_bitmask(len(constraints) + 2, len(TOKENS))
        fill_bitmasks(constraints, parallel, executor=executor)
        assert np.array_equal(serial, parallel)
        for row, c in enumerate(constraints):
            assert np.array_equal(parallel[row], c.bitmask())
        assert (parallel[-2:] == -1).all()
        finished = Constraint(constraints[0].index)  # the choice request, finished: "no" then EOS
        for token in (TOKENS.index(b"no"), EOS):
            finished.advance(token)
        parallel[:] = -1
        with pytest.raises(TokenError, match=f"fill row {FILL_CHUNK + 1} of the bitmask"):
            fill_bitmasks(constraints[:FILL_CHUNK + 1] + [finished], parallel, executor=executor)
        assert (parallel == -1).all()  # checked before any row is written


def test_hostile_bitmask_arguments_raise_the_documented_errors():
    constraints = batch(2)
    out = allocate_bitmask(2, len(TOKENS))
    frozen = out.copy()
    frozen.setflags(write=False)
    with pytest.raises(MaskError, match=r"read-only: pass a writable array"):
        constraints[0].fill_bitmask(frozen, 0)
    with pytest.raises(MaskError, match=r"read-only"):
        fill_bitmasks(constraints, frozen)
    with pytest.raises(InputTypeError, match="needs a sequence .* not NoneType"):
        fill_bitmasks(None, out)
    with pytest.raises(InputTypeError, match="not list_iterator"):
        fill_bitmasks(iter(constraints), out)
    with pytest.raises(InputTypeError, match="row 1 of fill_bitmasks is str, not a Constraint"):
        fill_bitmasks([constraints[0], "x"], out)
    with pytest.raises(InputLimitError, match=r"shape \(1000000, 31250000\) takes 125000000000000 bytes.*"
                                              r"Limits.bitmask_bytes"):
        allocate_bitmask(10**6, 10**9)
    assert (out == -1).all()  # nothing was written by the refused calls
