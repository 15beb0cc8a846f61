"""The golden masks file: our TokenIndex, Constraint and tables against it; its regeneration; the
derivative oracle against TokenIndex on random patterns; corrupted files reported by case and step.
"""

from __future__ import annotations

import copy
import json
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brzozowski.automata.dfa
import brzozowski.automata.lazy
import brzozowski.masks.index
from brzozowski.cli import main
from brzozowski.runtime.constraint import Constraint
from brzozowski.automata.dfa import regex_to_dfa
from brzozowski.errors import GoldenError, GoldenMismatchError
from brzozowski.golden import (
    DEFAULT_GOLDEN_PATH,
    FORMAT,
    VERSION,
    Oracle,
    assert_golden,
    check_golden,
    dumps_golden,
    ids_to_ranges,
    load_golden,
    ranges_to_ids,
)
from brzozowski.golden.cases import (
    CASES,
    EDGE_VOCAB,
    TOOL_SCHEMA,
    PathSpec,
    _walk,
    build_golden,
)
from brzozowski.golden.document import rows_to_trans, table_rows
from brzozowski.automata.lazy import LazyDFA
from brzozowski.masks.index import TokenIndex
from brzozowski.core.syntax import parse
from brzozowski.json.strict import json_schema_to_regex

from .corpus import HAND, HAND_EOS, HAND_MASKS, HAND_STATE_TEXT, HAND_VOCAB
from .strategies import ALPHABET, patterns

README = DEFAULT_GOLDEN_PATH.parent / "README.md"


@pytest.fixture(scope="module")
def golden() -> dict:
    return load_golden(DEFAULT_GOLDEN_PATH)


def _case(data: dict, name: str) -> dict:
    return next(c for c in data["cases"] if c["name"] == name)


# -- the file against our implementation ---------------------------------------------------------


@pytest.mark.parametrize("automaton", ["dfa", "lazy"])
def test_masks_match_the_golden_file(golden, automaton):
    """Our masks and Constraint.is_complete equal the file at every recorded step (over the
    canonical DFA and over a LazyDFA), and our canonical tables equal the recorded ones."""
    mismatches = check_golden(golden, automaton=automaton)
    assert mismatches == [], "\n".join(map(str, mismatches))
    # the same, spelled out without the checker, for the tables
    for case in golden["cases"]:
        dfa = regex_to_dfa(case["regex"])
        assert dfa.n_states == case["tables"]["n_states"], case["name"]
        assert np.flatnonzero(dfa.accept).tolist() == case["tables"]["accepting"], case["name"]
        assert np.array_equal(rows_to_trans(case["tables"]["trans"]), dfa.trans), case["name"]


def test_the_hand_example_in_the_file_is_the_documented_table(golden):
    """docs/semantics.md, the hand example: the masks of states 0, 3, 5, 6 over its 15-token
    vocabulary, as the file records them."""
    vocab = golden["vocabularies"]["hand"]
    assert [None if h is None else bytes.fromhex(h) for h in vocab["tokens"]] == HAND_VOCAB
    assert vocab["eos_id"] == HAND_EOS and vocab["special_ids"] == [HAND_EOS]
    case = _case(golden, "hand_example")
    masks = [ranges_to_ids(m) for m in case["masks"]]
    spec = {HAND_STATE_TEXT[s]: HAND_MASKS[s] for s in (0, 3, 5, 6)}
    seen = set()
    for path in case["paths"]:
        text = b""
        for k, m in enumerate(path["mask"]):
            if text in spec:
                assert masks[m] == spec[text], (text, masks[m])
                seen.add(text)
            assert path["complete"][k] == bool(re.fullmatch(HAND.encode(), text))
            if k < len(path["tokens"]) and path["tokens"][k] != HAND_EOS:
                text += HAND_VOCAB[path["tokens"][k]]
    assert seen == set(spec)


def test_the_file_has_the_cases_and_paths_the_issue_asks_for(golden):
    assert golden["format"] == FORMAT and golden["version"] == VERSION
    names = [c["name"] for c in golden["cases"]]
    assert names == [spec.name for spec in CASES]
    assert {"hand_example", "tool_call", "utf8_strings", "bounded_repeats", "optional_properties",
            "enum_anyof"} <= set(names)
    subset = golden["vocabularies"]["o200k_subset"]
    tokens = [None if h is None else bytes.fromhex(h) for h in subset["tokens"]]
    assert len(tokens) >= 3000
    assert {t for t in tokens if t is not None and len(t) == 1} == {bytes([b]) for b in range(256)}
    assert subset["special_ids"] == [i for i, t in enumerate(tokens) if t is None]
    assert subset["eos_id"] in subset["special_ids"]
    assert len(ranges_to_ids(subset["source"]["original_ids"])) == len(tokens)

    def utf8(t: bytes) -> bool:
        try:
            t.decode()
        except UnicodeDecodeError:
            return False
        return True

    multi = [t for t in tokens if t and len(t) >= 2 and not t.isascii()]
    assert sum(map(utf8, multi)) >= 500 and sum(not utf8(t) for t in multi) >= 300  # half characters
    assert sum(1 for t in tokens if t and t.strip(b" ") and set(t) <= set(b'{}[]":,')) >= 50
    for case in golden["cases"]:
        paths = case["paths"]
        assert len(paths) >= 4, case["name"]
        assert any(p["ends_with_eos"] for p in paths), case["name"]
        for p in paths:
            steps = len(p["tokens"]) + (0 if p["ends_with_eos"] else 1)
            assert len(p["mask"]) == len(p["complete"]) == steps, (case["name"], p["policy"])
    for name in ("tool_call", "utf8_strings"):
        longest = max(len(p["tokens"]) for p in _case(golden, name)["paths"])
        assert longest >= 100, name
    # the UTF-8 case walks through the refusal edges: after E0, ED, F0 and F4 the file's masks
    # refuse exactly the overlong / surrogate / beyond-U+10FFFF single-byte continuations
    case = _case(golden, "utf8_strings")
    masks = [set(ranges_to_ids(m)) for m in case["masks"]]
    single = {t[0]: i for i, t in reversed(list(enumerate(tokens))) if t is not None and len(t) == 1}
    refused = {0xE0: range(0x80, 0xA0), 0xED: range(0xA0, 0xC0), 0xF0: range(0x80, 0x90),
               0xF4: range(0x90, 0xC0)}
    checked = set()
    for p in case["paths"]:
        for k, t in enumerate(p["tokens"]):
            if tokens[t] and len(tokens[t]) == 1 and tokens[t][0] in refused and k + 1 < len(p["mask"]):
                allowed = masks[p["mask"][k + 1]]
                lead = tokens[t][0]
                assert not {single[b] for b in refused[lead]} & allowed, hex(lead)
                assert single[{0xE0: 0xA0, 0xED: 0x9F, 0xF0: 0x90, 0xF4: 0x8F}[lead]] in allowed
                checked.add(lead)
    assert checked == set(refused)


def test_the_readme_documents_every_key_of_the_file(golden):
    """fixtures/README.md names every key that occurs in the file (as `key`)."""
    documented = set(re.findall(r"`([a-z0-9_]+)`", README.read_text(encoding="utf-8")))
    keys: set[str] = set()

    def collect(value):
        if isinstance(value, dict):
            keys.update(value)
            for v in value.values():
                collect(v)
        elif isinstance(value, list):
            for v in value:
                collect(v)

    collect(golden)
    assert keys - documented == set()
    for case in golden["cases"]:
        assert f"`{case['name']}`" in README.read_text(encoding="utf-8")


def test_regenerating_reproduces_the_file_byte_for_byte():
    text = dumps_golden(build_golden())
    recorded = DEFAULT_GOLDEN_PATH.read_bytes()
    assert text.encode("ascii") == recorded, (
        "fixtures/masks_golden.json is stale or generation is not deterministic: run "
        "`brzozowski golden` and review the diff"
    )
    assert len(recorded) < 5_000_000


# -- the oracle -----------------------------------------------------------------------------------


def test_oracle_on_the_hand_example():
    oracle = Oracle(HAND, HAND_VOCAB, eos_id=HAND_EOS)
    for state, text in HAND_STATE_TEXT.items():
        assert oracle.mask_after(text) == HAND_MASKS[state], state
    assert oracle.mask_after(b"x") == []  # nothing after a dead text
    d = oracle.after(b"ca")
    assert oracle.advance(d, 11).nullable and oracle.advance(d, 12) is oracle.after(b"xyz")
    assert oracle.advance(oracle.after(b"cat"), HAND_EOS) is oracle.after(b"cat")  # EOS: same text


def test_oracle_never_allows_special_or_empty_tokens_and_eos_only_when_complete():
    vocab = EDGE_VOCAB
    oracle = Oracle(r"(?:a|b\x00|\xff\n){2,5}b{0,3}", vocab, eos_id=12)
    for text in (b"", b"a", b"aa", b"ab\x00", b"aab", b"aaaaab"):
        allowed = oracle.mask_after(text)
        assert not {3, 4, 17} & set(allowed)
        assert (12 in allowed) == bool(re.fullmatch(rb"(?:a|b\x00|\xff\n){2,5}b{0,3}", text))
        assert (0 in allowed) == (5 in allowed)  # duplicate tokens agree


def test_the_oracle_uses_no_automaton(monkeypatch):
    """The oracle's masks and paths work with DFA, LazyDFA and TokenIndex unusable."""

    def boom(*args, **kwargs):
        raise AssertionError("the oracle touched an automaton")

    monkeypatch.setattr(brzozowski.automata.dfa, "regex_to_dfa", boom)
    monkeypatch.setattr(brzozowski.automata.lazy.LazyDFA, "__init__", boom)
    monkeypatch.setattr(brzozowski.masks.index.TokenIndex, "__init__", boom)
    monkeypatch.setattr(brzozowski.masks.index, "vocab_trie", boom)
    import random

    oracle = Oracle(json_schema_to_regex(json.loads(TOOL_SCHEMA)), EDGE_VOCAB + [b'{"', b"tool"], 12)
    tokens = _walk(oracle, PathSpec("random", max_length=5), random.Random(1), "test")
    assert tokens and tokens[0] == len(EDGE_VOCAB)  # only '{"' can start the document
    assert oracle.mask_after(b'{"') == [len(EDGE_VOCAB) + 1]


vocabularies = st.lists(
    st.one_of(
        st.none(),
        st.binary(max_size=3).map(lambda bs: bytes(ALPHABET[b % len(ALPHABET)] for b in bs)),
    ),
    min_size=1,
    max_size=14,
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=patterns, vocab=vocabularies, data=st.data())
def test_oracle_and_token_index_agree_on_random_paths(pattern, vocab, data):
    """Beyond the recorded cases: on random patterns and vocabularies, along a random path chosen
    by the oracle, TokenIndex (over the DFA and over a LazyDFA) and Constraint agree with it."""
    eos_id = data.draw(st.one_of(st.none(), st.integers(0, len(vocab) - 1)), label="eos_id")
    oracle = Oracle(pattern, vocab, eos_id)
    dfa = regex_to_dfa(pattern)
    constraints = [
        Constraint(TokenIndex(dfa, vocab, eos_id=eos_id)),
        Constraint(TokenIndex(LazyDFA(pattern), vocab, eos_id=eos_id)),
    ]
    d = oracle.term
    text = b""
    for _ in range(data.draw(st.integers(0, 10), label="length")):
        expected = list(oracle.allowed(d))
        for c in constraints:
            assert np.flatnonzero(c.mask()).tolist() == expected, (pattern, vocab, text)
            assert c.is_complete() == d.nullable, (pattern, text)
        assert d.nullable == dfa.matches(text)
        if not expected:
            break
        t = data.draw(st.sampled_from(expected), label="token")
        for c in constraints:
            c.advance(t)
        if t == eos_id:
            assert all(c.done for c in constraints)
            break
        text += vocab[t]
        d = oracle.advance(d, t)
        assert d is oracle.after(text)
        assert constraints[0].state == dfa.step(0, text)


# -- encodings ------------------------------------------------------------------------------------


@given(st.sets(st.integers(0, 300)))
def test_id_ranges_round_trip(ids):
    ranges = ids_to_ranges(sorted(ids))
    assert ranges_to_ids(ranges) == sorted(ids)
    assert all(lo <= hi for lo, hi in ranges)
    assert all(a[1] + 1 < b[0] for a, b in zip(ranges, ranges[1:]))  # maximal: never touching


def test_table_rows_round_trip_and_are_maximal():
    dfa = regex_to_dfa(json_schema_to_regex({"type": "string"}))
    rows = table_rows(dfa.trans)
    assert np.array_equal(rows_to_trans(rows), dfa.trans)
    for runs in rows:
        for (lo1, hi1, t1), (lo2, _, t2) in zip(runs, runs[1:]):
            assert hi1 < lo2 and not (hi1 + 1 == lo2 and t1 == t2)


# -- corrupted files and broken implementations are reported --------------------------------------


def _flip_one_id(data: dict, name: str, p: int, k: int, token: int) -> None:
    """Toggle `token` in the mask of one step only (the shared mask is copied first)."""
    case = _case(data, name)
    ids = set(ranges_to_ids(case["masks"][case["paths"][p]["mask"][k]]))
    ids ^= {token}
    case["masks"].append(ids_to_ranges(sorted(ids)))
    case["paths"][p]["mask"][k] = len(case["masks"]) - 1


def test_a_corrupted_golden_file_is_reported_by_case_and_step(golden, tmp_path):
    data = copy.deepcopy(golden)
    # 1. one allowed id removed at one step: hand example, path 0 ("cat" "s" EOS), step 1 allows s, EOS;
    #    we allow it and the file does not, so it is an extra id
    _flip_one_id(data, "hand_example", 0, 1, 7)
    # 2. one id added at one step deep in a long tool-call path: missing from our mask
    tool = _case(data, "tool_call")
    p = max(range(len(tool["paths"])), key=lambda i: len(tool["paths"][i]["tokens"]))
    step = 100
    allowed = set(ranges_to_ids(tool["masks"][tool["paths"][p]["mask"][step]]))
    extra = min(set(range(len(data["vocabularies"]["o200k_subset"]["tokens"]))) - allowed)
    _flip_one_id(data, "tool_call", p, step, extra)
    # 3. one completeness flag flipped
    data_case = _case(data, "bounded_repeats")
    data_case["paths"][1]["complete"][3] ^= True
    # 4. one table entry changed: the hand example's state 3 sends 'r' to 4 instead of 5
    runs = _case(data, "hand_example")["tables"]["trans"][3]
    assert runs == [[114, 114, 5], [116, 116, 5]]
    runs[0][2] = 4

    mismatches = check_golden(data, cases=["hand_example", "tool_call", "bounded_repeats"])
    found = {(m.case, m.what, m.path, m.step): m for m in mismatches}
    assert set(found) == {
        ("hand_example", "mask", 0, 1),
        ("tool_call", "mask", p, step),
        ("bounded_repeats", "complete", 1, 3),
        ("hand_example", "trans", None, None),
    }, [str(m) for m in mismatches]
    assert found["hand_example", "mask", 0, 1].extra == [7]
    assert found["hand_example", "mask", 0, 1].missing == []
    assert found["tool_call", "mask", p, step].missing == [extra]
    assert found["tool_call", "mask", p, step].extra == []
    assert "state 3" in found["hand_example", "trans", None, None].detail
    assert "byte 0x72 -> 5 (file 4)" in found["hand_example", "trans", None, None].detail
    assert str(found["hand_example", "mask", 0, 1]).startswith(
        "case 'hand_example' path 0 step 1: mask: extra ids [7], missing ids []"
    )

    # the command line: exit status 1 and the report on stderr; the intact file passes
    bad = tmp_path / "bad.json"
    bad.write_text(dumps_golden(data), encoding="ascii")
    with pytest.raises(GoldenMismatchError, match=r"case 'hand_example' path 0 step 1"):
        assert_golden(bad, cases=["hand_example"])
    assert main(["golden", "--check", "--path", str(bad), "--case", "hand_example"]) == 1
    assert main(["golden", "--check", "--case", "hand_example", "--case", "bounded_repeats"]) == 0


def test_a_wrong_recorded_token_or_accepting_state_is_reported(golden):
    data = copy.deepcopy(golden)
    case = _case(data, "hand_example")
    case["paths"][1]["tokens"][0] = 12  # "x" instead of "dog": refused by our Constraint
    case["tables"]["accepting"] = [5]
    case["paths"][2]["complete"].pop()  # one step short
    data["vocabularies"]["hand"]["special_ids"] = [12, 13]
    found = {(m.what, m.path, m.step): m for m in check_golden(data, cases=["hand_example"])}
    assert ("token", 1, 0) in found and "not allowed" in found["token", 1, 0].detail
    assert found["accepting", None, None].extra == [6]
    assert "need 4 steps" in found["format", 2, None].detail
    vocabulary = [m for m in check_golden(data, cases=[]) if m.case == "vocabulary hand"]
    assert vocabulary and vocabulary[0].what == "format"


def test_a_broken_token_index_is_caught(golden, monkeypatch):
    """Pitfall 4 (EOS allowed everywhere) in our TokenIndex: the file catches it."""
    original = TokenIndex.mask

    def eos_everywhere(self, state):
        mask = original(self, state).copy()
        mask[self.eos_id] = True
        return mask

    monkeypatch.setattr(TokenIndex, "mask", eos_everywhere)
    mismatches = check_golden(golden, cases=["hand_example"])
    assert mismatches and all(m.what == "mask" and m.extra == [13] for m in mismatches)
    assert any(m.path == 0 and m.step == 0 for m in mismatches)


def test_files_that_are_not_golden_files_are_refused(tmp_path):
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"format": FORMAT, "version": VERSION + 1}))
    with pytest.raises(GoldenMismatchError, match="version"):
        load_golden(path)
    path.write_text("[]")
    with pytest.raises(GoldenMismatchError, match="not a golden file"):
        load_golden(path)
    with pytest.raises(GoldenMismatchError, match="cannot read"):
        load_golden(tmp_path / "missing.json")
    assert main(["golden", "--check", "--path", str(tmp_path / "missing.json")]) == 2


# -- malformed files are mismatches, never crashes; our own bugs are not "format" ------------------


def _set(path: tuple, value):
    """A corruption: set the member at `path` (keys and indices from the document's root)."""

    def corrupt(data: dict) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        if value is _DELETE:
            del target[path[-1]]
        else:
            target[path[-1]] = value

    return corrupt


_DELETE = object()
_HAND = ("cases", 0)  # hand_example is the first case
_CORRUPTIONS = {
    "a range of 10**12 ids": _set(_HAND + ("masks", 0, 0), [0, 10**12]),
    "a reversed range": _set(_HAND + ("masks", 0, 1), [9, 3]),
    "overlapping ranges": _set(_HAND + ("masks", 0), [[0, 4], [2, 3]]),
    "a token id as a string": _set(_HAND + ("paths", 0, "tokens", 0), "9"),
    "a token id as a float": _set(_HAND + ("paths", 0, "tokens", 0), 9.0),
    "a token id as Infinity": _set(_HAND + ("paths", 0, "tokens", 0), float("inf")),
    "a token id beyond the vocabulary": _set(_HAND + ("paths", 0, "tokens", 0), 15),
    "a mask index out of range": _set(_HAND + ("paths", 0, "mask", 0), 99),
    "a flag that is an integer": _set(_HAND + ("paths", 0, "complete", 0), 1),
    "ends_with_eos missing": _set(_HAND + ("paths", 0, "ends_with_eos"), _DELETE),
    "ends_with_eos contradicting the tokens": _set(_HAND + ("paths", 0, "ends_with_eos"), False),
    "EOS in the middle of a path": _set(_HAND + ("paths", 0, "tokens"), [9, 13, 7]),
    "a path that is null": _set(_HAND + ("paths", 1), None),
    "paths as an object": _set(_HAND + ("paths",), {}),
    "n_states as a string": _set(_HAND + ("tables", "n_states"), "7"),
    "a byte run past 255": _set(_HAND + ("tables", "trans", 0, 0), [0, 300, 1]),
    "a run to a state that does not exist": _set(_HAND + ("tables", "trans", 0, 0), [99, 99, 12]),
    # one past the end of each range (the hand example has 7 states and 15 tokens)
    "a run to the state one past the last": _set(_HAND + ("tables", "trans", 0, 0), [99, 99, 7]),
    "an accepting state one past the last": _set(_HAND + ("tables", "accepting", 0), 7),
    "a mask id one past the vocabulary": _set(_HAND + ("masks", 0), [[14, 15]]),
    "an eos_id one past the vocabulary": _set(("vocabularies", "hand", "eos_id"), 15),
    "a mask index one past the last": _set(_HAND + ("paths", 0, "mask", 0), 7),  # 7 masks, 0..6
    "a run of two numbers": _set(_HAND + ("tables", "trans", 0, 0), [99, 99]),
    "an accepting state as NaN": _set(_HAND + ("tables", "accepting", 0), float("nan")),
    "the regex missing": _set(_HAND + ("regex",), _DELETE),
    "the source a string": _set(_HAND + ("source",), HAND),
    "an unknown source kind": _set(_HAND + ("source", "kind"), "grammar"),
    "an unknown vocabulary": _set(_HAND + ("vocabulary",), "nope"),
    "the case a list": _set(_HAND, []),
    "a vocabulary token that is not hex": _set(("vocabularies", "hand", "tokens", 0), "zz"),
    "an eos_id of 1e300": _set(("vocabularies", "hand", "eos_id"), 1e300),
    "the vocabulary a number": _set(("vocabularies", "hand"), 5),
}

_VOCABULARY_CORRUPTIONS = {
    "a vocabulary token that is not hex", "an eos_id of 1e300", "an eos_id one past the vocabulary",
    "the vocabulary a number",
}


@pytest.mark.parametrize("name", sorted(_CORRUPTIONS))
def test_a_malformed_case_is_a_format_mismatch_at_its_place(golden, name):
    data = copy.deepcopy(golden)
    data["cases"] = data["cases"][:1]
    _CORRUPTIONS[name](data)
    mismatches = check_golden(data)
    assert mismatches, name
    assert all(m.what == "format" for m in mismatches), [str(m) for m in mismatches]
    if name in _VOCABULARY_CORRUPTIONS:  # the vocabulary itself is named, not only the cases over it
        assert mismatches[0].case == "vocabulary hand" and "/vocabularies/hand" in mismatches[0].detail
    case_level = [m for m in mismatches if not m.case.startswith("vocabulary ")]
    assert case_level and "malformed at /cases/0" in case_level[0].detail, [str(m) for m in mismatches]
    assert len(str(case_level[0])) < 400


def test_a_malformed_vocabulary_leaves_the_other_vocabularies_and_their_cases_checked(golden):
    data = copy.deepcopy(golden)
    data["vocabularies"]["edge"]["eos_id"] = -1  # "edge" sorts first
    found = check_golden(data, cases=["hand_example", "bounded_array", "bounded_repeats_edge_vocab"])
    assert [(m.case, m.what) for m in found] == [("vocabulary edge", "format"), ("bounded_repeats_edge_vocab", "format")]
    assert "/vocabularies/edge/eos_id" in found[0].detail
    assert "the name of a well-formed vocabulary" in found[1].detail


def test_a_regex_that_does_not_compile_is_a_regex_mismatch(golden):
    data = copy.deepcopy(golden)
    case = _case(data, "hand_example")
    case["regex"] = "(cat"
    found = check_golden(data, cases=["hand_example"])
    assert [m.what for m in found] == ["regex", "regex"]
    assert "does not compile" in found[1].detail and "missing )" in found[1].detail
    schema_case = _case(data, "bounded_array")
    schema_case["source"]["schema"] = "{not json"
    found = check_golden(data, cases=["bounded_array"])
    assert [m.what for m in found] == ["regex"] and "not JSON" in found[0].detail


def test_malformed_files_are_reported_not_raised(golden, tmp_path):
    path = tmp_path / "g.json"
    data = copy.deepcopy(golden)
    data["cases"] = data["cases"][:1]
    data["cases"][0]["paths"][0]["tokens"][0] = float("inf")
    path.write_text(json.dumps(data), encoding="ascii")  # json.dumps writes Infinity
    assert "Infinity" in path.read_text()
    assert [m.what for m in check_golden(path)] == ["format"]
    assert main(["golden", "--check", "--path", str(path)]) == 1

    path.write_text("[" * 100_000 + "]" * 100_000)  # deeper than Python's JSON parser goes
    with pytest.raises(GoldenMismatchError, match="nests too deep"):
        check_golden(path)
    assert main(["golden", "--check", "--path", str(path)]) == 2
    path.write_bytes(b"\xff\xfe{}")
    with pytest.raises(GoldenMismatchError, match="cannot read"):
        check_golden(path)
    for document in ({"vocabularies": [], "cases": []}, {"cases": {}}, {}):
        assert [m.what for m in check_golden(document)] == ["format"]


def test_a_bug_of_ours_is_not_reported_as_a_format_mismatch(golden, monkeypatch):
    """The checker validates the file's shape explicitly and catches nothing wholesale: an
    IndexError/KeyError/TypeError from our own code propagates (the old checker turned them into
    "format" mismatches)."""

    for error in (IndexError, KeyError, TypeError):
        def broken(self, state, error=error):
            raise error("a bug in TokenIndex.mask")

        monkeypatch.setattr(TokenIndex, "mask", broken)
        with pytest.raises(error, match="a bug in TokenIndex.mask"):
            check_golden(golden, cases=["hand_example"])


# -- issue 15: the lazy variant walks the lazy automaton; a swapped id is named ---------------------


def test_checking_over_the_lazy_automaton_walks_a_lazy_dfa(golden, monkeypatch):
    """automaton="lazy" must index a LazyDFA of the case's regex, not the DFA (a checker that
    silently used the DFA passed the old tests). Two proofs: the LazyDFA built for the case is
    explored (all 7 states of the hand example), and a LazyDFA broken to accept nothing is caught
    over "lazy" but not over "dfa"."""
    indexed: list = []
    original_init = TokenIndex.__init__

    def spy(self, automaton, *args, **kwargs):
        original_init(self, automaton, *args, **kwargs)
        indexed.append(automaton)

    monkeypatch.setattr(TokenIndex, "__init__", spy)
    assert check_golden(golden, cases=["hand_example"], automaton="lazy") == []
    assert [type(a).__name__ for a in indexed] == ["LazyDFA"]
    assert indexed[0].n_states == 7 and indexed[0].term(0) is parse(HAND)
    indexed.clear()
    assert check_golden(golden, cases=["hand_example"], automaton="dfa") == []
    assert [type(a).__name__ for a in indexed] == ["DFA"]

    def broken_lazy(self, automaton, *args, **kwargs):  # an index whose LazyDFA accepts nothing
        if isinstance(automaton, LazyDFA):
            automaton.is_accepting = lambda state: False
        original_init(self, automaton, *args, **kwargs)

    monkeypatch.setattr(TokenIndex, "__init__", broken_lazy)
    assert check_golden(golden, cases=["hand_example"], automaton="dfa") == []
    broken = check_golden(golden, cases=["hand_example"], automaton="lazy")
    assert {m.what for m in broken} >= {"mask", "complete"}
    assert all(m.missing == [13] and m.extra == [] for m in broken if m.what == "mask")


def test_an_id_swapped_for_another_of_the_same_mask_size_is_named(golden):
    """A checker that compared masks by size only passed the old corruption tests (they only add
    or remove ids). Swap one allowed id for a forbidden one: same size, both ids named."""
    data = copy.deepcopy(golden)
    case = _case(data, "hand_example")
    m = case["paths"][0]["mask"][0]  # step 0: {0, 4, 8, 9, 10}
    assert ranges_to_ids(case["masks"][m]) == HAND_MASKS[0] == [0, 4, 8, 9, 10]
    swapped = [0, 4, 8, 9, 11]  # 10 ("dog") out, 11 ("ts") in: five ids either way
    case["masks"].append(ids_to_ranges(swapped))
    case["paths"][0]["mask"][0] = len(case["masks"]) - 1
    found = [m for m in check_golden(data, cases=["hand_example"]) if m.what == "mask"]
    assert [(m.path, m.step, m.extra, m.missing) for m in found] == [(0, 0, [10], [11])]
    assert "extra ids [10], missing ids [11]" in str(found[0])


def test_a_mask_mismatch_shows_the_last_40_bytes_of_text_read_before_its_step(golden):
    """The detail of a mask mismatch quotes the text the path's tokens spelled before the step (the
    last 40 bytes of it), the EOS and special tokens spelling nothing."""
    data = copy.deepcopy(golden)
    tool = _case(data, "tool_call")
    vocab = [None if h is None else bytes.fromhex(h) for h in data["vocabularies"]["o200k_subset"]["tokens"]]
    for p, step in ((0, 30), (2, 100), (2, 1)):
        tokens = tool["paths"][p]["tokens"]
        _flip_one_id(data, "tool_call", p, step, tokens[step])  # the token taken there is refused
        read = b"".join(vocab[t] for t in tokens[:step])
        found = [m for m in check_golden(data, cases=["tool_call"]) if m.what == "mask" and m.path == p]
        assert [(m.step, m.extra) for m in found] == [(step, [tokens[step]])]
        assert found[0].detail == f"after {step} tokens, text ...{read[-40:]!r}"
        assert len(read) > 40 or step == 1
        _flip_one_id(data, "tool_call", p, step, tokens[step])  # restored
    assert check_golden(data, cases=["tool_call"]) == []


@pytest.mark.parametrize("n_bytes", [1, 5, 6, 7, 30])
def test_a_wrong_table_row_names_its_first_six_bytes_and_counts_the_rest(golden, n_bytes):
    data = copy.deepcopy(golden)
    runs = _case(data, "hand_example")["tables"]["trans"][0]  # state 0: c -> 1, d -> 2, else DEAD
    runs.insert(0, [0, n_bytes - 1, 1])  # bytes 0 .. n_bytes-1 now go to 1 in the file
    found = check_golden(data, cases=["hand_example"])
    assert [m.what for m in found] == ["trans"]
    shown = ", ".join(f"byte 0x{b:02x} -> -1 (file 1)" for b in range(min(n_bytes, 6)))
    more = f", ... ({n_bytes} bytes)" if n_bytes > 6 else ""
    assert found[0].detail == f"state 0: {shown}{more}"


def test_a_path_longer_than_256_tokens_is_checked_to_its_end(golden):
    """A case written with the derivative oracle: ``c*`` over the hand vocabulary, 300 tokens "c"
    and no EOS (301 steps). It checks clean, and a wrong mask at its very last step is found."""
    from brzozowski.golden import Oracle

    vocabulary = golden["vocabularies"]["hand"]
    vocab = [None if h is None else bytes.fromhex(h) for h in vocabulary["tokens"]]
    oracle = Oracle("c*", vocab, vocabulary["eos_id"])
    d, tokens, masks = oracle.term, [0] * 300, []
    for t in [*tokens, None]:
        masks.append(oracle.allowed(d))
        d = oracle.advance(d, t) if t is not None else d
    assert set(masks) == {(0, 13)}  # "c" and EOS
    dfa = regex_to_dfa("c*")
    case = {
        "name": "long_path", "description": "", "source": {"kind": "regex", "pattern": "c*"}, "regex": "c*",
        "vocabulary": "hand",
        "tables": {"n_states": dfa.n_states, "accepting": [int(s) for s in np.flatnonzero(dfa.accept)],
                   "trans": table_rows(dfa.trans)},
        "masks": [ids_to_ranges(list(masks[0]))],
        "paths": [{"policy": "text", "tokens": tokens, "mask": [0] * 301, "complete": [True] * 301,
                   "ends_with_eos": False, "text": (b"c" * 300).hex()}],
    }
    data = {**golden, "vocabularies": {"hand": vocabulary}, "cases": [case]}
    assert check_golden(data) == []
    case["masks"].append(ids_to_ranges([0]))  # the last step without EOS
    case["paths"][0]["mask"][300] = 1
    found = check_golden(data)
    assert [(m.what, m.path, m.step, m.extra) for m in found] == [("mask", 0, 300, [13])]


def test_a_constraint_not_done_after_eos_is_reported_at_the_eos_step(golden, monkeypatch):
    """If our Constraint forgot that EOS was taken, every path that ends with EOS is reported as a
    token mismatch at its last step (the EOS), and the paths without EOS are not."""
    original = Constraint.advance

    def forgets_eos(self, token_id):
        original(self, token_id)
        self.done = False

    monkeypatch.setattr(Constraint, "advance", forgets_eos)
    hand = _case(golden, "hand_example")
    expected = {(p, len(path["tokens"]) - 1) for p, path in enumerate(hand["paths"]) if path["ends_with_eos"]}
    assert len(expected) == 5
    found = check_golden(golden, cases=["hand_example"])
    assert all(m.what == "token" and "done is False" in m.detail for m in found), [str(m) for m in found]
    assert {(m.path, m.step) for m in found} == expected


_json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(min_value=-(10**15), max_value=10**15),
              st.sampled_from([0, 1, 7, 13, 14, 15, 255, 256, -1, 10**12]), st.floats(allow_nan=True),
              st.text(max_size=6)),
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(st.text(max_size=6), children, max_size=3)),
    max_leaves=8,
)


def _hand_document() -> dict:
    """The golden document cut down to the hand example and its vocabulary."""
    document = load_golden(DEFAULT_GOLDEN_PATH)
    return {**document, "cases": document["cases"][:1],
            "vocabularies": {"hand": document["vocabularies"]["hand"]}}


_HAND_DOCUMENT = _hand_document()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_single_corruption_is_reported_never_raised(data):
    """Fuzz: replace, delete or add one member anywhere in a one-case document by an arbitrary
    JSON-like value: `check_golden` returns mismatches (or none, for a harmless change) and never
    raises."""
    document = copy.deepcopy(_HAND_DOCUMENT)
    assert check_golden(document) == []
    target = document
    for _ in range(data.draw(st.integers(0, 7), label="depth")):
        if isinstance(target, dict) and target:
            child = target[data.draw(st.sampled_from(sorted(target)), label="key")]
        elif isinstance(target, list) and target:
            child = target[data.draw(st.integers(0, len(target) - 1), label="index")]
        else:
            break
        if not isinstance(child, (dict, list)):
            break
        target = child
    if isinstance(target, dict):
        key = data.draw(st.sampled_from(sorted(target) + ["new"]), label="member")
    else:
        key = data.draw(st.integers(0, max(len(target) - 1, 0)), label="element") if target else None
    if key is not None and key != "new" and data.draw(st.booleans(), label="delete"):
        del target[key]
    elif key is not None:
        target[key] = data.draw(_json_values, label="value")
    for m in check_golden(document):
        assert m.what in ("format", "regex", "mask", "complete", "token", "accepting", "trans", "n_states")
        assert len(str(m)) < 2000


# -- the path policies of golden/cases.py, by what PathSpec documents ------------------------------


def _path(pattern: str, vocab: list, eos_id: int | None, spec: PathSpec, seed: int = 0) -> list[int]:
    import random

    return _walk(Oracle(pattern, vocab, eos_id), spec, random.Random(seed), "test")


def test_the_bytes_policy_takes_single_byte_tokens_even_after_a_longer_token_with_that_byte():
    vocab = [b"ab", b"b", b"ba", b"a", b"a", None]  # "ab" and "ba" come before the single bytes
    assert _path("(ab)+", vocab, 5, PathSpec("bytes", text=b"abab")) == [3, 1, 3, 1, 5]
    assert _path("(ab)+", vocab, 5, PathSpec("bytes", text=b"ab", eos=False)) == [3, 1]
    with pytest.raises(GoldenError, match=r"byte b'x' is not allowed after 1 tokens"):  # no token "x"
        _path("a*x?", [b"a", b"xa", None], 2, PathSpec("bytes", text=b"ax"))


def test_the_text_policy_takes_the_longest_allowed_prefix_token_lowest_id_on_ties():
    vocab = [b"a", b"abc", b"ab", b"abc", b"c", b"abcab", None]
    assert _path("abc(ab)?c", vocab, 6, PathSpec("text", text=b"abcabc")) == [5, 4, 6]
    assert _path("abc", vocab, 6, PathSpec("text", text=b"abc")) == [1, 6]
    assert _path("ab|abcc", vocab, 6, PathSpec("text", text=b"abcc")) == [1, 4, 6]  # "abcab" not allowed


@pytest.mark.parametrize("spec, message", [
    (PathSpec("bytes", text=b"acb"), r"byte b'c' is not allowed after 1 tokens"),
    (PathSpec("text", text=b"abx"), r"no allowed token starts b'x'"),
    (PathSpec("text", text=b"a"), r"the text b'a' is not complete"),
    (PathSpec("bytes", text=b"a"), r"the text b'a' is not complete"),
])
def test_a_path_the_pattern_refuses_is_a_golden_error(spec, message):
    with pytest.raises(GoldenError, match=f"^test: {message}"):
        _path("ab", [b"a", b"b", b"c", b"x", None], 4, spec)


def _preferred_tokens(policy: str, vocab: list, d, oracle) -> set[int]:
    successors = oracle.successors(d)
    if policy == "loop":
        return {t for t in successors if successors[t] is d}
    if policy == "high":
        return {t for t in successors if max(vocab[t]) >= 0x80}
    return {t for t in successors if set(vocab[t]) & set(b'"}],')}


@pytest.mark.parametrize("policy", ["".join(["lo", "op"]), "".join(["hi", "gh"]), "".join(["clo", "se"])])
@pytest.mark.parametrize("seed", range(4))
def test_a_preferring_policy_takes_a_preferred_token_whenever_one_is_allowed(policy, seed):
    """With ``prefer=1`` every step takes one of the policy's preferred tokens when there is one
    (policy names built at run time: they are compared as strings), else any allowed token."""
    vocab = [b"a", b"\xc3\xa9", b'"', b"}", b"b\xff", b"ab", b'a"', b",", None]
    pattern = r'(a|b|\xc3\xa9|\xff)*"(,|a)*}'
    import random

    oracle = Oracle(pattern, vocab, 8)
    tokens = _walk(oracle, PathSpec(policy, max_length=12, prefer=1.0, p_eos=0.0), random.Random(seed), "test")
    assert len(tokens) == 12 or tokens[-1] == 8
    d = oracle.term
    for t in tokens:
        if t == 8:  # p_eos=0: EOS only where nothing else is allowed
            assert d.nullable and not oracle.successors(d) and t == tokens[-1]
            break
        preferred = _preferred_tokens(policy, vocab, d, oracle)
        assert t in (preferred or set(oracle.successors(d))), (policy, t, preferred)
        d = oracle.advance(d, t)


def test_a_path_stays_within_max_length_and_takes_eos_after_min_length_only():
    import random

    vocab = [b"a", b"aa", None]
    oracle = Oracle("a*", vocab, 2)
    for seed in range(20):
        rng = random.Random(seed)
        always = _walk(oracle, PathSpec("random", max_length=9, min_length=4, p_eos=1.0), rng, "test")
        assert len(always) == 5 and always[-1] == 2 and 2 not in always[:-1]
        never = _walk(oracle, PathSpec("random", max_length=9, p_eos=0.0), rng, "test")
        assert len(never) == 9 and 2 not in never
