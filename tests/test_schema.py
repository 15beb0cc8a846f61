"""Tests for brzozowski.json.strict: the JSON-schema subset compiled to a regex of compact JSON documents.

Oracles: Python's ``re.fullmatch`` on bytes (our regex subset means what Python means) and our own
``regex_to_dfa`` (both must agree on every document), ``json.loads`` and strict UTF-8 decoding
(what a document *is*), and ``jsonschema`` (what the schema allows). Documents sampled from the
schema's DFA by random walks must all parse and validate. Hypothesis strategies for
subset schemas and their instances are written here (hypothesis-jsonschema 0.23.1 breaks on objects
with current Hypothesis: its object strategies fail); every generated instance is checked with jsonschema first.
"""

from __future__ import annotations

import functools
import itertools
import json
import random
import re
from collections import deque

import jsonschema
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brzozowski import DEAD, regex_to_dfa
from brzozowski.errors import SchemaError
from brzozowski.json.strict import INTEGER, NUMBER, STRING, json_schema_to_regex

from .strategies import instances, subset_schemas


def compact(value, ensure_ascii=True) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=ensure_ascii).encode("utf-8")


@functools.lru_cache(maxsize=512)
def dfa_of(regex: str):
    return regex_to_dfa(regex)


def matches(regex: str, doc: bytes) -> bool:
    """Whether `regex` fully matches `doc`: Python's re and our DFA must agree."""
    assert regex.isascii(), "the regex text must be ASCII"
    by_re = re.fullmatch(regex.encode("ascii"), doc) is not None
    assert dfa_of(regex).matches(doc) == by_re, f"re and regex_to_dfa disagree on {doc!r}"
    return by_re


def dfa_matches_all(dfa, docs: list[bytes]) -> np.ndarray:
    """Vectorized DFA.matches over documents of one length (the exhaustive tests' fast path)."""
    data = np.frombuffer(b"".join(docs), dtype=np.uint8).reshape(len(docs), -1)
    table = np.vstack([dfa.trans, np.full((1, 256), DEAD, dtype=np.int32)])  # row -1 is DEAD -> DEAD
    states = np.zeros(len(docs), dtype=np.int64)
    for column in data.T:
        states = table[states, column]
    accept = np.append(dfa.accept, False)
    return accept[states]


def sample_documents(dfa, rng: random.Random, n: int, soft_limit: int = 120) -> list[bytes]:
    """Random walks over the DFA's live transitions, stopping only in accepting states.

    Each step picks a random successor state, then a random byte leading there (so structure, not
    just string content, varies); past `soft_limit` bytes it heads for the nearest accepting state.
    """
    trans, accept = dfa.trans, dfa.accept
    dist = np.full(dfa.n_states, np.iinfo(np.int64).max)  # bytes to the nearest accepting state
    preds: list[set[int]] = [set() for _ in range(dfa.n_states)]
    for s in range(dfa.n_states):
        for t in set(trans[s].tolist()) - {DEAD}:
            preds[t].add(s)
    queue = deque(np.nonzero(accept)[0].tolist())
    dist[accept] = 0
    while queue:
        t = queue.popleft()
        for s in preds[t]:
            if dist[s] > dist[t] + 1:
                dist[s] = dist[t] + 1
                queue.append(s)
    assert dist.max() < np.iinfo(np.int64).max, "a state that cannot reach acceptance"
    docs = []
    for _ in range(n):
        state, out = 0, bytearray()
        while True:
            targets = sorted(set(trans[state].tolist()) - {DEAD})
            if accept[state] and (not targets or rng.random() < 0.2):
                break
            if len(out) >= soft_limit:
                targets = [t for t in targets if dist[t] < dist[state]]
            target = rng.choice(targets)
            out.append(rng.choice(np.nonzero(trans[state] == target)[0].tolist()))
            state = target
        docs.append(bytes(out))
    return docs


def _no_duplicate_keys(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError(f"duplicate key in {keys}")  # RFC 8259 §4: names SHOULD be unique
    return dict(pairs)


def _no_constants(name):
    raise ValueError(f"{name} is not JSON (RFC 8259 has no NaN or Infinity)")


def is_valid(doc: bytes, schema: dict) -> bool:
    """The semantic oracle: `doc` is well-formed UTF-8 JSON (RFC 8259: no NaN, no duplicate keys) that the schema allows."""
    try:
        value = json.loads(doc.decode("utf-8"), object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constants)
    except (UnicodeDecodeError, ValueError):
        return False
    return _well_formed(value) and jsonschema.Draft202012Validator(schema).is_valid(value)


def _well_formed(value) -> bool:
    """No string (key or value) holds a lone surrogate, i.e. every string can be encoded as UTF-8."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, list):
        return all(map(_well_formed, value))
    if isinstance(value, dict):
        return all(_well_formed(k) and _well_formed(v) for k, v in value.items())
    return True


# --- test_json_schema_documents --------------------------------------------------------------------

TOOL = {
    "type": "object",
    "properties": {
        "name": {"const": "get_weather"},
        "arguments": {
            "type": "object",
            "title": "arguments of get_weather",
            "properties": {
                "city": {"type": "string", "description": "the city"},
                "days": {"type": "integer"},
                "unit": {"enum": ["celsius", "fahrenheit"]},
                "hourly": {"type": "boolean"},
                "lat": {"type": "number"},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
                "note": {"type": ["string", "null"]},
            },
            "required": ["city", "days"],
            "additionalProperties": False,
        },
    },
    "required": ["name", "arguments"],
}


def _tool(args: bytes) -> bytes:
    return b'{"name":"get_weather","arguments":' + args + b"}"


# Each case: (schema, valid documents, invalid documents with the reason).
# Reasons in NOT_CANONICAL are documents JSON Schema allows but that json.dumps(v, separators=(",", ":"))
# never writes (not compact, not in property order, a number spelled differently): the test checks that
# the semantic oracle accepts them and the regex does not. Every other invalid document must be rejected
# by the semantic oracle too.
NOT_CANONICAL = {"order", "whitespace", "not as json.dumps writes it"}

S_OBJ3 = {  # optional first, required middle, optional last: the property builder's corner cases
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "boolean"}, "c": {"type": "null"}},
    "required": ["b"],
}
S_ALL_OPTIONAL = {
    "type": "object",
    "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}, "z": {"type": "integer"}},
}
S_ARRAY = {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 4}
S_ARRAY0 = {"type": "array", "items": {"type": "boolean"}, "maxItems": 2}
S_STRING = {"type": "string"}

CASES = [
    (
        TOOL,
        [
            _tool(b'{"city":"Oslo","days":3}'),
            _tool(b'{"city":"Oslo","days":3,"unit":"celsius"}'),
            _tool(b'{"city":"Oslo","days":3,"hourly":true}'),  # optional ones skipped after the first
            _tool(b'{"city":"Oslo","days":-12,"unit":"fahrenheit","hourly":false,"lat":59.91,'
                  b'"tags":["a","b","c"],"note":null}'),
            _tool(b'{"city":"S\\u00e3o Paulo","days":0,"lat":-1.5e-3}'),
            _tool('{"city":"São Paulo","days":0,"note":"☔ \U0001f327"}'.encode()),
            _tool(b'{"city":"","days":1,"lat":0,"tags":["x"]}'),
            _tool(b'{"city":"a\\"b\\\\c\\/d\\b\\f\\n\\r\\t","days":1,"note":"\\uD83D\\uDE00"}'),
        ],
        [
            (_tool(b'{"days":3}'), "missing required key"),
            (_tool(b'{"city":"Oslo"}'), "missing required key"),
            (b'{"arguments":{"city":"Oslo","days":3}}', "missing required key"),
            (_tool(b'{"city":"Oslo","days":"3"}'), "wrong type"),
            (_tool(b'{"city":3,"days":3}'), "wrong type"),
            (_tool(b'{"city":"Oslo","days":3.5}'), "wrong type"),
            (_tool(b'{"city":"Oslo","days":3,"unit":"kelvin"}'), "not in enum"),
            (_tool(b'{"city":"Oslo","days":3,"note":1}'), "wrong type"),
            (b'{"name":"get_time","arguments":{"city":"Oslo","days":3}}', "wrong const"),
            (_tool(b'{"days":3,"city":"Oslo"}'), "order"),
            (b'{"arguments":{"city":"Oslo","days":3},"name":"get_weather"}', "order"),
            (_tool(b'{"city":"Oslo","days":3,"hourly":true,"unit":"celsius"}'), "order"),
            (_tool(b'{"city":"Oslo","days":3,"extra":1}'), "extra key"),
            (_tool(b'{"city":"Oslo","days":3,"unit":"celsius","unit":"celsius"}'), "duplicate key"),
            (_tool(b'{"city":"Oslo","city":"Oslo","days":3}'), "duplicate key"),
            (_tool(b'{"city":"Oslo","days":3,}'), "trailing comma"),
            (_tool(b'{"city":"Oslo","days":3,"tags":["a",]}'), "trailing comma"),
            (_tool(b'{,"city":"Oslo","days":3}'), "leading comma"),
            (_tool(b'{"city":"Oslo" ,"days":3}'), "whitespace"),
            (_tool(b'{"city": "Oslo","days":3}'), "whitespace"),
            (_tool(b'{"city":"Oslo","days":3}') + b"\n", "whitespace"),
            (b" " + _tool(b'{"city":"Oslo","days":3}'), "whitespace"),
            (_tool(b'{"city":"Oslo","days":3,"tags":[]}'), "too few items"),
            (_tool(b'{"city":"Oslo","days":3,"tags":["a","b","c","d"]}'), "too many items"),
            (_tool(b'{"city":"Os\nlo","days":3}'), "raw control byte"),
            (_tool(b'{"city":"Os\tlo","days":3}'), "raw control byte"),
            (_tool(b'{"city":"Os\x00lo","days":3}'), "raw control byte"),
            (_tool(b'{"city":"Os\x1flo","days":3}'), "raw control byte"),
            (_tool(b'{"city":"Oslo","days":03}'), "leading zero"),
            (_tool(b'{"city":"Oslo","days":-03}'), "leading zero"),
            (_tool(b'{"city":"Oslo","days":3,"lat":01.5}'), "leading zero"),
            (_tool(b'{"city":"Oslo","days":3,"lat":1e}'), "exponent without digits"),
            (_tool(b'{"city":"Oslo","days":3,"lat":1.5E+}'), "exponent without digits"),
            (_tool(b'{"city":"Oslo","days":3,"lat":1.}'), "fraction without digits"),
            (_tool(b'{"city":"Oslo","days":3,"lat":.5}'), "fraction without integer part"),
            (_tool(b'{"city":"Oslo","days":3,"lat":+1}'), "plus sign"),
            (_tool(b'{"city":"Oslo","days":3,"lat":NaN}'), "not JSON"),
            (_tool(b'{"city":"Os\\xlo","days":3}'), "bad escape"),
            (_tool(b'{"city":"Os\\u12","days":3}'), "short unicode escape"),
            (_tool(b'{"city":"\\uD83D","days":3}'), "lone surrogate escape"),
            (_tool(b'{"city":"Oslo","days":3'), "truncated"),
            (b'{"name":"get_weather","arguments":{"city":"Oslo","days":3}', "truncated"),
        ],
    ),
    (
        S_OBJ3,
        [b'{"b":true}', b'{"a":1,"b":false}', b'{"b":true,"c":null}', b'{"a":-1,"b":true,"c":null}'],
        [
            (b"{}", "missing required key"),
            (b'{"a":1}', "missing required key"),
            (b'{"a":1,"c":null}', "missing required key"),
            (b'{"b":true,"a":1}', "order"),
            (b'{"c":null,"b":true}', "order"),
            (b'{"b":true,,"c":null}', "double comma"),
            (b'{"b":true"c":null}', "missing comma"),
            (b'{"b":true,}', "trailing comma"),
        ],
    ),
    (
        S_ALL_OPTIONAL,
        [b"{}", b'{"x":1}', b'{"y":2}', b'{"z":3}', b'{"x":1,"z":3}', b'{"y":2,"z":3}', b'{"x":1,"y":2,"z":3}'],
        [
            (b'{"y":1,"x":2}', "order"),
            (b'{"x":1,"x":1}', "duplicate key"),
            (b"{,}", "lone comma"),
            (b'{,"x":1}', "leading comma"),
            (b'{"x":1,}', "trailing comma"),
            (b"", "empty document"),
            (b"null", "wrong type"),
            (b"[]", "wrong type"),
        ],
    ),
    (
        S_ARRAY,
        [b"[1,2]", b"[1,2,3]", b"[0,-1,2,3]"],
        [
            (b"[]", "too few items"),
            (b"[1]", "too few items"),
            (b"[1,2,3,4,5]", "too many items"),
            (b"[1,2,3,4,5,6]", "too many items"),
            (b"[1,2,]", "trailing comma"),
            (b"[,1,2]", "leading comma"),
            (b"[1,,2]", "double comma"),
            (b"[1,true]", "wrong type"),
            (b"[1, 2]", "whitespace"),
        ],
    ),
    (
        S_ARRAY0,
        [b"[]", b"[true]", b"[true,false]"],
        [(b"[true,false,true]", "too many items"), (b"[,]", "lone comma"), (b"[null]", "wrong type")],
    ),
    (
        S_STRING,
        [
            b'""',
            b'" !#[]~\x7f"',  # DEL is allowed raw (RFC 8259; json.loads accepts it)
            b'"\\u00e9\\u00E9\\uFFFF\\u0000\\ud7ff\\ue000"',
            b'"\\ud800\\udc00\\uDBFF\\uDFFF"',  # surrogate pairs, as json.dumps writes astral characters
            b'"\xc2\x80\xdf\xbf"',  # the 2-byte range ends
            b'"\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf"',  # 3-byte ends around the surrogates
            b'"\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"',  # U+10000 and U+10FFFF
        ],
        [
            (b'"\xc0\xaf"', "overlong"),
            (b'"\xc1\xbf"', "overlong"),
            (b'"\xe0\x80\xaf"', "overlong"),
            (b'"\xe0\x9f\xbf"', "overlong"),
            (b'"\xf0\x80\x80\xaf"', "overlong"),
            (b'"\xf0\x8f\xbf\xbf"', "overlong"),
            (b'"\xed\xa0\x80"', "surrogate"),
            (b'"\xed\xbf\xbf"', "surrogate"),
            (b'"\xed\xa0\xbd\xed\xb8\x80"', "surrogate pair in CESU-8"),
            (b'"\x80"', "stray continuation byte"),
            (b'"a\xbfb"', "stray continuation byte"),
            (b'"\xc3\xa9\xa9"', "stray continuation byte"),
            (b'"\xc3"', "truncated sequence"),
            (b'"\xe2\x82"', "truncated sequence"),
            (b'"\xf0\x9f\x98"', "truncated sequence"),
            (b'"\xc3a"', "truncated sequence"),
            (b'"\xf4\x90\x80\x80"', "above U+10FFFF"),
            (b'"\xf5\x80\x80\x80"', "above U+10FFFF"),
            (b'"\xff"', "invalid byte"),
            (b'"\xfe"', "invalid byte"),
            (b'"\\ud800"', "lone surrogate escape"),
            (b'"\\udc00\\ud800"', "reversed surrogate pair"),
            (b'"\\ud800\\u0041"', "lone surrogate escape"),
            (b'"\\"', "unterminated"),
            (b'"a"b"', "unescaped quote"),
            (b'"\\a"', "bad escape"),
            (b'"\\U0041"', "bad escape"),
            (b"'a'", "single quotes"),
        ],
    ),
    (
        {"type": "integer"},
        [b"0", b"-0", b"7", b"-7", b"10", b"123456789012345678901234567890"],
        [(b"00", "leading zero"), (b"01", "leading zero"), (b"-01", "leading zero"), (b"1.0", "not as json.dumps writes it"),
         (b"1e3", "not as json.dumps writes it"), (b"1.5", "wrong type"), (b"-", "sign only"), (b"+1", "plus sign"), (b"", "empty document")],
    ),
    (
        {"type": "number"},
        [b"0", b"-0", b"0.5", b"-0.0", b"1e5", b"1E+5", b"1e-05", b"12.75e0", b"5e-324", b"1e+16"],
        [(b"1e", "exponent without digits"), (b"1e+", "exponent without digits"), (b"1E-", "exponent without digits"),
         (b"1.e5", "fraction without digits"), (b"0.5.5", "two fractions"), (b"00.5", "leading zero"),
         (b"Infinity", "not JSON"), (b"-", "sign only"), (b"e5", "no integer part")],
    ),
    (
        {"type": ["boolean", "null"], "description": "a list of types is an alternation"},
        [b"true", b"false", b"null"],
        [(b"True", "wrong literal"), (b"nul", "truncated"), (b"0", "wrong type"), (b'"true"', "wrong type")],
    ),
    (
        {"enum": ["a\"b", "é", 1.5, None, [1, {"k": "v"}], {"x": [True]}]},
        [b'"a\\"b"', b'"\\u00e9"', b"1.5", b"null", b'[1,{"k":"v"}]', b'{"x":[true]}'],
        [(b'"a"', "not in enum"), (b"1.50", "not as json.dumps writes it"), (b"1.25", "not in enum"), (b'[1,{"k": "v"}]', "whitespace"),
         (b'"a"b"', "not JSON"), (b"15", "not in enum")],
    ),
    (
        {"type": "string", "enum": ["on", "off", 1, None]},  # type filters the enum, as JSON Schema does
        [b'"on"', b'"off"'],
        [(b"1", "wrong type"), (b"null", "wrong type")],
    ),
    (
        {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"const": "x"}, "maxItems": 1}]},
        [b"3", b"[]", b'["x"]'],
        [(b'["x","x"]', "too many items"), (b'["y"]', "wrong const"), (b"3.5", "wrong type")],
    ),
    (
        {"type": "object", "properties": {"a~/b\"é": {"type": "null"}}, "required": ["a~/b\"é"]},
        [b'{"a~/b\\"\\u00e9":null}'],
        [(b"{}", "missing required key"), ('{"a~/b\\"é":null}'.encode(), "key not in ensure_ascii form")],
    ),
]


@pytest.mark.parametrize("schema,valid,invalid", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_json_schema_documents(schema, valid, invalid):
    regex = json_schema_to_regex(schema)
    for doc in valid:
        assert is_valid(doc, schema), f"test table error: {doc!r} should be valid"
        assert matches(regex, doc), f"valid document refused: {doc!r}"
    for doc, reason in invalid:
        if reason in NOT_CANONICAL:
            assert is_valid(doc, schema), f"test table error: {doc!r} ({reason}) is valid JSON Schema-wise"
        elif reason == "key not in ensure_ascii form":
            pass  # the same value as a valid document, but keys are emitted as json.dumps(key) writes them
        else:
            assert not is_valid(doc, schema), f"test table error: {doc!r} ({reason}) should be invalid"
        assert not matches(regex, doc), f"invalid document ({reason}) accepted: {doc!r}"


def test_strings_are_exactly_the_well_formed_utf8_json_strings():
    """Exhaustive over 2 bytes and 2 bytes + a few tails: the string regex against strict decoding + json.loads."""
    regex = json_schema_to_regex({"type": "string"})
    rx, dfa = re.compile(regex.encode()), regex_to_dfa(regex)
    for tail in [b"", b"\x80", b"\x80\x80", b"\xbf\xbf", b"\xc0\x80"]:
        docs = [b'"' + bytes(pair) + tail + b'"' for pair in itertools.product(range(256), repeat=2)]
        by_dfa = dfa_matches_all(dfa, docs)
        for doc, d in zip(docs, by_dfa):
            try:
                expected = isinstance(json.loads(doc.decode("utf-8")), str)
            except (UnicodeDecodeError, ValueError):
                expected = False
            assert (rx.fullmatch(doc) is not None) == expected == d, doc


def test_unicode_escapes_are_exactly_the_non_surrogates_and_the_pairs():
    regex = json_schema_to_regex({"type": "string"})
    rx, dfa = re.compile(regex.encode()), regex_to_dfa(regex)
    for form in ("%04x", "%04X"):
        docs = [('"\\u' + form % cp + '"').encode() for cp in range(0x10000)]
        for cp, doc, d in zip(range(0x10000), docs, dfa_matches_all(dfa, docs)):
            assert (rx.fullmatch(doc) is not None) == (not 0xD800 <= cp <= 0xDFFF) == d, doc
    for hi, lo in itertools.product(range(0xD7F0, 0xE010, 7), repeat=2):
        doc = f'"\\u{hi:04x}\\u{lo:04X}"'.encode()
        ok = all(not 0xD800 <= c <= 0xDFFF for c in (hi, lo)) or (0xD800 <= hi <= 0xDBFF and 0xDC00 <= lo <= 0xDFFF)
        assert matches(regex, doc) == ok, doc


def test_numbers_are_exactly_what_json_loads_reads_as_numbers():
    """Exhaustive over short strings of number characters, against json.loads."""
    for n in range(1, 5):
        for chars in itertools.product("-+.eE019", repeat=n):
            text = "".join(chars)
            try:
                value = json.loads(text)
            except ValueError:
                value = None
            assert matches(INTEGER, text.encode()) == (type(value) is int), text
            assert matches(NUMBER, text.encode()) == (type(value) in (int, float)), text


def test_json_dumps_output_of_any_text_matches():
    for text in ["", "\x00\x1f\x7f", "\"\\/\b\f\n\r\t", "é€😀\U0010ffff", "\ud7ff\ue000\uffff"]:
        for ensure_ascii in (True, False):
            assert matches(STRING, compact(text, ensure_ascii)), (text, ensure_ascii)


def test_optional_properties_in_every_subset_and_quadratic_size():
    names = [f"p{i}" for i in range(10)]
    schema = {"type": "object", "properties": {n: {"type": "boolean"} for n in names}, "required": ["p4"]}
    regex = json_schema_to_regex(schema)
    for bits in range(1 << len(names)):
        chosen = [n for i, n in enumerate(names) if bits >> i & 1]
        doc = compact({n: True for n in chosen})
        assert matches(regex, doc) == ("p4" in chosen), doc
        if len(chosen) >= 2:  # the same members with the last two swapped are out of order
            swapped = chosen[:-2] + chosen[-1:] + chosen[-2:-1]
            assert not matches(regex, compact({n: True for n in swapped})), swapped
    sizes = {}
    for n in (20, 40, 80):
        props = {f"p{i}": {"type": "null"} for i in range(n)}
        sizes[n] = len(json_schema_to_regex({"type": "object", "properties": props}))
    # quadratic: doubling the count about quadruples the size (exponential would square it)
    assert sizes[40] < 4.5 * sizes[20] and sizes[80] < 4.5 * sizes[40], sizes


def test_array_bounds_both_ways():
    for lo, hi in [(0, 0), (0, 1), (0, 3), (1, 1), (1, 4), (2, 2), (3, 5), (0, None), (2, None)]:
        schema = {"type": "array", "items": {"const": 7}, "minItems": lo}
        if hi is not None:
            schema["maxItems"] = hi
        rx = json_schema_to_regex(schema)
        for k in range(8):
            assert matches(rx, compact([7] * k)) == (k >= lo and (hi is None or k <= hi)), (lo, hi, k)


def test_largest_array_bound_still_parses():
    from brzozowski.json.strict import MAX_ITEMS
    from brzozowski.core.syntax import parse

    rx = json_schema_to_regex({"type": "array", "items": {"type": "null"}, "minItems": MAX_ITEMS, "maxItems": MAX_ITEMS})
    parse(rx)
    assert re.fullmatch(rx.encode(), compact([None] * MAX_ITEMS))
    assert not re.fullmatch(rx.encode(), compact([None] * (MAX_ITEMS - 1)))


# --- test_json_schema_rejects_keywords_outside_the_subset ------------------------------------------

S = {"type": "string"}
REJECTED = [
    # (schema, keyword, pointer)
    ({"type": "string", "pattern": "^a"}, "pattern", "/pattern"),
    ({"type": "string", "minLength": 1}, "minLength", "/minLength"),
    ({"type": "string", "maxLength": 9}, "maxLength", "/maxLength"),
    ({"type": "string", "format": "date"}, "format", "/format"),
    ({"$ref": "#/$defs/a", "$defs": {"a": S}}, "$ref", "/$ref"),
    ({"$defs": {"a": S}, "type": "string"}, "$defs", "/$defs"),
    ({"definitions": {"a": S}, "type": "string"}, "definitions", "/definitions"),
    ({"type": "integer", "minimum": 0}, "minimum", "/minimum"),
    ({"type": "integer", "maximum": 9}, "maximum", "/maximum"),
    ({"type": "number", "exclusiveMinimum": 0}, "exclusiveMinimum", "/exclusiveMinimum"),
    ({"type": "number", "exclusiveMaximum": 0}, "exclusiveMaximum", "/exclusiveMaximum"),
    ({"type": "integer", "multipleOf": 2}, "multipleOf", "/multipleOf"),
    ({"oneOf": [S, S]}, "oneOf", "/oneOf"),
    ({"allOf": [S]}, "allOf", "/allOf"),
    ({"not": S}, "not", "/not"),
    ({"if": S, "then": S, "else": S}, "if", "/if"),
    ({"type": "object", "patternProperties": {"^a": S}}, "patternProperties", "/patternProperties"),
    ({"type": "object", "propertyNames": S}, "propertyNames", "/propertyNames"),
    ({"type": "object", "minProperties": 1}, "minProperties", "/minProperties"),
    ({"type": "object", "dependentRequired": {}}, "dependentRequired", "/dependentRequired"),
    ({"type": "array", "items": S, "uniqueItems": True}, "uniqueItems", "/uniqueItems"),
    ({"type": "array", "items": S, "contains": S}, "contains", "/contains"),
    ({"type": "array", "prefixItems": [S]}, "prefixItems", "/prefixItems"),
    ({"type": "array", "items": [S, S]}, "items", "/items"),
    ({"type": "string", "nullable": True}, "nullable", "/nullable"),
    ({"type": "string", "$id": "x"}, "$id", "/$id"),
    ({"type": "object", "additionalProperties": True}, "additionalProperties", "/additionalProperties"),
    ({"type": "object", "additionalProperties": S}, "additionalProperties", "/additionalProperties"),
    ({"type": "object", "additionalProperties": {}}, "additionalProperties", "/additionalProperties"),
    # required names that are not properties
    ({"type": "object", "properties": {"a": S}, "required": ["a", "b"]}, "required", "/required/1"),
    ({"type": "object", "required": ["a"]}, "required", "/required/0"),
    ({"type": "object", "properties": {"a": S}, "required": ["a", "a"]}, "required", "/required/1"),
    ({"type": "object", "properties": {"a": S}, "required": "a"}, "required", "/required"),
    # unknown types
    ({"type": "float"}, "type", "/type"),
    ({"type": ["string", "date"]}, "type", "/type/1"),
    ({"type": "String"}, "type", "/type"),
    ({"type": []}, "type", "/type"),
    ({"type": ["string", "string"]}, "type", "/type"),
    ({"type": 3}, "type", "/type"),
    # malformed
    ({}, "type", ""),
    ({"title": "only annotations"}, "type", ""),
    ({"type": "array"}, "items", ""),
    ({"type": "array", "items": S, "minItems": -1}, "minItems", "/minItems"),
    ({"type": "array", "items": S, "maxItems": -1}, "maxItems", "/maxItems"),
    ({"type": "array", "items": S, "maxItems": 2.5}, "maxItems", "/maxItems"),
    ({"type": "array", "items": S, "maxItems": True}, "maxItems", "/maxItems"),
    ({"type": "array", "items": S, "minItems": 3, "maxItems": 2}, "minItems", "/minItems"),
    ({"type": "array", "items": S, "maxItems": 100000}, "maxItems", "/maxItems"),
    ({"enum": []}, "enum", "/enum"),
    ({"enum": "a"}, "enum", "/enum"),
    ({"enum": ["a", float("nan")]}, "enum", "/enum/1"),
    ({"const": {1, 2}}, "const", "/const"),
    ({"enum": ["a"], "const": "a"}, "const", "/const"),
    ({"type": "integer", "enum": ["a"]}, "enum", "/enum"),
    ({"enum": [{}], "properties": {}}, "properties", "/properties"),
    ({"anyOf": []}, "anyOf", "/anyOf"),
    ({"anyOf": S}, "anyOf", "/anyOf"),
    ({"anyOf": [S], "type": "string"}, "anyOf", "/anyOf"),
    ({"properties": {"a": S}}, "properties", "/properties"),
    ({"type": "string", "items": S}, "items", "/items"),
    ({"type": "string", "required": []}, "required", "/required"),
    ({"type": "object", "properties": []}, "properties", "/properties"),
    ({"type": "object", "properties": {"a": "string"}}, "properties", "/properties/a"),
    ({"type": "object", "properties": {"a": True}}, "properties", "/properties/a"),
    ({"type": "array", "items": False}, "items", "/items"),
    ({"anyOf": [S, None]}, "anyOf", "/anyOf/1"),
    # nesting, and RFC 6901 escaping of ~ and / in property names
    (
        {"type": "object", "properties": {"a/b~c": {"type": "array", "items": {"type": "string", "pattern": "x"}}}},
        "pattern",
        "/properties/a~1b~0c/items/pattern",
    ),
    ({"anyOf": [S, {"type": "object", "properties": {"k": {"format": "uri"}}}]}, "format", "/anyOf/1/properties/k/format"),
    (
        {"type": "object", "properties": {"o": {"type": "object", "properties": {}, "required": ["z"]}}},
        "required",
        "/properties/o/required/0",
    ),
]


@pytest.mark.parametrize("schema,keyword,pointer", REJECTED, ids=[f"{k}@{p or 'root'}" for _, k, p in REJECTED])
def test_json_schema_rejects_keywords_outside_the_subset(schema, keyword, pointer):
    with pytest.raises(SchemaError) as info:
        json_schema_to_regex(schema)
    assert info.value.keyword == keyword
    assert info.value.pointer == pointer
    assert isinstance(info.value, ValueError)
    assert repr(keyword) in str(info.value) or keyword in str(info.value)
    assert (pointer or "(root)") in str(info.value)


@pytest.mark.parametrize("schema", ["string", None, True, False, 3, [S]])
def test_non_dict_schema_is_refused(schema):
    with pytest.raises(SchemaError) as info:
        json_schema_to_regex(schema)
    assert info.value.pointer == "" and info.value.keyword is None


def test_deep_or_cyclic_schemas_are_refused_not_a_recursion_error():
    from brzozowski.json.strict import MAX_DEPTH

    deep = {"type": "null"}
    for _ in range(MAX_DEPTH - 1):
        deep = {"type": "object", "properties": {"a": deep}, "required": ["a"]}
    doc = b'{"a":' * (MAX_DEPTH - 1) + b"null" + b"}" * (MAX_DEPTH - 1)
    assert matches(json_schema_to_regex(deep), doc)
    with pytest.raises(SchemaError) as info:
        json_schema_to_regex({"type": "array", "items": deep})
    assert info.value.keyword == "properties" and info.value.pointer == "/items" + "/properties/a" * (MAX_DEPTH - 1)
    cyclic = {"type": "object", "properties": {}}
    cyclic["properties"]["self"] = cyclic
    with pytest.raises(SchemaError) as info:
        json_schema_to_regex(cyclic)
    assert info.value.keyword == "properties" and info.value.pointer.startswith("/properties/self/properties/self")


def test_a_regex_that_would_blow_up_is_refused():
    from brzozowski.json.strict import MAX_REGEX_LENGTH

    nested = {"type": "string"}
    depth = 0
    while len(json_schema_to_regex(nested)) * 2 <= MAX_REGEX_LENGTH and depth < 20:  # bounded
        nested = {"type": "array", "items": nested}  # each list level writes its item twice
        depth += 1
    with pytest.raises(SchemaError) as info:
        json_schema_to_regex({"type": "object", "properties": {"x": {"type": "array", "items": nested}}})
    assert info.value.keyword == "properties" and info.value.pointer == "/properties/x"
    assert depth < 20


def test_annotations_are_accepted_and_ignored():
    plain = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    annotated = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "T",
        "description": "D",
        "$comment": "C",
        "examples": [{"a": 1}],
        "default": {"a": 2},
        "type": "object",
        "properties": {"a": {"type": "integer", "title": "a", "default": 0, "examples": [1, 2]}},
        "required": ["a"],
        "additionalProperties": False,
    }
    assert json_schema_to_regex(annotated) == json_schema_to_regex(plain)


# --- Hypothesis: random subset schemas and their instances ----------------------------------------


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_valid_instances_of_random_subset_schemas_match(data):
    schema = data.draw(subset_schemas, label="schema")
    regex = json_schema_to_regex(schema)
    value = data.draw(instances(schema), label="instance")
    jsonschema.Draft202012Validator(schema).validate(value)  # the strategy's own check
    assert matches(regex, compact(value)), compact(value)
    # Free strings also accept raw UTF-8; enum/const values and property names are spelled only as
    # json.dumps writes them by default (ASCII escapes), so ensure_ascii=False is checked without those.
    if _literals_are_ascii(schema):
        assert matches(regex, compact(value, False)), compact(value, False)


def _literals_are_ascii(schema) -> bool:
    """Whether every enum/const value and property name is spelled the same with ensure_ascii off."""
    if isinstance(schema, list):
        return all(map(_literals_are_ascii, schema))
    if not isinstance(schema, dict):
        return True
    literals = [schema[k] for k in ("const",) if k in schema] + list(schema.get("enum", []))
    literals += list(schema.get("properties", {}))
    if any(compact(v) != compact(v, False) for v in literals):
        return False
    subs = list(schema.get("properties", {}).values()) + schema.get("anyOf", []) + [schema.get("items")]
    return all(_literals_are_ascii(s) for s in subs if s is not None)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_edited_documents_that_still_match_are_valid(data):
    """Soundness near the boundary: one-byte edits of a valid document match only if they are still valid."""
    schema = data.draw(subset_schemas, label="schema")
    regex = json_schema_to_regex(schema)
    doc = compact(data.draw(instances(schema), label="instance"), data.draw(st.booleans(), label="ascii"))
    for _ in range(10):
        i = data.draw(st.integers(0, len(doc)), label="at")
        b = bytes([data.draw(st.sampled_from(b'",:[]{}\\0123456789-.eEtrufalsn \x00\x1f\x7f\x80\xbf\xc0\xc3\xe0\xed\xf0\xf4\xf5\xff'))])
        edited = data.draw(st.sampled_from([doc[:i] + b + doc[i:], doc[:i] + doc[i + 1:], doc[:i] + b + doc[i + 1:]]))
        if matches(regex, edited):
            assert is_valid(edited, schema), edited


def _check_document(doc: bytes, schema: dict, regex: str) -> None:
    assert re.fullmatch(regex.encode(), doc), f"a DFA sample that re refuses: {doc!r}"
    assert is_valid(doc, schema), f"a DFA sample that does not parse or validate: {doc!r}"


def test_documents_sampled_from_the_tool_schema_dfa_parse_and_validate():
    regex = json_schema_to_regex(TOOL)
    docs = sample_documents(regex_to_dfa(regex), random.Random(8), 300)
    for doc in docs:
        _check_document(doc, TOOL, regex)
    # the walks reach every optional argument and both string forms, not just the shortest documents
    for needle in (b'"unit"', b'"hourly"', b'"lat"', b'"tags"', b'"note":null', b'"note":"', b"\\u", b"\xf0"):
        assert any(needle in d for d in docs), needle


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(subset_schemas, st.integers(0, 2**32))
def test_documents_sampled_from_random_schema_dfas_parse_and_validate(schema, seed):
    regex = json_schema_to_regex(schema)
    for doc in sample_documents(dfa_of(regex), random.Random(seed), 15, soft_limit=60):
        _check_document(doc, schema, regex)
