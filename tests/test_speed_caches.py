"""The caches that make a schema's first mask cheap give the results of building everything anew.

Oracle: the same compilation with an empty cache (terms are interned, so the same
language built the same way is the same object); the notes ``--explain`` prints are the same too.
Soundness against ``jsonschema`` is test_compile_schema.py's: here only "cached == fresh" is claimed.
"""

from __future__ import annotations

import pytest

from brzozowski.json.compiler import recursion as schema_compiler  # the module that holds the cache
from brzozowski.automata.dfa import regex_to_dfa
from brzozowski.json.compiler import explain_json_schema, json_schema_term

OPEN_SCHEMAS = [
    {},
    True,
    {"type": "array"},
    {"type": "object", "properties": {"a": {"enum": ["x", {"b": 1, "a": 2}]}, "b": {}}},
    {"enum": [1, "two", {"c": [None]}, {"z": 1, "a": 2}]},
    {"properties": {"k": {"const": {"q": [1, 2]}}}, "required": ["k"], "maxProperties": 2},
    {"type": ["object", "array"], "items": {"type": "object"}},
]


OPTIONS = [
    {"closed_objects": False},
    {"closed_objects": False, "separators": (",", ": ")},
    {"closed_objects": True, "separators": (", ", ": "), "max_depth": 3},
    {"closed_objects": False, "any_whitespace": True, "max_depth": 2},
    {"closed_objects": False, "unique_keys": True},  # another "any value": objects' keys distinct
]


def test_any_value_cache_gives_the_fresh_terms_and_notes(monkeypatch):
    fresh = {}
    for i, options in enumerate(OPTIONS):
        for j, schema in enumerate(OPEN_SCHEMAS):
            with monkeypatch.context() as m:  # an empty cache: everything built anew
                m.setattr(schema_compiler, "_ANY_VALUES", {})
                fresh[i, j] = json_schema_term(schema, **options), explain_json_schema(schema, **options)
    schema_compiler._ANY_VALUES.clear()
    for options in OPTIONS:  # the cache filled by every writer before any is read back
        for schema in OPEN_SCHEMAS:
            json_schema_term(schema, **options)
    for (i, j), (term, notes) in fresh.items():
        same = json_schema_term(OPEN_SCHEMAS[j], **OPTIONS[i]) is term  # a bool: a big term's text is huge
        assert same, (OPTIONS[i], OPEN_SCHEMAS[j])
        cached_notes = explain_json_schema(OPEN_SCHEMAS[j], **OPTIONS[i])
        assert cached_notes == notes
        assert any(line.startswith("any JSON value (") for line in cached_notes)


def test_any_value_cache_is_bounded():
    schema_compiler._ANY_VALUES.clear()
    for depth in range(schema_compiler.MAX_ANY_VALUES + 5):
        json_schema_term({"type": "array"}, max_depth=depth % 12 + 1, separators=(",", ":" + " " * (depth // 12)))
    # full, each new term evicts the oldest (emptying it at once would free every kept derivative
    # in one step): exactly MAX_ANY_VALUES left, the newest among them
    assert len(schema_compiler._ANY_VALUES) == schema_compiler.MAX_ANY_VALUES


def test_enum_values_are_filtered_as_before_without_the_rest_schema():
    """An enum's values are checked against "any JSON value" of the node's depth: with unique keys,
    a key order the writer cannot produce (descending first characters) is left out, with its note;
    by default objects' keys come in any order, so both values are written."""
    schema = {"enum": [{"z": 1, "a": 2}, {"a": 1, "z": 2}]}
    notes = explain_json_schema(schema, closed_objects=False, unique_keys=True)
    assert any("/enum/0" in line and "not written" in line for line in notes)
    assert not any("/enum/1" in line for line in notes)
    assert not any("/enum/" in line for line in explain_json_schema(schema, closed_objects=False))


@pytest.mark.parametrize("schema, counted", [
    ({"type": "object", "properties": {"a": {"type": "integer"}, "ab": {"type": "null"}}, "required": ["a"]},
     {"maxProperties": 1000}),
    ({"type": "object", "additionalProperties": {"type": "boolean"}, "minProperties": 1}, {"maxProperties": 1000}),
    ({"type": "array", "items": {"type": "string", "maxLength": 1}, "uniqueItems": True}, {"maxItems": 1000}),
], ids=["listed+others", "others only, minProperties 1", "uniqueItems"])
def test_uncounted_optional_slots_are_the_counted_table_without_its_bound(schema, counted):
    """Without a count to keep, unique keys' other members (and uniqueItems' slots) are built as
    one cell per optional slot; with a bound above any possible count the counted table is built:
    the same language (canonical tables equal)."""
    options = {"closed_objects": False, "max_depth": 1, "unique_keys": True}
    chain = json_schema_term(schema, **options)
    table = json_schema_term({**schema, **counted}, **options)
    assert chain is not table
    chain_dfa, table_dfa = regex_to_dfa(chain, max_states=20_000), regex_to_dfa(table, max_states=20_000)
    same = chain_dfa == table_dfa  # a bool, so that pytest does not diff two large tables
    assert same, (chain_dfa, table_dfa)


def test_pattern_cache_gives_the_fresh_parse_and_is_bounded(monkeypatch):
    from brzozowski.json import ecma_regex
    from brzozowski.json.formats import FORMAT_PATTERNS
    patterns = ["^[a-z]+\\d$", "b|^x", *FORMAT_PATTERNS.values()]
    with monkeypatch.context() as m:
        m.setattr(ecma_regex, "_PIECES", {})
        fresh = [ecma_regex.parse_pattern(p) for p in patterns]
    ecma_regex._PIECES.clear()
    assert [ecma_regex.parse_pattern(p) for p in patterns] == fresh  # filled anew: the same terms
    assert [ecma_regex.parse_pattern(p) for p in patterns] == fresh  # read back
    for i in range(ecma_regex.MAX_PIECES + 5):
        ecma_regex.parse_pattern(f"^a{{{i}}}$")
    assert len(ecma_regex._PIECES) == ecma_regex.MAX_PIECES  # the oldest evicted one by one
    assert f"^a{{{ecma_regex.MAX_PIECES + 4}}}$" in ecma_regex._PIECES


NUMBER_KEYWORDS = [
    ("number", {}), ("integer", {}), ("number", {"exclusive_minimum": 0}),
    ("number", {"minimum": -273.15}), ("integer", {"minimum": 1, "maximum": 65535}),
    ("number", {"minimum": 1.5, "maximum": 1.5}), ("number", {"multiple_of": 5}),  # notes: narrower
    ("number", {"minimum": 0.1}),  # a decimal that only rounds onto the bound: a note
]


def test_number_cache_gives_the_fresh_terms_and_notes_and_is_bounded(monkeypatch):
    from brzozowski.json import leaf_terms as json_leaves
    from brzozowski.errors import SchemaError

    def build(kind, keywords):
        notes: list[str] = []
        make = json_leaves.json_number_term if kind == "number" else json_leaves.json_integer_term
        return make(notes=notes, **keywords), notes

    with monkeypatch.context() as m:
        m.setattr(json_leaves, "_NUMBER_LEAVES", {})
        fresh = [build(kind, keywords) for kind, keywords in NUMBER_KEYWORDS]
    assert any(notes for _, notes in fresh)
    json_leaves._NUMBER_LEAVES.clear()
    for _ in range(2):  # filled anew, then read back: the same terms, the same notes each time
        again = [build(kind, keywords) for kind, keywords in NUMBER_KEYWORDS]
        assert all(a[0] is f[0] and a[1] == f[1] for a, f in zip(again, fresh))
    # keyed by type too: True is refused as a bound though 1 (== True) is cached; 1.0 is 1's language
    build("integer", {"minimum": 1})
    with pytest.raises(SchemaError):
        build("integer", {"minimum": True})
    assert build("integer", {"minimum": 1.0})[0] is build("integer", {"minimum": 1})[0]
    for i in range(json_leaves.MAX_NUMBER_LEAVES + 5):
        build("integer", {"maximum": i})
    assert len(json_leaves._NUMBER_LEAVES) == json_leaves.MAX_NUMBER_LEAVES  # the oldest evicted one by one
    newest = (json_leaves.integer_term, *((type(v), v) for v in (None, json_leaves.MAX_NUMBER_LEAVES + 4,
                                                                 None, None, None)))
    assert newest in json_leaves._NUMBER_LEAVES


_KEY_CHAR = r'[ !#-\[\]-~]'  # plain ASCII: printable, no quote, no backslash
_LOOSE = [
    # (schema, the same language as a regex written by hand: other members any number of times)
    ({"type": "object", "propertyNames": {"enum": ["a", "b"]}, "additionalProperties": {"type": "boolean"},
      "minProperties": 1},
     r'\{"[ab]":(true|false)(,"[ab]":(true|false))*\}'),
    ({"type": "object", "properties": {"a": {"type": "null"}}, "additionalProperties": {"type": "boolean"}},
     r'\{((OTHER(,OTHER)*(,"a":null)?|"a":null)(,OTHER)*)?\}'.replace(
         "OTHER", rf'"(|[ !#-\[\]-`b-~]{_KEY_CHAR}*|a{_KEY_CHAR}+)":(true|false)')),
]


@pytest.mark.parametrize("schema, regex", _LOOSE, ids=["others only", "listed+others"])
def test_uncounted_other_members_are_any_number_in_any_order(schema, regex):
    """By default (no count, keys may repeat) the other members are one term per kind, repeated,
    before, between and after the listed ones: the canonical tables of a regex written by hand for
    the same language."""
    term = json_schema_term(schema, closed_objects=False, max_depth=1)
    assert regex_to_dfa(term) == regex_to_dfa(regex.encode())


def test_unique_keys_is_checked():
    with pytest.raises(ValueError, match="unique_keys must be True or False"):
        json_schema_term({}, unique_keys="yes")

