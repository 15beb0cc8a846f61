"""The ``format`` automata against jsonschema's format checker (Draft 2020-12): a seeded slice of the
differential fuzzer (`benchmarks/fuzz_formats.py`), the strings of issue 39, and Hypothesis soundness
of string schemas with formats beside length bounds and patterns.

Oracles: ``jsonschema.Draft202012Validator.FORMAT_CHECKER`` on each decoded string (for
``iri``/``iri-reference`` the fuzzer's transcription of the checker's grammar, with the checker itself
confirming every accepted string and every disagreement), and ``jsonschema`` validation of
``json.loads`` of each accepted document."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from brzozowski import DEAD, compile_json_schema, explain_json_schema
from brzozowski.budget import Limits
from brzozowski.errors import SchemaError
from brzozowski.json.formats import FORMAT_PATTERNS, NARROWER

_spec = importlib.util.spec_from_file_location(
    "fuzz_formats", Path(__file__).resolve().parent.parent / "benchmarks" / "fuzz_formats.py")
fuzz = sys.modules.setdefault("fuzz_formats", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(fuzz)

#: Strings per format in CI (the benchmark runs 100,000); the iri checker costs milliseconds a string.
CI_COUNT = {"iri": 1000, "iri-reference": 1000}
CI_DEFAULT = 3000


@pytest.mark.parametrize("name", sorted(FORMAT_PATTERNS))
def test_no_string_the_checker_refuses_is_accepted_in_any_spelling(name):
    """Over a seeded slice of the fuzzer (automaton walks, grammar strings, mutations, random text,
    each in raw, ``\\u``-escaped, surrogate-pair and ``\\/`` spellings), no spelling of a string the
    checker refuses is accepted; a format `NARROWER` does not list refuses no string the checker
    takes; and the iri transcription agrees with the checker wherever the checker was asked."""
    result = fuzz.fuzz_format(name, CI_COUNT.get(name, CI_DEFAULT), seed=39, sample=100)
    assert result.tried == CI_COUNT.get(name, CI_DEFAULT)
    assert result.accepted_invalid == []
    assert result.oracle_mismatch == []
    if name not in NARROWER:
        assert result.refused_valid == []


def _document_matches(schema, text: bytes) -> bool:
    dfa = compile_json_schema(schema)
    state = dfa.step(dfa.start, text)
    return state != DEAD and dfa.is_accepting(state)


ISSUE_39 = [
    ("iri", rb'"\u0071://[:\u003ae:c27\u005d/%47#"'),
    ("iri", rb'"\u006F\u007AmJ://[\u0044\u003A:]"'),
    ("iri-reference", rb'"\//[\u0041:\u0044A\u0039\u003AD3:D1::]\u003A"'),
]


@pytest.mark.parametrize("name, text", ISSUE_39)
def test_the_ip_literals_of_issue_39_are_refused_raw_and_escaped(name, text):
    """The three documents of issue 39 (IPv6 literals the checker's IRI grammar refuses, written with
    ``\\u`` escapes) and their raw spellings are refused; the checker refuses them too."""
    decoded = json.loads(text)
    assert not fuzz.checker_valid(name, decoded)
    schema = {"type": "string", "format": name}
    assert not _document_matches(schema, text)
    assert not _document_matches(schema, json.dumps(decoded).encode())


@pytest.mark.parametrize("name, decoded", [
    ("iri", "q://[1:2:3:4:5:6:7:8]/%47#"),
    ("iri", "q://[::e:c27:0:0:0:0:1]"),
    ("iri-reference", "//[A:DA9:D3:D1::5:6:7]:"),
    ("iri", "http://[v7.a:b]/é?\ue000#x"),
    ("uri", "http://[v7.a:b]/"),
])
def test_ip_literals_and_non_ascii_the_checker_takes_are_accepted_in_every_spelling(name, decoded):
    """IPv6 literals of the checker's forms, IPvFuture literals and IRI characters (``ucschar``,
    ``iprivate`` in the query) are accepted raw and escaped."""
    assert fuzz.checker_valid(name, decoded)
    schema = {"type": "string", "format": name}
    for text in fuzz.spellings(decoded, random.Random(0)):
        assert _document_matches(schema, text), text


def test_explain_names_the_iri_narrowing():
    """The narrowing the IRI forms keep (IPv6 literals as the checker reads them) is reported."""
    lines = explain_json_schema({"type": "string", "format": "iri"})
    assert any("format iri" in line and "exactly one group" in line for line in lines)


# --- Hypothesis: random string schemas with formats ----------------------------------------------

_PATTERNS = [None, None, None, "^[a-z]", "[0-9]$", "a", ":", "\\.", "-", "^.{0,24}$", "[^a-z]", "/"]


def _walk(dfa, rng: random.Random, limit: int = 160) -> bytes | None:
    """A random document of `dfa`: a random live byte each step, ending where accepting with
    probability 1/6 (None: no end within `limit` bytes)."""
    state, text = dfa.start, bytearray()
    for _ in range(limit):
        if dfa.is_accepting(state) and (rng.random() < 1 / 6):
            return bytes(text)
        live = np.flatnonzero(dfa.row(state) != DEAD)
        if not len(live):
            return bytes(text) if dfa.is_accepting(state) else None
        b = int(live[rng.randrange(len(live))])
        text.append(b)
        state = dfa.next_state(state, b)
    return None


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(sorted(FORMAT_PATTERNS)),
    fewest=st.sampled_from([None, None, 0, 1, 5, 12, 30]),
    most=st.sampled_from([None, None, 4, 10, 20, 40]),
    pattern=st.sampled_from(_PATTERNS),
    any_whitespace=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_every_document_a_string_schema_with_a_format_accepts_validates(name, fewest, most, pattern,
                                                                       any_whitespace, seed):
    """For random ``{"type": "string", "format": f}`` schemas with ``minLength``/``maxLength``/``pattern``
    beside, ``any_whitespace`` on and off, every document a random walk of the compiled automaton
    ends on is valid for the schema (jsonschema with the draft's format checker). A schema no
    document satisfies is refused with `SchemaError`."""
    schema = {"type": "string", "format": name}
    if fewest is not None:
        schema["minLength"] = fewest
    if most is not None:
        schema["maxLength"] = most
    if pattern is not None:
        schema["pattern"] = pattern
    try:
        # (no wall-clock budget: this test judges documents, not time; a loaded machine must not fail it)
        dfa = compile_json_schema(schema, any_whitespace=any_whitespace, limits=Limits(compile_seconds=None))
    except SchemaError as error:  # a contradiction (a date matching ^[a-z]): no document to try
        assert "no document satisfies" in str(error)
        event("no document")
        return
    validator = jsonschema.Draft202012Validator(schema, format_checker=fuzz.CHECKER)
    rng = random.Random(seed)
    walked = 0
    for _ in range(5):
        text = _walk(dfa, rng)
        if text is not None:
            walked += 1
            assert validator.is_valid(json.loads(text)), (schema, text)
    event(f"documents walked: {walked}")

