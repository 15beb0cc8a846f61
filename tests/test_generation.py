"""Constrained generation end to end: JSON schema -> regex -> DFA -> masks over a real byte-level
vocabulary -> seeded sampling. Every finished document must parse and validate (pitfall 8 of
docs/semantics.md: test_constrained_generation_parses), and the `schema` and `demo` commands must say so too.

`test_constrained_generation_parses` needs a model-free, deterministic loop over a 100k-token
vocabulary, with a model that *tries* to break the JSON: so its "model" is a stand-in written for
this test (seeded noise, a bias toward short ASCII tokens and toward ending long values, and an
adversarial variant that prefers the tokens a loose constraint would let through). It knows nothing
of the schema: only the constraint makes the documents valid. The demo runs the real model
(SmolLM2 through llama.cpp); its tests are at the end. Oracles: strict UTF-8 decoding, json.loads
(no NaN, no duplicate keys), jsonschema, Python's re and our DFA.
"""

from __future__ import annotations

import json
import re

import jsonschema
import numpy as np
import pytest

from brzozowski import DEAD, json_schema_to_regex, regex_to_dfa
from brzozowski.cli import main
from brzozowski.demo import TOOLS, tool_call_schema
from brzozowski.runtime.constraint import Constraint, constrained_sample
from brzozowski.masks.index import TokenIndex
from brzozowski.runtime.sampling import SamplingParams
from brzozowski.vocab.tokenizers import load_tiktoken_vocab

TOOL_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"enum": ["search_flights", "book_hotel"]},
        "arguments": {
            "type": "object",
            "properties": {
                "origin": {"type": "string"},
                "destination": {"type": "string"},
                "passengers": {"type": "integer"},
                "budget": {"type": ["number", "null"]},
                "cabin": {"enum": ["economy", "business"]},
                "flexible": {"type": "boolean"},
                "stops": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
            },
            "required": ["origin", "destination", "passengers", "budget"],
            "additionalProperties": False,
        },
        "id": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    },
    "required": ["name", "arguments"],
}

N_REQUESTS = 40
MIN_FINISHED = 30
MAX_TOKENS = 160


@pytest.fixture(scope="module")
def cl100k():
    return load_tiktoken_vocab("cl100k_base")


def _is_tricky(b: bytes) -> bool:
    """Tokens that break JSON if a constraint lets them through: control bytes, bytes that are not
    UTF-8 by themselves (half characters), escapes, and the characters of malformed numbers."""
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return re.search(rb"[\x00-\x1f\x7f\\]|^[eE.+\-0]", b) is not None


class _Model:
    """Test stand-in: noise + bias toward short ASCII tokens; long strings/numbers push toward ending.

    An adversarial stand-in (``tricky=True``) also prefers the tokens a loose constraint would let
    break the JSON (`_is_tricky`): the guarantee must hold whatever the model wants.
    """

    def __init__(self, vocab, eos_id, tricky=False):
        short = re.compile(rb' ?[A-Za-z0-9]{1,8}|[\[\]{}",:]{1,3}')
        self.bias = np.array([-np.inf if not b else (2.0 if short.fullmatch(b) else 0.0) for b in vocab])
        if tricky:
            # single bytes most of all: "e", "-", "0", "\x0a", a lone lead byte
            self.bias += np.array([(3.0 + 3.0 * (len(b) == 1)) if b and _is_tricky(b) else 0.0 for b in vocab])
        self.bias[eos_id] = 3.0
        self.tricky = tricky
        self.quote = np.array([bool(b) and b[:1] == b'"' for b in vocab], dtype=float)
        self.closer = np.array([bool(b) and b[:1] in (b",", b"}", b"]") for b in vocab], dtype=float)
        # noise drawn once; each step reads a window at a random offset (a fresh draw of 100k
        # normals per step would cost more than everything else in the step)
        self.noise = np.random.default_rng(0).standard_normal(len(vocab) + 65536)

    def logits(self, text: bytes, rng: np.random.Generator) -> np.ndarray:
        start = int(rng.integers(65536))
        x = self.bias + self.noise[start:start + len(self.bias)]
        quotes = len(re.findall(rb'(?<!\\)"', text.replace(b"\\\\", b"")))
        if quotes % 2:  # inside a string: the longer it is, the likelier it ends
            x += 0.3 * (len(text) - text.rfind(b'"')) * self.quote
        elif self.tricky and text[-1:] in (b"e", b"E", b"+", b"-", b"."):
            x += 6.0 * self.closer  # try to end a number where it would be malformed
        elif text[-1:].isdigit():
            x += 1.0 * (len(text) - len(text.rstrip(b"0123456789.eE+-"))) * self.closer
        return x


def _strict_loads(doc: bytes):
    def pairs(items):
        keys = [k for k, _ in items]
        assert len(keys) == len(set(keys)), f"duplicate keys {keys}"
        return dict(items)

    def constant(name):
        raise AssertionError(f"{name} is not JSON")

    return json.loads(doc.decode("utf-8"), object_pairs_hook=pairs, parse_constant=constant)


@pytest.mark.slow  # the real cl100k_base vocabulary: ~8 s
def test_constrained_generation_parses(cl100k):
    vocab, eos = cl100k
    assert len(vocab) >= 100_000 and eos is not None
    regex = json_schema_to_regex(TOOL_SCHEMA)
    dfa = regex_to_dfa(regex)
    index = TokenIndex(dfa, vocab, eos_id=eos)
    models = [_Model(vocab, eos), _Model(vocab, eos, tricky=True)]
    validator = jsonschema.Draft202012Validator(TOOL_SCHEMA)
    settings = [SamplingParams(temperature=1.0), SamplingParams(temperature=0.7, top_k=50)]

    finished = []
    for i in range(N_REQUESTS):
        rng = np.random.default_rng([2026, i])
        model, params = models[i % 2], settings[i // 2 % 2]
        c = Constraint(index)
        history: list[int] = []
        text = b""
        while len(history) < MAX_TOKENS:
            token, _ = constrained_sample(model.logits(text, rng), c, params, history, rng)
            if c.done:
                break
            history.append(token)
            text += vocab[token]
            assert dfa.step(0, text) == c.state != DEAD  # the constraint follows the text exactly
        if not c.done:
            continue  # an unfinished text is still a prefix of the language (checked at each step)
        finished.append(text)
        value = _strict_loads(text)
        errors = [e.message for e in validator.iter_errors(value)]
        assert not errors, (text, errors)
        assert re.fullmatch(regex.encode(), text) and dfa.matches(text)

    assert len(finished) >= MIN_FINISHED, f"only {len(finished)} of {N_REQUESTS} finished in {MAX_TOKENS} tokens"
    # the documents differ, and optional arguments are sometimes there and sometimes not
    assert len(set(finished)) == len(finished)
    optional = [any(k in t for k in (b'"cabin"', b'"flexible"', b'"stops"')) for t in finished]
    assert any(optional) and not all(optional)


def _demo_answers(out: str) -> list[tuple[str, str, str]]:
    """(request title, "unconstrained"/"constrained", verdict line) and the document under it."""
    answers, title, lines = [], None, out.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("["):
            title = line.split("] ", 1)[1]
        for label in ("unconstrained", "constrained"):
            if line.startswith(f"  {label} "):
                answers.append((title, label, line, lines[i + 1].strip()))
    return answers


def test_demo_on_the_real_model_side_by_side(capsys):
    status = main(["demo", "-n", "4", "--seed", "3", "--max-tokens", "96"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "SmolLM2-135M-Instruct" in out and "STAND-IN" not in out
    answers = _demo_answers(out)
    assert [label for _, label, _, _ in answers] == ["unconstrained", "constrained"] * 4
    names = list(TOOLS)
    for i, (title, label, line, document) in enumerate(answers):
        assert title.startswith(names[i // 2] + ": ")
        assert re.search(r" \d+ tokens +[\d.]+ tok/s ", line), line
        if label == "constrained":  # the one-line documents the constraint produced are valid
            schema = tool_call_schema(names[i // 2], TOOLS[names[i // 2]].parameters)
            jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER).validate(
                _strict_loads(document.encode()))
            assert "valid (jsonschema)" in line and "% of the model's time per token" in line, line
    assert re.search(r"constrained: 4/4 valid, 4/4 finished within 96 tokens", out), out
    assert re.search(r"mask overhead per token .*: median [\d.]+%, p99 [\d.]+% over \d+ tokens", out), out


def test_demo_with_a_schema_file_a_regex_and_refused_input(tmp_path, capsys):
    good = tmp_path / "tool.json"
    good.write_text(json.dumps({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}))
    assert main(["demo", "--schema", str(good), "-n", "1", "--max-tokens", "40",
                 "--prompt", "Is the sky blue? Answer in JSON."]) == 0
    answers = _demo_answers(capsys.readouterr().out)
    assert answers[1][3] in ('{"ok": true}', '{"ok": false}') and "valid (jsonschema)" in answers[1][2]
    assert main(["demo", "--schema", str(good), "--separators", ",", ":", "-n", "1", "--max-tokens", "40",
                 "--prompt", "Is the sky blue? Answer in JSON."]) == 0
    answers = _demo_answers(capsys.readouterr().out)
    assert answers[1][3] in ('{"ok":true}', '{"ok":false}') and "valid (jsonschema)" in answers[1][2]

    assert main(["demo", "--regex", "(yes|no)", "-n", "1", "--max-tokens", "10"]) == 0
    answers = _demo_answers(capsys.readouterr().out)
    assert answers[1][3] in ("yes", "no") and "matches the regex" in answers[1][2]

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}))
    assert main(["demo", "--schema", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "remote references are refused" in err and "/properties/a/$ref" in err
    assert main(["demo", "--model", str(tmp_path / "none.gguf")]) == 2
    assert "no model file at" in capsys.readouterr().err


def test_schema_command_prints_regex_dfa_size_and_valid_samples(tmp_path, capsys):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(TOOL_SCHEMA))
    assert main(["schema", str(path), "-n", "5", "--seed", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    regex = json_schema_to_regex(TOOL_SCHEMA)
    assert out[1] == regex
    n_states = regex_to_dfa(regex).n_states
    assert any(line.startswith(f"DFA: {n_states} states") for line in out)
    samples = out[-5:]
    for line in samples:
        jsonschema.validate(_strict_loads(line.strip().encode()), TOOL_SCHEMA)

    for bad, expected in [("missing.json", "cannot read"), ("notjson.json", "not JSON")]:
        if bad == "notjson.json":
            (tmp_path / bad).write_text("{nope")
        assert main(["schema", str(tmp_path / bad)]) == 2
        assert expected in capsys.readouterr().err


def test_readme_shows_the_demo_tool_schema_as_embedded():
    """The README's demo schema is the embedded create_event tool, and it uses $defs, a format,
    bounds; the demo compiles it with json.dumps's separators."""
    from pathlib import Path

    from brzozowski.demo import SEPARATORS, tasks_for

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    block = readme.split("e.g. `create_event`:\n\n```json\n", 1)[1].split("```", 1)[0]
    parameters = TOOLS["create_event"].parameters
    assert json.loads(block) == parameters
    assert "$defs" in parameters and parameters["properties"]["date"]["format"] == "date"
    assert SEPARATORS == (", ", ": ")
    task = next(t for t in tasks_for(4) if t.schema["properties"]["name"]["const"] == "create_event")
    call = {"name": "create_event", "arguments": {"title": "Lunch", "date": "2025-06-12", "attendees": ["Ana"]}}
    assert task.automaton.matches(json.dumps(call).encode())
    assert not task.automaton.matches(json.dumps(call, separators=(",", ":")).encode())
    call["arguments"]["date"] = "2025-02-30"  # no such day: the format is enforced
    assert not task.automaton.matches(json.dumps(call).encode())
