"""The leaf languages of compile_json_schema (strings, integers, numbers) against jsonschema.

Oracles: ``jsonschema`` (Draft 2020-12 with ``FormatChecker``) on ``json.loads`` of each text, and
Python's ``re.search`` for patterns. Soundness: every accepted text validates. Completeness on the
canonical spellings where a language is meant to be exact. Random walks on the lazy DFA sample the
languages themselves.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import re
import warnings
from collections import deque
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brzozowski.core.derivatives import matches
from brzozowski.automata.dfa import canonical, regex_to_dfa
from brzozowski.json.ecma_regex import pattern_term
from brzozowski.json.format_tables import FormatTable
from brzozowski.errors import SchemaError
from brzozowski.json.formats import FORMAT_PATTERNS
from brzozowski.json.leaf_terms import FORMATS, json_integer_term, json_number_term, json_string_term
from brzozowski.json.numbers import INTEGER_TABLE_DIGITS, integer_parts, integer_table, integer_term
from brzozowski.json.strings import encoded_chars
from brzozowski.automata.lazy import DEAD, LazyDFA
from brzozowski.json.strict import INTEGER, NUMBER, STRING
from brzozowski.core.terms import EMPTY, K_LEAF
from .strategies import FORMAT_CHECKER, valid

KEYWORDS = {"minimum": "minimum", "maximum": "maximum", "exclusive_minimum": "exclusiveMinimum",
            "exclusive_maximum": "exclusiveMaximum", "multiple_of": "multipleOf", "min_length": "minLength",
            "max_length": "maxLength", "pattern": "pattern", "format": "format"}


def schema_of(kind: str, **keywords) -> dict:
    schema = {"type": kind}
    schema.update({KEYWORDS[k]: v for k, v in keywords.items()})
    return schema


def walk(lazy: LazyDFA, rng: random.Random, steps: int = 80, stop: float = 0.2) -> bytes:
    """A random accepted string: random live bytes, then the shortest way to acceptance."""
    state, out = lazy.start, bytearray()
    for _ in range(steps):
        if lazy.is_accepting(state) and rng.random() < stop:
            return bytes(out)
        live = [b for b in range(256) if lazy.next_state(state, b) != DEAD]
        if not live:
            break
        b = rng.choice(live)
        out.append(b)
        state = lazy.next_state(state, b)
    queue, seen = deque([(state, b"")]), {state}
    while queue:
        state, path = queue.popleft()
        if lazy.is_accepting(state):
            return bytes(out) + path
        for b in range(256):
            nxt = lazy.next_state(state, b)
            if nxt != DEAD and nxt not in seen:
                seen.add(nxt)
                queue.append((nxt, path + bytes([b])))
    raise AssertionError("a live state with no way to acceptance")


def test_unconstrained_languages_are_the_strict_compilers():
    assert regex_to_dfa(json_string_term()) == regex_to_dfa(STRING)
    assert regex_to_dfa(json_integer_term()) == regex_to_dfa(INTEGER)
    assert regex_to_dfa(json_number_term()) == regex_to_dfa(NUMBER)
    # the comparison can fail: a language missing one escape is a different automaton
    assert regex_to_dfa(json_string_term()) != regex_to_dfa(STRING.replace("bfnrt", "bfnr"))


# --- integers ------------------------------------------------------------------------------------

INTEGER_BOUNDS = [
    {"minimum": 3}, {"maximum": -7}, {"minimum": -12, "maximum": 17}, {"minimum": 0},
    {"exclusive_minimum": 1.5, "exclusive_maximum": 10}, {"exclusive_maximum": 0}, {"minimum": -1.5},
    {"maximum": 99, "exclusive_maximum": 99}, {"minimum": 100, "maximum": 1000}, {"exclusive_minimum": -101},
    {"minimum": 10**30 - 3, "maximum": 10**30 + 5}, {"maximum": -(10**25)}, {"minimum": 1e20},
    {"minimum": 9007199254740993}, {"minimum": 7, "maximum": 7}, {"minimum": 5, "exclusive_minimum": 5},
    {"exclusive_minimum": 5, "minimum": 5.5},
]


def _window(kw: dict) -> list[int]:
    points = {0}
    for value in kw.values():
        centre = math.floor(Fraction(value))
        points.update(range(centre - 12, centre + 13))
    return sorted(points)


@pytest.mark.parametrize("kw", INTEGER_BOUNDS, ids=str)
def test_integer_bounds_exhaustively_around_each_bound(kw):
    term, schema = json_integer_term(**kw), schema_of("integer", **kw)
    for n in _window(kw):
        canonical = json.dumps(n).encode()
        assert matches(term, canonical) == valid(canonical, schema), canonical
        for odd in (b"0" + canonical, canonical + b".0", canonical + b"e0", b"+" + canonical, b" " + canonical):
            assert not matches(term, odd), odd  # only canonical integer spellings are written
    if any(Fraction(v) <= 0 for v in kw.values()) or not kw:
        assert matches(term, b"-0") == valid(b"-0", schema)


@settings(max_examples=60, deadline=None)
@given(st.integers(-10**6, 10**6), st.integers(0, 3000), st.sampled_from(["mm", "xm", "mx", "xx"]),
       st.lists(st.integers(-10**6, 10**7), max_size=12))
def test_integer_ranges_hypothesis(lo, span, kinds, probes):
    kw = {("minimum" if kinds[0] == "m" else "exclusive_minimum"): lo,
          ("maximum" if kinds[1] == "m" else "exclusive_maximum"): lo + span}
    schema = schema_of("integer", **kw)
    edges = [lo - 1, lo, lo + 1, lo + span - 1, lo + span, lo + span + 1]
    try:
        term = json_integer_term(**kw)
    except SchemaError:  # only when no integer is in range
        assert not any(valid(json.dumps(n).encode(), schema) for n in edges)
        return
    for n in probes + edges:
        text = json.dumps(n).encode()
        assert matches(term, text) == valid(text, schema), (kw, n)


def test_integer_walks_validate():
    rng = random.Random(11)
    for kw in INTEGER_BOUNDS:
        lazy, schema = LazyDFA(json_integer_term(**kw)), schema_of("integer", **kw)
        for _ in range(15):
            text = walk(lazy, rng)
            assert valid(text, schema), (kw, text)


def _table_dfa(table):
    dfa = table.to_dfa()
    return canonical(dfa.accept, dfa.trans)


@pytest.mark.parametrize("kw", [*INTEGER_BOUNDS, {"minimum": 120, "maximum": 4500}, {"minimum": -3400, "maximum": -120},
                                {"minimum": -2**63, "maximum": 2**63 - 1}, {"maximum": 10**20 + 7}], ids=str)
def test_bounded_integers_are_one_table_whose_language_is_integer_terms(kw):
    """Bounded integers are the atom of an automaton `integer_table` built from the bounds (no
    derivative): its canonical DFA is the term's, state for state; a bound of more than
    `INTEGER_TABLE_DIGITS` digits keeps the term, and so does ``multipleOf``."""
    atom, term = json_integer_term(**kw), integer_term(**kw)
    if any(len(str(abs(math.floor(Fraction(v))))) > INTEGER_TABLE_DIGITS for v in kw.values()):
        assert integer_parts(**kw) is None and atom is term
        return
    assert atom.kind == K_LEAF and isinstance(atom.table.dfa, FormatTable)
    reference = regex_to_dfa(term)
    assert _table_dfa(atom.table.dfa) == reference and atom.table.dfa.n_states <= len(reference.accept) + 2
    assert json_integer_term(multiple_of=3, **kw).kind != K_LEAF


@settings(max_examples=80, deadline=None)
@given(st.one_of(st.none(), st.integers(-10**7, 10**7), st.floats(-1e7, 1e7, allow_nan=False)),
       st.one_of(st.none(), st.integers(-10**7, 10**7), st.floats(-1e7, 1e7, allow_nan=False)),
       st.booleans(), st.booleans())
def test_integer_tables_for_any_bounds_are_integer_terms_languages(lo, hi, lo_exclusive, hi_exclusive):
    kw = {("exclusive_minimum" if lo_exclusive else "minimum"): lo,
          ("exclusive_maximum" if hi_exclusive else "maximum"): hi}
    parts = integer_parts(**kw)
    term = integer_term(**kw)
    if parts is None:  # only when no integer satisfies the bounds
        assert term is EMPTY
    else:  # the canonical DFA's states, but for the start and the state after "-" (may equal one)
        table, reference = FormatTable(*integer_table(parts)), regex_to_dfa(term)
        assert _table_dfa(table) == reference, kw
        assert table.n_states <= len(reference.accept) + 2, kw


# --- numbers -------------------------------------------------------------------------------------

def _decimal(q: Fraction, digits: int) -> str:
    """q written with exactly `digits` digits after the point (truncated toward zero)."""
    sign = "-" if q < 0 else ""
    q = abs(q)
    whole = math.floor(q)
    return f"{sign}{whole}.{str(math.floor((q - whole) * 10**digits)).rjust(digits, '0')}"


def _near(bound: float) -> list[str]:
    """Decimals around a bound: the doubles next to it, and the midpoints between them, ± a hair."""
    if isinstance(bound, int) and abs(bound) > 2**1024:  # beyond every double: integers and fractions
        return [str(bound + k) for k in range(-2, 3)] + [f"{bound + k}.{f}" for k in (-1, 0) for f in (0, 1, 9)]
    texts = []
    x = float(bound)
    for direction in (-math.inf, math.inf):
        y = x
        for _ in range(3):
            nxt = math.nextafter(y, direction)
            if math.isinf(nxt):
                break
            mid = (Fraction(y) + Fraction(nxt)) / 2
            for q in (Fraction(y), mid, mid + Fraction(1, 10**80), mid - Fraction(1, 10**80)):
                texts.append(_decimal(q, 90).rstrip("0").rstrip("."))
            texts.append(repr(y))
            y = nxt
    return texts


NUMBER_BOUNDS = [
    {"minimum": 0.1}, {"maximum": 0.1}, {"exclusive_minimum": 0.1}, {"exclusive_maximum": 0.1},
    {"minimum": 1.5, "maximum": 2.5}, {"exclusive_minimum": -2.5, "exclusive_maximum": -1.5},
    {"minimum": 0}, {"exclusive_minimum": 0}, {"maximum": 0}, {"exclusive_maximum": 0},
    {"minimum": 1e-5}, {"maximum": 100.25}, {"minimum": 2**53 + 1}, {"exclusive_maximum": 1e20},
    {"minimum": -3, "maximum": 3}, {"minimum": 0.3, "exclusive_maximum": 0.30000000000000004},
    {"minimum": 10**320}, {"exclusive_maximum": -(10**320)}, {"minimum": 1.7976931348623157e308},
]


@pytest.mark.parametrize("kw", NUMBER_BOUNDS, ids=str)
def test_number_bounds_near_each_bound(kw):
    notes: list[str] = []
    term, schema = json_number_term(notes=notes, **kw), schema_of("number", **kw)
    texts = [t for v in kw.values() for t in _near(v)]
    texts += [str(n) for n in range(-4, 5)] + ["-0", "-0.0", "0.0", "0.5", "-0.5", "1.0", "1e0", "-1e-400"]
    for text in texts:
        data = text.encode()
        ok = valid(data, schema)
        if matches(term, data):
            assert ok, text
        elif ok and "e" not in text and not text.startswith(("0", "-0")) or ok and text in ("0.0", "0.5", "-0.5"):
            raise AssertionError(f"{text} is valid and canonical but not accepted")
    assert any("exponent" in note for note in notes)


@settings(max_examples=60, deadline=None)
@given(st.floats(-1e6, 1e6, allow_nan=False), st.sampled_from(list(KEYWORDS)[:4]),
       st.lists(st.floats(-1e7, 1e7, allow_nan=False) | st.integers(-10**7, 10**7), max_size=10))
def test_number_bounds_hypothesis(bound, keyword, probes):
    kw = {keyword: bound}
    term, schema = json_number_term(**kw), schema_of("number", **kw)
    for value in probes + [bound, math.nextafter(bound, 0), math.nextafter(bound, math.inf)]:
        text = json.dumps(value).encode()
        if "e" in text.decode():
            continue  # exponents are not written under a bound
        assert matches(term, text) == valid(text, schema), (kw, text)


def test_number_walks_validate():
    rng = random.Random(5)
    for kw in NUMBER_BOUNDS:
        lazy, schema = LazyDFA(json_number_term(**kw)), schema_of("number", **kw)
        for _ in range(12):
            text = walk(lazy, rng)
            assert valid(text, schema), (kw, text)


def _nested(depth: int, build):
    return build() if depth == 0 else _nested(depth - 1, build)


def test_long_bounds_build_without_deep_recursion():
    """Bounds with hundreds of digits, built 700 frames deep (as inside a nested schema)."""
    for kw in ({"minimum": -1.7976931348623157e308, "exclusive_maximum": 1e-30}, {"maximum": 10**349 + 5}):
        term = _nested(700, lambda: json_number_term(**kw))
        schema = schema_of("number", **kw)
        for text in (b"-" + b"9" * 308, b"0." + b"0" * 29 + b"1", b"0." + b"0" * 30 + b"1", b"1" + b"0" * 349):
            assert matches(term, text) == valid(text, schema), text


def test_bounds_near_zero_are_sound_and_noted():
    for kw in ({"exclusive_minimum": 0}, {"minimum": 5e-324}, {"maximum": -1e-300}):
        notes: list[str] = []
        term, schema = json_number_term(notes=notes, **kw), schema_of("number", **kw)
        value = next(iter(kw.values()))
        for text in _near(value) + ["0.0", "-0.0", "1e-320"]:
            if matches(term, text.encode()):
                assert valid(text.encode(), schema), (kw, text)
        assert any("round" in note for note in notes) or kw == {"exclusive_minimum": 0}


@pytest.mark.parametrize("kw", [{"exclusive_minimum": 1e-5}, {"minimum": 0.000125}, {"exclusive_minimum": 2.5e-7},
                                {"exclusive_minimum": 0}], ids=str)
def test_lower_bounds_after_leading_zeros_of_the_fraction(kw):
    """A lower bound 0.0…0t (z zeros) is built as "fewer than z zeros, then a digit that is not 0,
    then anything | z zeros then at least t": texts with z - 2 to z + 2 zeros then digits decide
    as jsonschema does (for 0, whose bound is the midpoint under the least double with 323 zeros
    and rounded to 350 digits, soundly; exactly with fewer than 322 zeros)."""
    term, schema = json_number_term(**kw), schema_of("number", **kw)
    bound = next(iter(kw.values()))
    zeros = 323 if bound == 0 else len(_decimal(Fraction(bound), 40).split(".")[1]) - len(
        _decimal(Fraction(bound), 40).split(".")[1].lstrip("0"))
    for k in range(max(zeros - 2, 0), zeros + 3):
        for digit in "159":
            for tail in ("", "0", "5", "49", "51", "2470328229206232720882538"):
                text = f"0.{'0' * k}{digit}{tail}".encode()
                ok = valid(text, schema)
                if matches(term, text):
                    assert ok, (kw, text)
                elif ok and (bound != 0 or k < 322):
                    raise AssertionError(f"{text!r} is valid and canonical but not accepted under {kw}")


@pytest.mark.parametrize("divisor", [1, 2, 5, 10, 4, 25, 100, 8, 1000, 16, 3, 6, 7, 9, 11])
def test_multiple_of_exhaustively(divisor):
    term, schema = json_integer_term(multiple_of=divisor), schema_of("integer", multiple_of=divisor)
    for n in list(range(-1100, 1100)) + [10**20 + k for k in range(-30, 30)] + [k * 10**15 + 3 for k in range(30)]:
        text = json.dumps(n).encode()
        assert matches(term, text) == valid(text, schema), text
    for kw in ({"minimum": -37, "maximum": 120}, {"exclusive_minimum": 3.5, "exclusive_maximum": 64}):
        bounded = json_integer_term(multiple_of=divisor, **kw)
        bounded_schema = schema_of("integer", multiple_of=divisor, **kw)
        for n in range(-60, 140):
            text = json.dumps(n).encode()
            assert matches(bounded, text) == valid(text, bounded_schema), (kw, text)
    lazy, rng = LazyDFA(term), random.Random(divisor)
    for _ in range(10):
        text = walk(lazy, rng, steps=25)
        assert valid(text, schema), text
    notes: list[str] = []
    number = json_number_term(multiple_of=divisor, notes=notes)
    assert matches(number, str(divisor * 7).encode()) and not matches(number, b"%d.0" % (divisor * 7)) and notes


# --- strings: lengths ----------------------------------------------------------------------------

# Spellings of single characters: raw ASCII, raw 2- and 4-byte UTF-8, escapes of each kind.
SPELLINGS = [b"a", b"\\n", b"\xc3\xa9", b"\\u00E9", b"\\ud83d\\ude00", b"\xf0\x9f\x98\x80", b"\\/", b'\\"']


@pytest.mark.parametrize("lo,hi", [(0, 0), (0, 2), (1, 1), (2, 3), (3, None), (1, None)])
def test_string_lengths_exhaustively(lo, hi):
    term = json_string_term(min_length=lo, max_length=hi)
    schema = schema_of("string", min_length=lo, **({} if hi is None else {"max_length": hi}))
    for n in range(5):
        for chars in itertools.product(SPELLINGS, repeat=n):
            text = b'"' + b"".join(chars) + b'"'
            assert matches(term, text) == valid(text, schema), text
    assert not matches(term, b'"\\ud83d"') and not matches(term, b'"\xed\xa0\x80"')  # lone surrogates


def spellings_of(c: str) -> set[bytes]:
    """Every way JSON writes the character c: raw (when allowed), escaped in both hex cases, short escape."""
    out = {json.dumps(c).encode()[1:-1], json.dumps(c, ensure_ascii=False).encode()[1:-1]}
    units = [ord(c)] if ord(c) < 0x10000 else [0xD800 + ((ord(c) - 0x10000) >> 10), 0xDC00 + (ord(c) & 0x3FF)]
    out.add("".join(f"\\u{u:04x}" for u in units).encode())
    out.add("".join(f"\\u{u:04X}" for u in units).encode())
    if ord(c) >= 0x20 and c not in '"\\':
        out.add(c.encode())
    return out


@pytest.mark.parametrize("lo,hi", [(0x41, 0x5A), (0x7F, 0x81), (0x7FF, 0x800), (0xD7F0, 0xE010), (0xFFF0, 0x10010),
                                   (0x10FFF0, 0x10FFFF), (0x1F600, 0x1F64F), (0, 0x10FFFF), (0x5C, 0x5C)])
def test_encoded_chars_of_a_range_are_every_spelling_of_exactly_its_characters(lo, hi):
    term = encoded_chars(((lo, hi),))
    rng = random.Random(lo)
    probes = {lo - 2, lo - 1, lo, lo + 1, hi - 1, hi, hi + 1, hi + 2, 0x10000, 0x10FFFF, 0xFFFF, 0xE000, 0xD7FF}
    probes |= {rng.randrange(0x110000) for _ in range(200)}
    for cp in sorted(p for p in probes if 0 <= p <= 0x10FFFF and not 0xD800 <= p <= 0xDFFF):
        for spelling in spellings_of(chr(cp)):
            assert matches(term, spelling) == (lo <= cp <= hi), (hex(cp), spelling)
            assert json.loads(b'"' + spelling + b'"') == chr(cp)


@pytest.mark.parametrize("keywords", [
    {"pattern": "^[a-z]{2,4}$", "min_length": 1, "max_length": 5}, {"pattern": "ab", "min_length": 2},
    {"pattern": "^(?:é|\\n)*x$|^y+$", "min_length": 1}, {"format": "uuid", "min_length": 36, "max_length": 36},
    {"format": "ipv4", "max_length": 15}, {"format": "date-time", "min_length": 20},
])
def test_length_bounds_a_pattern_or_format_implies_are_exact(keywords):
    term = json_string_term(**keywords)
    without = {k: v for k, v in keywords.items() if k not in ("min_length", "max_length")}
    assert term is json_string_term(**without)
    schema = schema_of("string", **keywords)
    rng = random.Random(str(keywords))
    lazy = LazyDFA(term)
    for _ in range(20):
        assert valid(walk(lazy, rng, steps=40), schema)
    for n in range(5):
        for chars in itertools.product(["a", "b", "é", "\n", "x", "y"], repeat=n):
            text = json.dumps("".join(chars)).encode()
            if matches(term, text):
                assert valid(text, schema), text
            else:  # complete, but for Python's '$' before a final newline
                assert not valid(text, schema) or chars[-1] == "\n", text


@pytest.mark.parametrize("keywords", [
    {"pattern": "a", "max_length": 3}, {"pattern": "^a+$", "min_length": 3}, {"pattern": "^[a-z]+", "min_length": 2,
                                                                                "max_length": 4},
    {"pattern": "(?:é|\\n)$", "max_length": 2},
])
def test_pattern_and_lengths_intersect_exactly(keywords):
    term = json_string_term(**keywords)
    schema = schema_of("string", **keywords)
    for n in range(6):
        for chars in itertools.product(["a", "b", "é", "\n"], repeat=n):
            for text in (json.dumps("".join(chars)).encode(), json.dumps("".join(chars), ensure_ascii=False).encode()):
                if matches(term, text):
                    assert valid(text, schema), text
                else:  # complete, but for Python's '$' before a final newline
                    assert not valid(text, schema) or (chars and chars[-1] == "\n"), text
    rng = random.Random(str(keywords))
    lazy = LazyDFA(term)
    for _ in range(15):
        assert valid(walk(lazy, rng, steps=20), schema)


@pytest.mark.parametrize("keywords", [
    {"format": "hostname", "max_length": 10}, {"format": "date", "pattern": "^2024-02"},
    {"format": "email", "pattern": "@ex", "max_length": 12}, {"format": "ipv4", "min_length": 14},
])
def test_formats_with_patterns_and_lengths_intersect(keywords):
    term = json_string_term(**keywords)
    schema = schema_of("string", **keywords)
    rng = random.Random(str(keywords))
    lazy = LazyDFA(term)
    for _ in range(25):
        assert valid(walk(lazy, rng, steps=40), schema)
    examples = {"hostname": ["a.b", "abcdefghij", "abcdefghijk"], "date": ["2024-02-29", "2024-03-01", "2023-02-01"],
                "email": ["x@ex.com", "x@y.com", "xyz@ex.co.uk"], "ipv4": ["255.255.255.0", "1.2.3.4", "10.200.30.40"]}
    for value in examples[keywords["format"]]:
        text = json.dumps(value).encode()
        assert matches(term, text) == valid(text, schema), value


def test_string_walks_validate():
    rng = random.Random(3)
    for lo, hi in [(0, 3), (2, 2), (4, None), (0, 40)]:
        lazy = LazyDFA(json_string_term(min_length=lo, max_length=hi))
        schema = schema_of("string", min_length=lo, **({} if hi is None else {"max_length": hi}))
        for _ in range(25):
            text = walk(lazy, rng)
            assert valid(text, schema), text


# --- strings: formats ----------------------------------------------------------------------------

FORMAT_EXAMPLES = {
    "date": (["2024-02-29", "2000-02-29", "0001-01-01", "2023-12-31"],
             ["2023-02-29", "1900-02-29", "2023-04-31", "0000-02-29", "0000-01-01", "2023-13-01", "2023-00-10"]),
    "time": (["23:59:59Z", "00:00:00.123+05:30", "12:00:00z"], ["24:00:00Z", "12:00:00", "12:60:00Z"]),
    "date-time": (["2024-02-29T12:00:00Z", "1999-12-31t23:59:59.5-08:00"], ["2024-02-30T12:00:00Z"]),
    "duration": (["P1D", "PT1H30M", "P2W", "P1Y2M3DT4H5M6S"], ["P", "PT", "P1H"]),
    "email": (["a.b+c@example.com", "x@y"], ["ab"]),
    "hostname": (["example.com", "a-b.c0", "x" * 63 + ".com"], ["-a.com", "a..b", "x" * 64]),
    "ipv4": (["192.168.0.1", "0.0.0.0", "255.255.255.255"], ["256.1.1.1", "01.2.3.4", "1.2.3"]),
    "ipv6": (["::", "::1", "2001:db8::8a2e:370:7334", "::ffff:192.0.2.1", "1:2:3:4:5:6:7:8"],
             ["1:2:3:4:5:6:7:8:9", ":::", "fe80::1%eth0"]),
    "uuid": (["123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000"],
             ["123e4567e89b12d3a456426614174000"]),
    "uri": (["https://example.com/a?b=c#d", "mailto:x@y", "urn:isbn:123", "http://[::1]:80/"],
            ["//example.com", "a b:c", "http://x/%zz"]),
    "uri-reference": (["../a/b?c", "#frag", "", "//host/p", "https://e.com"], ["a b", "%zz"]),
    "iri": (["https://example.com/a?b=c#d", "urn:isbn:123", "https://e.com/%C3%A4"], ["//example.com", "a b:c"]),
    "iri-reference": (["../a/b?c", "#frag", "", "//host/p"], ["a b", "%zz"]),
    "json-pointer": (["", "/", "/a~0b/~1", "//", "/é"], ["a", "/~2", "~", "/a~"]),
    "relative-json-pointer": (["0", "10#", "1/a~1b", "0/", "9990/x"], ["", "01", "#", "2#x", "0~", "-1", "100", "105#"]),
    "regex": (["", "a*", "^(?:ab|c)+?$", r"[\d.]+x\.", "|", "()", r"\bé.\Z", "[^\\]]"],
              ["a**", "^*", "[z-a]", "a{3,2}", "(", "\\", "[^]", r"\Q", r"\b*"]),
}


def test_formats_never_need_pythons_unicode_classes():
    """The formats' patterns spell digits [0-9] (what \\d means once both dialects agree): Python's
    Unicode \\d, \\w or \\s (read from the shipped table, or a scan of every code point) is never
    needed for them. A pattern with \\d still needs it, and the scalars a scan reads are every
    code point but the surrogates."""
    from brzozowski.json import ecma_regex

    ecma_regex._python_class.cache_clear()
    ecma_regex._PIECES.clear()
    for pattern in FORMAT_PATTERNS.values():
        ecma_regex.parse_pattern(pattern)
    assert ecma_regex._python_class.cache_info().currsize == 0
    ecma_regex.parse_pattern("^\\d+$")
    assert ecma_regex._python_class.cache_info().currsize == 1
    scalars = ecma_regex._all_scalars()
    assert len(scalars) == 0x110000 - 0x800 and scalars[0xD7FF] == "\ud7ff" and scalars[0xD800] == "\ue000"
    assert scalars[-1] == "\U0010ffff"


def test_every_format_is_implemented_and_has_a_real_checker():
    assert FORMATS == set(FORMAT_EXAMPLES) == set(FORMAT_PATTERNS)
    for name, (good, bad) in FORMAT_EXAMPLES.items():
        assert bad, name
        for value in bad:  # the checker package is installed: the oracle is not vacuous
            assert not FORMAT_CHECKER.conforms(value, name), (name, value)
        for value in good:
            assert FORMAT_CHECKER.conforms(value, name), (name, value)


@pytest.mark.parametrize("name", sorted(FORMAT_EXAMPLES))
def test_formats_accept_the_examples_in_every_spelling_and_refuse_the_bad_ones(name):
    term = json_string_term(format=name)
    good, bad = FORMAT_EXAMPLES[name]
    for value in good:
        for ensure_ascii in (True, False):
            assert matches(term, json.dumps(value, ensure_ascii=ensure_ascii).encode()), value
        escaped = '"' + "".join(f"\\u{ord(c):04X}" for c in value) + '"'
        assert matches(term, escaped.encode()), escaped
    for value in bad:
        assert not matches(term, json.dumps(value).encode()), value


def test_narrower_formats_are_noted():
    for name in ("email", "hostname", "duration", "uuid", "uri"):
        notes: list[str] = []
        json_string_term(format=name, notes=notes)
        assert notes and name in notes[0]
    assert FORMAT_CHECKER.conforms("12345678-1234-1234-1234-1234-56789abc", "uuid")  # what the uuid note says
    notes = []
    json_string_term(format="date", notes=notes)
    assert notes == []


def test_regex_format_walks_compile_with_python_re():
    """The regex format's language is a subset of what re.compile takes: 400 long random walks."""
    rng = random.Random(1)
    lazy = LazyDFA(json_string_term(format="regex"))
    for _ in range(400):
        text = walk(lazy, rng, steps=80)
        pattern = json.loads(text)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no FutureWarning (nested sets) either
            re.compile(pattern)


@pytest.mark.parametrize("name", sorted(FORMAT_EXAMPLES))
def test_format_walks_validate(name):
    rng = random.Random(name)
    lazy, schema = LazyDFA(json_string_term(format=name)), schema_of("string", format=name)
    for _ in range(40):
        text = walk(lazy, rng, steps=60)
        assert valid(text, schema), text


# --- strings: patterns ---------------------------------------------------------------------------

PATTERN_TABLE = [
    "abc", "^abc", "abc$", "^abc$", "^[a-z]+$", "^[^a-z]*$", "a|^b|c$", "^(ab|cd)+e?$", "^a{2,3}$",
    "^a{2}b{1,}$", r"^\d+$", r"^\D+$", r"^\w\W$", r"^\s*$", r"\S", "^.$", "^.*$", r"^[\d.-]+$",
    r"^\x41\u00e9$", "é", "^😀$", r"^[\u00e0-\u00ff]+$", r"^\$\.\*$", "^(?:a|b)*?c$", r"^[\-\]]$", "^[a-]$",
    r"^[\n\t]$", r"\/", "^\\0$", "^[^\\s]+$", r"^[\b\v\f]$", r"^\v\f$",
]
PATTERN_STRINGS = [
    "", "a", "b", "c", "abc", "xabcx", "ab", "cde", "abcde", "aa", "aaa", "aaaa", "aab", "123", "1a", "٣",
    "a b", " ", "\u00a0", "\n", "x\n", "\r", "\u2028", "é", "àÿ", "😀", "$.*", "aac", "-", "]", "\t", "/",
    "\x00", "1.5-2", "a!", "abc\n", "٣٤", "\b", "\x0b", "\x0c", "\x0b\x0c",
]


@pytest.mark.parametrize("pattern", PATTERN_TABLE)
def test_patterns_against_re_search(pattern):
    term = json_string_term(pattern=pattern)
    compiled = re.compile(pattern)
    for s in PATTERN_STRINGS:
        expected = compiled.search(s) is not None
        spellings = {json.dumps(s, ensure_ascii=True), json.dumps(s, ensure_ascii=False),
                     '"' + "".join(f"\\u{ord(c):04x}" if ord(c) < 0x10000 else c for c in s) + '"'}
        # Python and ECMA differ on Unicode digits/word/space characters, line terminators and '$'
        differs = any(c in s for c in "٣\u00a0\n\r\u2028") or (pattern.endswith("$") and s.endswith("\n"))
        for text in spellings:
            got = matches(term, text.encode())
            if got:
                assert expected, (pattern, s)  # sound: accepted ⇒ re.search finds it
            elif not differs:
                assert not expected, (pattern, s, text)


@pytest.mark.parametrize("pattern,text,accepted", [
    (r"^\d$", "٣", False), (r"^\D$", "٣", False), (r"^\w$", "é", False), (r"^\W$", "é", False),
    (r"^\s$", "\u00a0", True), (r"^\s$", "\x1c", False), (r"^\S$", "\x1c", False), ("^.$", "\r", False),
    ("a$", "a\n", False), ("^.$", "😀", True), (r"^[^\d]$", "٣", False), (r"^[^\s]$", "\x1c", False),
    (r"^[^\w]$", "é", False), (r"^[^\W]$", "é", False), (r"^[\w]$", "é", False), (r"^[^a]$", "٣", True),
])
def test_pattern_takes_the_meaning_both_dialects_share(pattern, text, accepted):
    assert matches(json_string_term(pattern=pattern), json.dumps(text).encode()) == accepted


ECMA_ATOMS = ["a", "b", ".", r"\d", r"\w", r"\s", "[ab]", "[^a]", "é", r"\.", "(?:a|b)"]


@st.composite
def ecma_patterns(draw):
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        atom = draw(st.sampled_from(ECMA_ATOMS))
        parts.append(atom + draw(st.sampled_from(["", "", "*", "+", "?", "{1,2}", "*?"])))
    body = "".join(parts)
    return draw(st.sampled_from(["", "^"])) + body + draw(st.sampled_from(["", "$"]))


@settings(max_examples=80, deadline=None)
@given(ecma_patterns(), st.lists(st.text(alphabet="ab.é1 _", max_size=6), min_size=1, max_size=6))
def test_patterns_hypothesis(pattern, strings):
    term = json_string_term(pattern=pattern)
    for s in strings:
        expected = re.search(pattern, s) is not None
        # \w, \d, \s mean more in Python than in ECMA on non-ASCII text: there only soundness is owed
        differs = not s.isascii() and any(c in pattern for c in (r"\w", r"\d", r"\s"))
        for text in (json.dumps(s), json.dumps(s, ensure_ascii=False)):
            got = matches(term, text.encode())
            assert got == expected or (differs and expected and not got), (pattern, s, text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab.()[]{}^$|*+?\\-,02dDwWsSbux:=!<>é", max_size=10),
       st.lists(st.text(alphabet="ab-,0.é\n ", max_size=5), max_size=5))
def test_any_pattern_text_is_refused_or_sound(pattern, strings):
    """Random pattern text: a SchemaError naming pattern, or a language that re.search agrees with."""
    try:
        term = json_string_term(pattern=pattern)
    except SchemaError as e:
        assert e.keyword == "pattern"
        return
    compiled = re.compile(pattern)  # everything accepted is a valid Python pattern too
    for s in strings:
        if matches(term, json.dumps(s).encode()):
            assert compiled.search(s), (pattern, s)


def test_pattern_walks_validate():
    rng = random.Random(7)
    for pattern in PATTERN_TABLE:
        lazy, schema = LazyDFA(json_string_term(pattern=pattern)), schema_of("string", pattern=pattern)
        for _ in range(8):
            text = walk(lazy, rng, steps=30)
            assert valid(text, schema), (pattern, text)


# --- refusals ------------------------------------------------------------------------------------

@pytest.mark.parametrize("make,keyword", [
    (lambda: json_string_term(pattern="(?=a)"), "pattern"),
    (lambda: json_string_term(pattern="(?<!a)b"), "pattern"),
    (lambda: json_string_term(pattern=r"(a)\1"), "pattern"),
    (lambda: json_string_term(pattern=r"\bword"), "pattern"),
    (lambda: json_string_term(pattern="(?<name>a)"), "pattern"),
    (lambda: json_string_term(pattern="a*+"), "pattern"),
    (lambda: json_string_term(pattern="a{,3}"), "pattern"),
    (lambda: json_string_term(pattern=r"\p{L}"), "pattern"),
    (lambda: json_string_term(pattern=r"\u{1F600}"), "pattern"),
    (lambda: json_string_term(pattern=r"\ud83d"), "pattern"),
    (lambda: json_string_term(pattern="[]"), "pattern"),
    (lambda: json_string_term(pattern="a^b"), "pattern"),
    (lambda: json_string_term(pattern="(a$)"), "pattern"),
    (lambda: json_string_term(pattern="(a"), "pattern"),
    (lambda: json_string_term(pattern="a)"), "pattern"),
    (lambda: json_string_term(pattern="[a"), "pattern"),
    (lambda: json_string_term(pattern="a{1001}"), "pattern"),
    (lambda: json_string_term(pattern=r"[\d-z]"), "pattern"),
    (lambda: json_string_term(pattern="(?i)a"), "pattern"),
    (lambda: json_string_term(pattern=r"\cA"), "pattern"),
    (lambda: json_string_term(pattern=3), "pattern"),
    (lambda: json_string_term(format="color"), "format"),
    (lambda: json_string_term(max_length=-1), "maxLength"),
    (lambda: json_string_term(min_length=1.5), "minLength"),
    (lambda: json_string_term(max_length=10**6), "maxLength"),
    (lambda: json_integer_term(minimum="1"), "minimum"),
    (lambda: json_integer_term(maximum=True), "maximum"),
    (lambda: json_integer_term(minimum=math.inf), "minimum"),
    (lambda: json_integer_term(minimum=10**700), "minimum"),
    (lambda: json_integer_term(multiple_of=13), "multipleOf"),
    (lambda: json_integer_term(multiple_of=0.5), "multipleOf"),
    (lambda: json_integer_term(multiple_of=2.0), "multipleOf"),
    (lambda: json_integer_term(multiple_of=0), "multipleOf"),
    (lambda: json_integer_term(multiple_of=1024), "multipleOf"),
    (lambda: json_number_term(multiple_of=0.01), "multipleOf"),
])
def test_refusals_name_the_keyword(make, keyword):
    with pytest.raises(SchemaError) as info:
        make()
    assert info.value.keyword == keyword
    assert info.value.pointer == ""


@pytest.mark.parametrize("make", [
    lambda notes: json_string_term(pattern="[^\\s\\S]", notes=notes),
    lambda notes: json_string_term(pattern="^[^\\d\\D]|[^\\w\\W]$", notes=notes),
    lambda notes: json_string_term(min_length=3, max_length=2, notes=notes),
    lambda notes: json_integer_term(minimum=5, maximum=4, notes=notes),
    lambda notes: json_integer_term(exclusive_minimum=1, exclusive_maximum=2, notes=notes),
    lambda notes: json_integer_term(minimum=0.5, maximum=0.75, notes=notes),
    lambda notes: json_number_term(minimum=2, maximum=1, notes=notes),
    lambda notes: json_number_term(exclusive_minimum=1, exclusive_maximum=1, notes=notes),
    lambda notes: json_string_term(format="date", min_length=11, notes=notes),
    lambda notes: json_string_term(pattern="^a{5}$|^b{6,}$", max_length=4, notes=notes),
])
def test_keywords_that_leave_nothing_give_the_empty_language_and_a_note(make):
    """Not an error: in a type list or an anyOf another branch may still allow values."""
    notes: list[str] = []
    assert make(notes) is EMPTY
    assert any("no " in note and "satisf" in note for note in notes), notes


def test_pattern_errors_show_offset_and_caret():
    with pytest.raises(SchemaError) as info:
        pattern_term("ab(?=c)")
    assert "offset 2" in str(info.value) and "\n  ab(?=c)\n    ^" in str(info.value)


def test_every_accepted_table_pattern_compiles_in_python():
    for pattern in PATTERN_TABLE + list(FORMAT_PATTERNS.values()):
        re.compile(pattern)


def test_the_shipped_unicode_classes_are_this_pythons_or_left_unread():
    """`ecma_regex.UNICODE_CLASSES` (Python's \\d \\w \\s and ECMA's white space, read instead of
    scanning every scalar) equals what this Python computes when its Unicode version is the
    file's; under another version the classes are computed, the same either way."""
    import json
    import unicodedata

    from brzozowski.json import ecma_regex

    shipped = json.loads(ecma_regex.UNICODE_CLASSES.read_text(encoding="utf-8"))
    if shipped["unidata_version"] == unicodedata.unidata_version:
        assert shipped == json.loads(json.dumps(ecma_regex.computed_unicode_classes()))
    for letter in "dws":
        assert ecma_regex._python_class(letter) == ecma_regex._scanned_class(letter)
    assert ecma_regex._ecma_space() == ecma_regex._scanned_ecma_space()
