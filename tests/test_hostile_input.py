"""Bad input at every door (issue 9, item 6): each case is a `BrzozowskiError` subclass naming the
value and the place, within seconds, never a RecursionError, a bare TypeError/IndexError or a
silently wrong answer. Every case here failed (crashed, or was accepted) before its fix."""

from __future__ import annotations

import json
import random
import re
import sys
import time

import jsonschema
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brzozowski import (
    BrzozowskiError,
    Constraint,
    LazyDFA,
    RegexSyntaxError,
    SamplingParams,
    SchemaError,
    TokenIndex,
    distribution,
    json_schema_to_regex,
    regex_to_dfa,
    sample,
)
from brzozowski.errors import InputTypeError
from brzozowski.json.strict import MAX_VALUE_DEPTH


def _nested_lists(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


def _nested_objects(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = {"a": value}
    return value


# -- enum and const values must be JSON ------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "pointer", "says"),
    [
        ({"enum": [{1: "x"}]}, "/enum/0", "object key 1"),
        ({"const": {None: 1, True: 2}}, "/const", "object key None"),
        ({"enum": ["ok", {"k": [{(1, 2): 0}]}]}, "/enum/1/k/0", "object key (1, 2)"),
        ({"const": "a\ud800"}, "/const", "lone surrogate"),
        ({"enum": ["fine", ["x\udc00"]]}, "/enum/1/0", "lone surrogate"),
        ({"const": {"\udbff": 1}}, "/const", "lone surrogate"),
        ({"type": "object", "properties": {"\ud800": {"type": "null"}}}, "/properties", "lone surrogate"),
        ({"const": float("nan")}, "/const", "no NaN or infinity"),
        ({"enum": [1, float("-inf")]}, "/enum/1", "no NaN or infinity"),
        ({"const": [1, (2, 3)]}, "/const/1", "tuple is not JSON"),
        ({"const": {1, 2}}, "/const", "set is not JSON"),
        ({"const": b"bytes"}, "/const", "bytes is not JSON"),
        ({"const": 10 ** 5000}, "/const", "4,300 digits"),
    ],
)
def test_enum_and_const_values_that_are_not_json_are_refused_at_their_place(schema, pointer, says):
    with pytest.raises(SchemaError, match=re.escape(says)) as raised:
        json_schema_to_regex(schema)
    assert raised.value.pointer == pointer
    str(raised.value).encode("utf-8")  # the message itself can be printed


def test_values_that_were_silently_rewritten_are_now_refused():
    """Before: {1: "x"} compiled as {"1":"x"}, a document the schema (whose key is the int 1,
    which no JSON document can hold) does not describe; None/True keys became "null"/"true"."""
    for schema in ({"enum": [{1: "x"}]}, {"const": {None: 1, True: 2}}):
        with pytest.raises(SchemaError, match="JSON keys are strings"):
            json_schema_to_regex(schema)


def test_deep_values_are_refused_without_recursion():
    for value in (_nested_lists(10_000), _nested_objects(10_000), _nested_lists(MAX_VALUE_DEPTH + 1)):
        start = time.perf_counter()
        with pytest.raises(SchemaError, match=f"deeper than {MAX_VALUE_DEPTH} levels"):
            json_schema_to_regex({"const": value})
        assert time.perf_counter() - start < 5
    # at the limit it compiles, and the regex matches exactly the value's compact JSON
    value = _nested_lists(MAX_VALUE_DEPTH)
    text = json.dumps(value, separators=(",", ":"))
    assert re.fullmatch(json_schema_to_regex({"const": value}), text)


def test_a_long_property_name_beside_other_keys_compiles_without_recursion():
    """An open object's other keys are built on the trie of the listed names, one node per byte:
    a 5,000-character name was a RecursionError (a bare crash) before the trie was walked without
    recursion. Other keys never equal the listed name, so its value must be the listed one's."""
    from brzozowski import compile_json_schema

    name = "a" * 5000
    lazy = compile_json_schema({"type": "object", "properties": {name: {"type": "integer"}}},
                               closed_objects=False)
    assert lazy.matches(b'{"%s":1}' % name.encode())
    assert not lazy.matches(b'{"%s":"x"}' % name.encode())  # only as the listed member
    assert lazy.matches(b'{"%s":"x"}' % name[:-1].encode())  # another key: any value


def test_a_ref_cycle_through_allof_merged_anew_is_refused_not_a_crash():
    """``d = anyOf[allOf[E, $ref d], …]`` beside other keywords: each turn of the cycle merges a
    new schema (no repeated node to catch), so it recursed into a RecursionError, or, in a variant
    Hypothesis found, for minutes and gigabytes. The same parts merged again inside their own merge
    are refused (compared by content), and past `MAX_CHAIN` schemas nested without an array or
    object anything else is; a long but finite chain of references still compiles."""
    from brzozowski import compile_json_schema
    from brzozowski.json.compiler import recursion as schema_compiler  # where MAX_CHAIN is read
    from brzozowski.json.compiler import MAX_CHAIN

    first = {"enum": [[{"z": 3, "a": 2}], {}]}
    d = {"anyOf": [{"allOf": [first, {"$ref": "#/$defs/d"}]}, {"enum": [{"z": -2}, {}]}]}
    schema = {"$defs": {"d": d}, "allOf": [{"items": False, "minItems": 0,
                                            "anyOf": [{"$ref": "#/$defs/d"}, {"type": "null"}]}]}
    start = time.perf_counter()
    with pytest.raises(SchemaError, match="without an array or object in between") as caught:
        compile_json_schema(schema, max_depth=1, any_whitespace=True)
    assert "/anyOf/0/anyOf/0" in str(caught.value) and time.perf_counter() - start < 5
    twice = {"anyOf": [{"allOf": [first, {"$ref": "#/$defs/d"}]}, {"allOf": [{"enum": [{}]}, {"$ref": "#/$defs/d"}]},
                       {"type": "null"}]}  # two turns of the cycle at each level: 2^MAX_CHAIN merges
    schema["$defs"]["d"] = twice
    start = time.perf_counter()
    with pytest.raises(SchemaError, match="loops back to itself through allOf"):
        compile_json_schema(schema, max_depth=1)  # the same parts merged inside their own merge
    assert time.perf_counter() - start < 5
    chain = {f"d{i}": {"anyOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"type": "null"}]} for i in range(MAX_CHAIN // 4)}
    chain[f"d{MAX_CHAIN // 4}"] = {"type": "integer"}
    lazy = compile_json_schema({"$defs": chain, "$ref": "#/$defs/d0"})
    assert lazy.matches(b"12") and not lazy.matches(b'"x"')
    with pytest.MonkeyPatch.context() as patch:  # a chain longer than the bound: refused, by name
        patch.setattr(schema_compiler, "MAX_CHAIN", 8)
        with pytest.raises(SchemaError, match="more than 8 schemas nest here"):
            compile_json_schema({"$defs": chain, "$ref": "#/$defs/d0"})


def test_deep_schema_values_in_messages_are_shown_briefly():
    with pytest.raises(SchemaError, match=r"unknown type \[\[\[\[\.\.\.\]\]\]\]") as raised:
        json_schema_to_regex({"type": _nested_lists(10_000)})
    assert len(str(raised.value)) < 300


def test_a_large_enum_is_deduplicated_in_linear_time():
    values = [f"v{i}" for i in range(100_000)]
    start = time.perf_counter()
    regex = json_schema_to_regex({"enum": values + values[:50_000]})
    assert time.perf_counter() - start < 20  # measured ~1 s; the quadratic version took ~60 s
    assert regex.count("|") == 100_000 - 1 and regex.startswith('("v0"|"v1"|')


# -- $schema -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "uri",
    [
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2019-09/schema#",
        "http://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-06/schema",
    ],
)
def test_dialects_whose_meaning_we_follow_are_accepted(uri):
    schema = {"$schema": uri, "type": "integer", "enum": [1.0, 2, 2.5]}
    regex = json_schema_to_regex(schema)
    assert regex == "(1\\.0|2)"  # 1.0 is an integer from draft-06 on, as jsonschema agrees:
    validator = jsonschema.validators.validator_for(schema)(schema)
    assert validator.is_valid(1.0) and not validator.is_valid(2.5)


@pytest.mark.parametrize(
    ("uri", "says"),
    [
        ("http://json-schema.org/draft-04/schema#", "1.0 is not an integer"),
        ("http://json-schema.org/draft-03/schema#", "1.0 is not an integer"),
        ("https://example.com/my-dialect", "unknown $schema"),
        (4, "must be a URI string"),
    ],
)
def test_other_dialects_are_refused(uri, says):
    """Draft 4 reads {"type": "integer", "enum": [1.0]} as allowing nothing (1.0 is a number
    there); compiling it as draft 2020-12 would let the model write 1.0."""
    schema = {"$schema": uri, "type": "integer", "enum": [1.0, 2]}
    with pytest.raises(SchemaError, match=re.escape(says)) as raised:
        json_schema_to_regex(schema)
    assert raised.value.pointer == "/$schema" and raised.value.keyword == "$schema"
    if uri == "http://json-schema.org/draft-04/schema#":
        assert not jsonschema.Draft4Validator(schema).is_valid(1.0)
    nested = {"type": "array", "items": {"$schema": uri, "type": "null"}}
    with pytest.raises(SchemaError) as raised:
        json_schema_to_regex(nested)
    assert raised.value.pointer == "/items/$schema"


def test_the_integer_digit_limit_is_the_documented_one():
    """The regex bounds no digits (documented in brzozowski.json.strict): a document with an integer
    past Python's limit matches, and json.loads refuses it. The const/enum values are checked."""
    limit = sys.get_int_max_str_digits()
    assert limit == 4300
    rx = json_schema_to_regex({"type": "integer"})
    assert re.fullmatch(rx, "9" * (limit + 1))
    with pytest.raises(ValueError):
        json.loads("9" * (limit + 1))
    assert "4,300" in sys.modules["brzozowski.json.strict"].__doc__
    assert re.fullmatch(json_schema_to_regex({"const": 10 ** (limit - 1)}), "1" + "0" * (limit - 1))


@pytest.mark.parametrize("keyword", ["minimum", "exclusiveMaximum"])
@pytest.mark.parametrize("kind", ["integer", "number"])
def test_a_bound_past_pythons_digit_limit_is_a_schema_error_naming_it(keyword, kind):
    """A bound with more digits than Python will write as a string (4,300) is refused as any bound
    of more than 350 digits is: a `SchemaError` at the keyword, no decimal string of it made."""
    from brzozowski import compile_json_schema
    from brzozowski.errors import SchemaError

    says = f"{keyword} \\(an integer of 16610 bits\\) has more than 350 digits"
    with pytest.raises(SchemaError, match=says) as raised:
        compile_json_schema({"type": kind, keyword: 10**5000})
    assert raised.value.pointer == f"/{keyword}"


# -- sampling ----------------------------------------------------------------------------------


@pytest.mark.parametrize("temperature", [1e-310, 5e-324, 1e-300])
def test_a_tiny_temperature_samples_the_tied_maxima(temperature):
    """Before: the logits divided by 1e-310 overflowed to +inf, inf - inf made NaN, no token was
    left and `sample` raised IndexError. Now: the limit of sampling as T -> 0, uniform over the
    tied largest logits."""
    logits = np.array([1.0, 3.0, 3.0, 2.0, -np.inf])
    params = SamplingParams(temperature=temperature)
    ids, logprobs = distribution(logits, params)
    probabilities = dict(zip(ids.tolist(), np.exp(logprobs).tolist()))
    assert probabilities[1] == pytest.approx(0.5) and probabilities[2] == pytest.approx(0.5)
    rng = np.random.default_rng(0)
    drawn = {sample(logits, params, [], rng)[0] for _ in range(50)}
    assert drawn == {1, 2}


# -- patterns and constructors --------------------------------------------------------------------


def test_a_huge_repeat_count_is_a_located_syntax_error():
    """Before: int() of 5,000 digits raised a bare ValueError (Python's int max str digits)."""
    for pattern in ("a{" + "9" * 5000 + "}", "a{1," + "9" * 5000 + "}"):
        with pytest.raises(RegexSyntaxError, match=r"repeat count 999999\.\.\.999 \(5000 digits\) is over") as raised:
            regex_to_dfa(pattern)
        assert raised.value.offset == 1
        assert len(str(raised.value)) < 300  # a window of the pattern, not 5,000 characters
    assert regex_to_dfa("a{" + "0" * 5000 + "2}").n_states == 3  # leading zeros add no value


def test_unicode_digits_are_not_repeat_counts():
    """As in Python's re, '{²}' is not a repeat (int('²') would raise a bare ValueError)."""
    with pytest.raises(RegexSyntaxError, match="non-ASCII"):
        regex_to_dfa("a{²}")


def test_a_two_digit_backreference_is_named_in_full():
    with pytest.raises(RegexSyntaxError, match=r"backreference \\77 is not supported \(the byte 0o77 is written \\077\)"):
        regex_to_dfa(r"\77")
    with pytest.raises(RegexSyntaxError, match=r"backreference \\8 is not supported at"):
        regex_to_dfa(r"\8")
    assert regex_to_dfa(r"\077").matches(b"?")  # the octal escape is a byte


@pytest.mark.parametrize(
    ("build", "says"),
    [
        (lambda: regex_to_dfa(123), "not int: 123"),
        (lambda: regex_to_dfa(["a"]), "not list: ['a']"),
        (lambda: TokenIndex("abc", [b"a"]), "'abc' (str) is not an automaton"),
        (lambda: Constraint(regex_to_dfa("a")), "Constraint needs a TokenIndex, not DFA("),
        (lambda: regex_to_dfa("a", max_states=1.5), "not 1.5"),
        (lambda: LazyDFA("a", max_states="10"), "not '10'"),
        (lambda: LazyDFA("a", max_states=True), "not True"),
    ],
)
def test_wrong_types_name_the_value(build, says):
    with pytest.raises(InputTypeError) as raised:
        build()
    assert says in str(raised.value)
    assert isinstance(raised.value, BrzozowskiError) and isinstance(raised.value, TypeError)


_python_values = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=5),  # surrogates included: Hypothesis draws them
        st.binary(max_size=3), st.tuples(st.integers()),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.one_of(st.text(max_size=4), st.integers(), st.none(), st.booleans()),
                        children, max_size=3),
    ),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(values=st.lists(_python_values, min_size=1, max_size=4), kind=st.sampled_from(["enum", "const"]))
def test_any_python_value_is_refused_or_compiled_exactly(values, kind):
    """Fuzz: any Python value in enum/const is refused with a SchemaError, or compiles to a regex
    whose strings are exactly the values' JSON texts, which json.loads reads back as the values
    and jsonschema accepts."""
    schema = {"enum": values} if kind == "enum" else {"const": values[0]}
    try:
        regex = json_schema_to_regex(schema)
    except SchemaError as error:
        str(error).encode("utf-8")  # the message can always be printed
        return
    for value in values if kind == "enum" else values[:1]:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
        assert re.fullmatch(regex.encode(), text.encode())
        assert json.loads(text) == value
        assert jsonschema.Draft202012Validator(schema).is_valid(json.loads(text))


# -- issue 39: every public function of the automata and core layers checks its arguments --------

from brzozowski import (  # noqa: E402
    DFA,
    InputLimitError,
    Limits,
    Oracle,
    TimeBudgetError,
    alt,
    check_golden,
    compl,
    concat,
    inter,
    parse,
)
from brzozowski.budget import within  # noqa: E402
from brzozowski.core.derivatives import derivative  # noqa: E402
from brzozowski.errors import ArgumentError, GoldenError, GoldenMismatchError, StateError, TableError  # noqa: E402
from brzozowski.golden import load_golden  # noqa: E402

_A = parse("a")
_TABLE = np.zeros((1, 256), dtype=np.int32)


@pytest.mark.parametrize(
    ("call", "error", "says"),
    [
        (lambda: parse(b"a"[0]), InputTypeError, "pattern must be a str or bytes, not int"),
        (lambda: parse(bytearray(b"a")), InputTypeError, "pattern must be a str or bytes, not bytearray"),
        (lambda: parse("a", limits={"pattern_length": 3}), InputTypeError, "limits must be a brzozowski.Limits"),
        (lambda: regex_to_dfa(3.5), InputTypeError, "pattern must be a str, bytes or Term, not float"),
        (lambda: regex_to_dfa("a", limits=None), InputTypeError, "limits must be a brzozowski.Limits, not NoneType"),
        (lambda: regex_to_dfa("a", max_states=0), ArgumentError, "max_states must be at least 1"),
        (lambda: LazyDFA(None), InputTypeError, "pattern must be a str, bytes or Term, not NoneType"),
        (lambda: LazyDFA("a", max_alternatives="9"), InputTypeError, "max_alternatives is a whole number"),
        (lambda: LazyDFA("a", limits=1), InputTypeError, "limits must be a brzozowski.Limits, not int"),
        (lambda: LazyDFA("ab").matches("ab"), InputTypeError, "data must be bytes, not str 'ab' (encode it"),
        (lambda: LazyDFA("ab").step(0, [97]), InputTypeError, "data must be bytes, not list"),
        (lambda: LazyDFA("ab").step("0", b"a"), InputTypeError, "state must be a whole number, not str"),
        (lambda: LazyDFA("ab").is_accepting(1.0), InputTypeError, "state must be a whole number, not float"),
        (lambda: LazyDFA("ab").row(5), StateError, "state 5 does not exist"),
        (lambda: LazyDFA("ab").next_state(0, 256), InputTypeError, "b must be a byte (an int 0..255), not 256"),
        (lambda: LazyDFA("ab").next_state(0, "a"), InputTypeError, "b must be a byte"),
        (lambda: LazyDFA("ab").next_state(0, -1), InputTypeError, "b must be a byte (an int 0..255), not -1"),
        (lambda: LazyDFA("ab").state_of("a"), InputTypeError, "state_of takes a Term, not 'a'"),
        (lambda: regex_to_dfa("ab").matches("ab"), InputTypeError, "data must be bytes, not str 'ab' (encode it"),
        (lambda: regex_to_dfa("ab").step(0, 97), InputTypeError, "data must be bytes, not int"),
        (lambda: regex_to_dfa("ab").step(0.0, b"a"), InputTypeError, "state must be a whole number, not float"),
        (lambda: regex_to_dfa("ab").row(-2), StateError, "state -2 does not exist"),
        (lambda: DFA("yes", _TABLE), InputTypeError, "accept must be an array of bools, not str"),
        (lambda: DFA([True], _TABLE + 0.5), InputTypeError, "trans must be an array of integers, not ndarray of float64"),
        (lambda: DFA(None, _TABLE), InputTypeError, "accept must be an array of bools, not NoneType"),
        (lambda: DFA([2], _TABLE), TableError, "accept must hold bools (or 0 and 1)"),
        (lambda: DFA([True], np.full((1, 256), 2**40)), TableError, "trans entries must lie in -1..0"),
        (lambda: DFA([True], [[0] * 256, [0]]), TableError, "trans must be a rectangular array"),
        (lambda: alt(_A, "b"), InputTypeError, "alt's operand 1 must be a Term"),
        (lambda: concat(_A, _A, 3), InputTypeError, "concat's operand 2 must be a Term"),
        (lambda: inter(None, _A), InputTypeError, "inter's operand 0 must be a Term"),
        (lambda: compl("a"), InputTypeError, "compl's operand 0 must be a Term"),
        (lambda: Oracle(["a"], [b"a"]), InputTypeError, "pattern must be a str or bytes, not list"),
        (lambda: Oracle("a", "abc"), InputTypeError, "vocab must be a sequence of token bytes, not str"),
        (lambda: Oracle("a", [b"a", "b"]), InputTypeError, "vocab[1] must be bytes or None, not str"),
        (lambda: Oracle("a", [b"a"], eos_id="0"), InputTypeError, "eos_id must be an int or None, not str"),
        (lambda: Oracle("a", [b"a"], eos_id=True), InputTypeError, "eos_id must be an int or None, not bool"),
        (lambda: Oracle("a", [b"a"]).after("a"), InputTypeError, "text must be bytes, not str 'a'"),
        (lambda: Oracle("a", [b"a"]).allowed(b"a"), InputTypeError, "d must be a Term"),
        (lambda: check_golden([{"cases": []}]), InputTypeError, "data must be a golden document (a dict) or a path, not list"),
        (lambda: check_golden(cases="hand_example"), InputTypeError, "cases must be a list of case names, not str"),
        (lambda: check_golden(cases=[3]), InputTypeError, "cases must be case names (str)"),
        (lambda: check_golden(cases=7), InputTypeError, "cases must be a list of case names, not int"),
        (lambda: check_golden(automaton=["dfa"]), GoldenError, "automaton must be 'dfa' or 'lazy'"),
        (lambda: load_golden(42), InputTypeError, "path must be a str or a pathlib path, not int"),
        (lambda: Limits(pattern_length=0), ArgumentError, "Limits.pattern_length must be a positive integer"),
        (lambda: Limits(pattern_length=2.5), ArgumentError, "Limits.pattern_length must be a positive integer"),
    ],
)
def test_every_wrong_argument_is_the_documented_error_naming_it(call, error, says):
    """Before: DFA.matches("text") an IndexError, LazyDFA.matches a TypeError from deep inside,
    check_golden([...]) a TypeError from pathlib, alt("a") an AttributeError, DFA with float
    transitions silently truncated them to states."""
    with pytest.raises(error) as raised:
        call()
    assert says in str(raised.value)
    assert isinstance(raised.value, BrzozowskiError)
    if error is InputTypeError:
        assert isinstance(raised.value, TypeError)


def test_bytes_like_data_and_numpy_states_are_accepted():
    dfa, lazy = regex_to_dfa("ab+"), LazyDFA("ab+")
    for automaton in (dfa, lazy):
        assert automaton.matches(bytearray(b"abb")) and automaton.matches(memoryview(b"ab"))
        state = automaton.step(np.int64(0), b"a")
        assert automaton.is_accepting(automaton.step(np.int32(state), b"b"))
    assert DFA(np.array([1, 0]), np.zeros((2, 256), dtype=np.int64)).accept.tolist() == [True, False]
    assert check_golden(cases=("hand_example",)) == []  # any iterable of names
    with pytest.raises(GoldenMismatchError):  # a path that is not a golden file: as before
        check_golden("/no/such/golden.json")


# -- issue 39: hostile patterns end within their budget -------------------------------------------

SLACK = 2.0  # seconds a loaded machine may add to a budget before the test calls it a hang


def _refused_within(call, error, budget, says):
    start = time.perf_counter()
    with pytest.raises(error) as raised:
        call()
    elapsed = time.perf_counter() - start
    assert says in str(raised.value)
    assert elapsed < budget + SLACK, f"{elapsed:.1f} s"
    return raised.value


@pytest.mark.parametrize("build", [parse, regex_to_dfa, LazyDFA])
def test_a_megabyte_literal_is_refused_before_it_is_parsed(build):
    """Before: a 10^6-byte literal parsed for 7 s into 540 MB of terms, then ran out of states."""
    error = _refused_within(lambda: build("a" * 10**6), InputLimitError, 0.0,
                            "1,000,000 characters, more than Limits.pattern_length (100,000)")
    assert "offset 100000" in str(error)
    if build is not parse:
        return
    assert parse("ab" * 50_000) is not None  # the longest pattern allowed by default parses
    with pytest.raises(InputLimitError, match=r"more than Limits.pattern_length \(10\) allows: refused at offset 10"):
        parse("a" * 11, Limits(pattern_length=10))
    assert parse("a" * 150_000, Limits(pattern_length=None)) is not None  # trusted: no limit


def test_an_alternation_of_a_hundred_thousand_words_is_refused_by_its_length():
    """Before: 96,301 random words (734 kB) parsed for 4.5 s, then ran 8.7 s to a StateBudgetError."""
    rng = random.Random(39)
    words = {"".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 10)))
             for _ in range(100_000)}
    pattern = "|".join(sorted(words))
    _refused_within(lambda: regex_to_dfa(pattern), InputLimitError, 0.0, "more than Limits.pattern_length")


@pytest.mark.slow
def test_an_alternation_of_words_within_the_length_limit_compiles_or_is_refused_in_time():
    """13,000 random words (~100 kB): a result that matches every word and no other, or the
    compile budget's error, within the budget."""
    rng = random.Random(36)
    words = sorted({"".join(rng.choice("abcdefghij") for _ in range(rng.randint(3, 9))) for _ in range(13_000)})
    pattern = "|".join(words)
    assert len(pattern) <= Limits().pattern_length
    start = time.perf_counter()
    try:
        dfa = regex_to_dfa(pattern)
    except TimeBudgetError as error:
        assert f"compile_seconds ({Limits().compile_seconds:g} s) exceeded at regex_to_dfa('" in str(error)
    else:
        assert all(dfa.matches(w.encode()) for w in words[::50])
        assert not any(dfa.matches(w.encode() + b"j") for w in words[::50] if w + "j" not in words)
    assert time.perf_counter() - start < Limits().compile_seconds + SLACK


@pytest.mark.parametrize("pattern", [
    ".*a.{17}",  # 2^18 states: 3.7 s to a StateBudgetError before
    ".*a.{6}.*b.{6}.*c.{6}.*d.{6}.*e.{6}",  # 6 s to a StateBudgetError before
    "(.*[a-m].{4}|.*[n-z].{5}|.*[0-4].{6}|.*[5-9].{7}){3}",  # 272 states after 8 s, 230 MB
])
def test_dot_star_heavy_patterns_are_refused_within_the_compile_budget(pattern):
    limits = Limits(compile_seconds=0.3)
    error = _refused_within(lambda: regex_to_dfa(pattern, limits=limits), TimeBudgetError, 0.3,
                            "compile_seconds (0.3 s) exceeded at regex_to_dfa(")
    assert pattern[:10] in str(error)


@pytest.mark.slow
def test_dot_star_heavy_patterns_without_a_deadline_still_end_at_the_state_budget():
    with pytest.raises(BrzozowskiError, match="more than 100000 states"):
        regex_to_dfa(".*a.{17}", limits=Limits(compile_seconds=None))


def test_the_default_compile_budget_bounds_regex_to_dfa():
    """With the default limits (no argument), a pattern of 2^22 states (the state budget raised past
    them) is refused once the default compile time is spent."""
    seconds = Limits().compile_seconds
    _refused_within(lambda: regex_to_dfa(".*a.{21}", max_states=10**8), TimeBudgetError, seconds,
                    f"compile_seconds ({seconds:g} s) exceeded")


def test_an_enclosing_shorter_deadline_wins():
    start = time.perf_counter()
    with pytest.raises(TimeBudgetError, match=r"mask_seconds \(0.2 s\) exceeded"):
        with within(0.2, "mask_seconds", where="a test's step"):
            regex_to_dfa(".*a.{17}", limits=Limits(compile_seconds=30))
    assert time.perf_counter() - start < 0.2 + SLACK


def test_lazy_states_created_inside_a_deadline_obey_it():
    """A LazyDFA of a term opens no deadline of its own: states created later (a mask step) fall
    under the caller's; outside one, nothing is checked."""
    lazy = LazyDFA(parse(".*a.{17}"))
    rng = random.Random(1)
    data = bytes(rng.choice(b"ab") for _ in range(50_000))  # a new state per byte, nearly
    start = time.perf_counter()
    with pytest.raises(TimeBudgetError, match="mask_seconds"):
        with within(0.05, "mask_seconds"):
            state = lazy.start
            for b in data:
                state = lazy.next_state(state, b)
    assert 0 < lazy.n_states < 50_000
    assert time.perf_counter() - start < 0.05 + SLACK


def test_a_row_that_adds_no_state_still_checks_the_deadline():
    """Exploring the last states of a large automaton creates none (every target exists): a row
    computed checks the deadline itself, or ``(.*a){3}.*b.{14}`` ran 0.8 s past a 2 s budget.
    ``a*`` has one state whose row leads back to it; the Python loop over every state of a table
    (the liveness pass) checks it too."""
    from brzozowski.automata.dfa import explore, remove_dead_states

    def after_the_deadline(compute, *arguments):
        with within(1e-6, "compile_seconds", where="a test"):
            time.sleep(0.002)
            compute(*arguments)

    for compute in (lambda lazy: lazy.class_row(lazy.start), explore):
        lazy = LazyDFA("a*")
        with pytest.raises(TimeBudgetError, match=r"compile_seconds \(1e-06 s\) exceeded at a test"):
            after_the_deadline(compute, lazy)
        assert lazy.n_states == 1
        compute(lazy)  # outside any deadline: nothing is checked
    accept, columns = explore(LazyDFA("a*"))
    with pytest.raises(TimeBudgetError):
        after_the_deadline(remove_dead_states, accept, columns)


def test_compile_json_schema_bounds_the_automatons_start_and_hands_it_the_limits(monkeypatch):
    """The automaton is built under the compile's deadline (its start counts every position of the
    term: `positions` checks the deadline too), and keeps the caller's limits, which its masks and
    advances read (``mask_seconds``)."""
    import brzozowski.json.compiler.driver as driver
    from brzozowski import compile_json_schema
    from brzozowski.automata.lazy import positions
    from brzozowski.budget import Limits, _CURRENT

    limits = Limits(compile_seconds=30.0, mask_seconds=7.0)
    seen = []

    class Recording(LazyDFA):
        def __init__(self, *arguments, **options):
            seen.append(_CURRENT.get())
            super().__init__(*arguments, **options)

    monkeypatch.setattr(driver, "LazyDFA", Recording)
    automaton = compile_json_schema({"type": "string"}, limits=limits)
    assert automaton.limits is limits
    assert seen[0] is not None and seen[0][1:3] == ("compile_seconds", 30.0)
    term = parse("(?:" + "|".join(f"w{i}x" for i in range(2000)) + ")")
    with pytest.raises(TimeBudgetError, match="compile_seconds"):
        with within(1e-6, "compile_seconds"):
            time.sleep(0.002)
            positions(term)


def test_an_emptiness_search_obeys_the_deadline():
    """``~(.*a.{15}) & .*a.{15}`` is empty, which only a search of its 2^16 derivatives shows."""
    term = compl(parse(".*a.{15}")) & parse("[ab]*a[ab]{15}")
    start = time.perf_counter()
    with pytest.raises(TimeBudgetError, match="compile_seconds"):
        with within(0.2, "compile_seconds"):
            LazyDFA(term, max_states=10**6)
    assert time.perf_counter() - start < 0.2 + SLACK


DEEP_PARENS = 100_000


def test_patterns_nested_a_hundred_thousand_deep_are_refused_or_parsed_without_recursion():
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)  # nothing may recurse with the nesting
    try:
        with pytest.raises(InputLimitError, match="200,000 characters"):
            parse("(" * DEEP_PARENS + ")" * DEEP_PARENS)
        with pytest.raises(InputLimitError):
            regex_to_dfa("(?:" * DEEP_PARENS + "a" + ")" * DEEP_PARENS)
        with pytest.raises(RegexSyntaxError, match="missing \\), unterminated subpattern at offset 49999"):
            parse("(" * 50_000)
        deep = parse("(a" * 33_333 + ")" * 33_333)  # 99,999 characters: within the limit
    finally:
        sys.setrecursionlimit(limit)
    assert LazyDFA(deep).matches(b"a" * 33_333) and not LazyDFA(deep).matches(b"a" * 33_332)


def test_a_deep_term_whose_derivative_is_quadratic_is_stopped_by_the_deadline():
    """``((((a)*b)*b)*…)`` 2,000 deep (12 kB): one derivative by ``a`` re-nests every level's
    concatenation, 84 s and 3.8 GB before; the deadline is checked inside the derivative."""
    pattern = "(?:" * 2000 + "a" + ")*b" * 2000
    term = parse(pattern)
    _refused_within(lambda: regex_to_dfa(pattern, limits=Limits(compile_seconds=0.3)), TimeBudgetError, 0.3,
                    "compile_seconds (0.3 s) exceeded")
    start = time.perf_counter()
    with pytest.raises(TimeBudgetError):
        with within(0.2, "mask_seconds"):
            derivative(term, ord("a"))
    assert time.perf_counter() - start < 0.2 + SLACK
    assert derivative(term, ord("b")) is not None  # by b: cheap, and no deadline needed
