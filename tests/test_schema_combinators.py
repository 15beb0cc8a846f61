"""not, overlapping oneOf, if/then/else and maxContains in compile_json_schema, against jsonschema.

The oracle is ``jsonschema`` (Draft 2020-12 + FormatChecker): documents sampled from the automaton
(seeded random walks) and their one-byte edits always validate; hand-picked documents, written the
automaton's way, are accepted or refused as the validator says (where the universe C of the
complement holds them); refusals name the narrowing that prevents an exact complement.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brzozowski import SchemaError, compile_json_schema, explain_json_schema
from brzozowski.json.compiler import MAX_WHITESPACE

from .test_compile_schema import assert_sound, validator

SHAPE = {
    "type": "object",
    "properties": {"kind": {"enum": ["circle", "rect"]}, "radius": {"type": "number", "minimum": 0},
                   "width": {"type": "integer"}, "height": {"type": "integer"}},
    "required": ["kind"],
    "if": {"properties": {"kind": {"const": "circle"}}},
    "then": {"required": ["radius"]},
    "else": {"required": ["width", "height"]},
}

CASES = [
    # (schema, options, accepted, refused): every listed document is checked against jsonschema too.
    ({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, {},
     [b"-1", b"2.5", b"0.5", b'"x"', b"null", b"[1]", b"{}", b'{"a":1e5}'],
     [b"5", b"0", b"5.0", b"-1.5", b"5.0000000000000001", b"1e0"]),
    ({"not": {"enum": ["a", 1, None]}}, {},
     [b'"b"', b"2", b"1.5", b"[]", b'{"a":1}', b'"aa"'],
     [b'"a"', b'"\\u0061"', b"1", b"null"]),
    ({"not": {"const": "a"}, "type": "string"}, {}, [b'"b"', b'"\\u0062"'], [b'"a"', b'"\\u0061"', b"1"]),
    ({"not": {"type": ["string", "object"]}}, {}, [b"1", b"null", b"[]", b'[{"a":"b"}]'], [b'"s"', b"{}"]),
    ({"type": "number", "not": {"type": "integer"}}, {}, [b"2.5", b"-0.1"], [b"3", b"3.0", b"-0"]),
    ({"not": {"not": {"minLength": 2}}}, {}, [b'"ab"', b"1", b"null"], [b'"a"', b'"\\u00e9"']),
    ({"not": {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "boolean"}]}}, {},
     [b"[1,\"x\"]", b'["x"]', b"3", b"null"], [b"[]", b"[1,2]", b"true"]),
    (SHAPE, {}, [b'{"kind":"circle","radius":1}', b'{"kind":"rect","width":1,"height":2}',
                 b'{"kind":"rect","radius":1,"width":1,"height":2}', b'{"kind":"circle","radius":0.5,"width":2}'],
     [b'{"kind":"circle"}', b'{"kind":"rect","radius":1}', b'{"kind":"rect","width":1}', b'{"radius":1}',
      b'{"kind":"square","width":1,"height":2}']),
    (SHAPE, {"separators": (", ", ": ")}, [b'{"kind": "circle", "radius": 1}'], [b'{"kind":"circle","radius":1}']),
    ({"type": "array", "contains": {"type": "integer"}, "maxContains": 2}, {},
     [b"[1]", b'[1,"a",2]', b'["a",1,null]', b"[1.5,3]"], [b"[]", b'["a"]', b"[1,2,3]", b'[1,"a",2,3]']),
    ({"type": "array", "contains": {"const": "x"}, "minContains": 0, "maxContains": 1, "maxItems": 3}, {},
     [b"[]", b'["y"]', b'["x",1,2]', b'[1,"\\u0078"]'], [b'["x","x"]', b'["x","\\u0078"]', b"[1,2,3,4]"]),
    ({"type": "array", "contains": {"minimum": 5}, "minContains": 2, "maxContains": 3}, {},
     [b"[5,6]", b'[5,"a",7,1]', b"[5,6,7]"], [b"[5]", b"[5,6,7,8]", b"[1,2]"]),
    ({"oneOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
                {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}]}, {},
     # the branch's properties first, then those of the other branch's failing case
     [b'{"a":1}', b'{"b":"x"}', b'{"b":"y","a":"x"}', b'{"a":1,"b":2}'], [b'{"a":1,"b":"y"}', b"{}", b"1"]),
    ({"type": "object", "properties": {"p": {"not": {"properties": {"x": {"const": 1}}, "required": ["x"]}}}},
     {}, [b'{"p":{}}', b'{"p":{"x":2}}', b"{}"], [b'{"p":{"x":1}}', b'{"p":3}']),
    ({"oneOf": [{"not": {"type": "string"}}, {"anyOf": [{"maxLength": 2}, {"type": "null"}]}]}, {},
     [b'"ab"', b'""'], [b'"abc"', b"1", b"null", b"[]"]),
    ({"if": {"minimum": 10}, "then": {"multipleOf": 5}, "else": {"type": "integer"}, "type": "number"}, {},
     [b"15", b"3", b"-7"], [b"11", b"3.5"]),
    ({"$defs": {"pos": {"exclusiveMinimum": 0}}, "type": "integer", "not": {"$ref": "#/$defs/pos"}}, {},
     [b"0", b"-3"], [b"1"]),
    ({"allOf": [{"not": {"type": "null"}}, {"not": {"type": "boolean"}}], "type": ["null", "boolean", "integer"]},
     {}, [b"1"], [b"null", b"true"]),
    ({"oneOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False},
                {"type": "object", "properties": {"b": {}}}]}, {"closed_objects": False},
     [b'{"b":1,"a":1}', b'{"a":"x"}', b'{"b":1,"c":2}'], [b'{"a":1}', b"{}", b"1"]),
    # within C, not not S is S (the term constructor cancels U & ~U, so deciding emptiness stays cheap)
    ({"not": {"not": {"type": "array", "items": {"type": "integer"}, "maxItems": 1}}}, {},
     [b"[]", b"[3]"], [b'["a"]', b"[1,2]", b"null", b"3"]),
    ({"not": {"multipleOf": 3}}, {}, [b"4", b"1.5"], [b"3", b"-6", b"3.0", b'"x"']),
    (SHAPE, {"any_whitespace": True}, [b'{ "kind" : "circle" , "radius" : 1 }'], [b'{"kind":"circle"}']),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_table(case):
    schema, options, accepted, refused = CASES[case]
    lazy = compile_json_schema(schema, **options)
    check = validator(schema)
    for doc in accepted:
        assert check.is_valid(json.loads(doc)), (schema, doc)
        assert lazy.matches(doc), (schema, doc)
    for doc in refused:
        assert not lazy.matches(doc), (schema, doc)
    assert_sound(schema, lazy, seed=case, walks=120)


def test_overlapping_one_of_many_samples_all_validate():
    schema = {"oneOf": [{"type": "integer"}, {"minimum": 0}]}
    docs = assert_sound(schema, compile_json_schema(schema), seed=7, walks=400, edits=False)
    assert len(docs) > 300
    kinds = {type(json.loads(d)).__name__ for d in docs}
    assert {"int", "float", "str"} <= kinds  # the walks reach every branch


def test_explain_names_the_universe_and_the_property_order():
    lines = explain_json_schema(SHAPE)
    assert any(line.startswith("/if:") and "merged" in line for line in lines)
    assert any("properties are written in the schema's order: kind, radius, width, height" in line
               for line in lines)
    lines = explain_json_schema({"not": {"enum": [1]}})
    assert any(line.startswith("/not:") and "universe C" in line and "exponent" in line for line in lines)
    lines = explain_json_schema({"oneOf": [{"type": "integer"}, {"minimum": 0}]})
    assert any(line.startswith("/oneOf:") and "complement of the others" in line for line in lines)


REFUSED = [
    # (schema, pointer, keyword) of the narrowing that prevents an exact complement
    ({"not": {"type": "string", "format": "email"}}, "/not/format", "format"),
    ({"oneOf": [{"type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "integer"}},
                {"type": "object", "properties": {"b": {}}}]}, "/oneOf/0/additionalProperties",
     "additionalProperties"),
    ({"not": {"enum": [[1], 2]}}, "/not/enum", "enum"),
    ({"not": {"pattern": "^.$"}}, "/not/pattern", "pattern"),
    ({"type": "array", "contains": {"type": "string", "format": "date"}, "maxContains": 1},
     "/contains/format", "format"),
    ({"if": {"type": "object", "minProperties": 2}, "then": {"required": ["a"]}}, "/if/minProperties",
     "minProperties"),
    ({"not": {"type": "array", "uniqueItems": True}}, "/not/uniqueItems", "uniqueItems"),
    # a failing subschema evaluates no property: its cases must not make "bar" evaluated
    ({"type": "object", "properties": {"foo": {"type": "string"}}, "unevaluatedProperties": False,
      "not": {"not": {"properties": {"bar": {"const": "bar"}}, "required": ["bar"]}}},
     "/unevaluatedProperties", "unevaluatedProperties"),
    ({"not": {"prefixItems": [{}], "contains": {"type": "null"}}}, "/not/contains", "contains"),
]


@pytest.mark.parametrize("case", range(len(REFUSED)))
def test_inexact_complements_are_refused_with_pointer_and_keyword(case):
    schema, pointer, keyword = REFUSED[case]
    with pytest.raises(SchemaError) as info:
        compile_json_schema(schema)
    found = {(p.pointer, p.keyword): p.message for p in info.value.problems}
    assert (pointer, keyword) in found, info.value.problems
    assert keyword in found[pointer, keyword]  # the message names the narrowing


def test_max_contains_beside_prefix_items_is_refused():
    with pytest.raises(SchemaError) as info:
        compile_json_schema({"prefixItems": [{}], "contains": {"type": "null"}, "maxContains": 1})
    assert info.value.problems[0].keyword == "contains"


def test_whitespace_stays_bounded_under_a_complement():
    lazy = compile_json_schema({"not": {"type": "string"}}, any_whitespace=True)
    assert lazy.matches(b"[ 1 , 2 ]")
    assert not lazy.matches(b"[" + b" " * (MAX_WHITESPACE + 1) + b"1]")


# --- Hypothesis: small combinator schemas over leaves whose complement is exact, and objects ------

_leaves = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(["null", "boolean", "integer", "number", "string",
                                                    "array", "object"])}),
    st.fixed_dictionaries({"enum": st.lists(st.one_of(st.none(), st.booleans(), st.integers(-3, 3),
                                                      st.sampled_from(["a", "b", "é", ""]), st.just(0.5)),
                                            min_size=1, max_size=3)}),
    st.fixed_dictionaries({"minimum": st.integers(-2, 2)}),
    st.fixed_dictionaries({"exclusiveMaximum": st.sampled_from([0, 1.5, 3])}),
    st.fixed_dictionaries({"maxLength": st.integers(0, 2)}),
    st.fixed_dictionaries({"minLength": st.integers(1, 2)}),
    st.fixed_dictionaries({"type": st.just("array"), "items": st.fixed_dictionaries(
        {"type": st.sampled_from(["integer", "string", "null"])}), "maxItems": st.integers(0, 2)}),
    st.fixed_dictionaries({"type": st.just("object"), "properties": st.fixed_dictionaries(
        {"k": st.fixed_dictionaries({"enum": st.lists(st.sampled_from(["a", "b", 1]), min_size=1, max_size=2)})}),
        "required": st.sampled_from([[], ["k"]])}),
)


def _combine(children):
    return st.one_of(
        st.fixed_dictionaries({"not": children}),
        st.fixed_dictionaries({"oneOf": st.lists(children, min_size=2, max_size=3)}),
        st.fixed_dictionaries({"anyOf": st.lists(children, min_size=1, max_size=2)}),
        st.fixed_dictionaries({"allOf": st.lists(children, min_size=1, max_size=2)}),
        st.fixed_dictionaries({"if": children, "then": children, "else": children}),
        st.fixed_dictionaries({"type": st.just("array"), "contains": children,
                               "maxContains": st.integers(0, 2), "minContains": st.integers(0, 1)}),
    )


combinator_schemas = st.recursive(_leaves, _combine, max_leaves=4)

_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-6, 6), st.sampled_from([0.5, -2.5, 1.25]),
              st.sampled_from(["", "a", "b", "ab", "é", "abc"])),
    lambda children: st.one_of(st.lists(children, max_size=3),
                               st.dictionaries(st.sampled_from(["k", "z"]), children, max_size=2)),
    max_leaves=4)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=combinator_schemas, values=st.lists(_values, max_size=12), seed=st.integers(0, 1000))
def test_random_combinator_schemas_are_sound(schema, values, seed):
    try:
        lazy = compile_json_schema(schema, max_depth=2)
    except SchemaError as e:
        # Every leaf here is complemented exactly or negated structurally; what is left: a schema
        # nothing satisfies, or object keywords inside an array's `contains` where a count
        # (maxContains) or a complement (not/oneOf/if of the array) needs that object schema exact:
        # objects are only negated structurally, as properties of the enclosing object.
        assert all("no document satisfies" in p.message
                   or (p.keyword in ("properties", "required") and "/contains/" in p.pointer
                       and "exact" in p.message)
                   for p in e.problems), (schema, e)
        return
    assert_sound(schema, lazy, seed=seed, walks=15, edits=True)
    check = validator(schema)
    for value in values:
        for ascii_only in (True, False):
            if lazy.matches(json.dumps(value, separators=(",", ":"), ensure_ascii=ascii_only).encode()):
                assert check.is_valid(value), (schema, value)


def test_a_union_with_every_string_absorbs_its_string_only_operands():
    """``Literal["size", "kind"] | str``: the enum's strings are strings, so the union is the plain
    string term itself (left in, the enum's operands would keep states of their own beside the
    string's, and the string-interior mask tables would not recognize them)."""
    from brzozowski import TokenIndex, Vocabulary
    from brzozowski.json.compiler import json_schema_term

    plain = json_schema_term({"type": "string"})
    assert json_schema_term({"anyOf": [{"type": "string"}, {"enum": ["size", "kind"]}]}) is plain
    assert json_schema_term({"anyOf": [{"const": "x"}, {"type": "string"},
                                       {"type": "string", "pattern": "^a", "maxLength": 3}]}) is plain
    assert (json_schema_term({"anyOf": [{"type": "string"}, {"enum": ["a", 1, None]}]})
            is json_schema_term({"anyOf": [{"type": "string"}, {"enum": [1, None]}]}))
    # Without an operand holding every string nothing is absorbed.
    narrow = compile_json_schema({"anyOf": [{"type": "string", "maxLength": 2}, {"enum": ["abcdef"]}]})
    assert narrow.matches(b'"abcdef"') and narrow.matches(b'"ab"') and not narrow.matches(b'"abc"')
    for document in ('"abcdef"', '"ab"', '"abc"', "1"):
        assert narrow.matches(document.encode()) == validator(
            {"anyOf": [{"type": "string", "maxLength": 2}, {"enum": ["abcdef"]}]}).is_valid(json.loads(document))

    schema = {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"enum": ["size", "kind"]}]}},
              "required": ["a"], "additionalProperties": False}
    vocabulary = Vocabulary([b'{"a":"', b"si", b"ze", b"kind", b'"}', b" x", None], eos_id=6)
    index = TokenIndex(compile_json_schema(schema), vocabulary)
    inside = index.next_state(index.start, 0)
    assert index.mask(inside).tolist() == [False, True, True, True, True, True, False]
    assert index.string_masks == 1  # from the string tables, not a walk


_json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from([1.0, 0.0, -2.0, 0.5]),
              st.sampled_from(["", "a", "1", "true"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(["a", "b", "1"]), inner, max_size=3)),
    max_leaves=8,
)


def _equal_as_json_schema_says(a, b) -> bool:
    """The oracle: JSON Schema's equality written out pair by pair (1 == 1.0, true != 1, key order moot)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal_as_json_schema_says(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal_as_json_schema_says(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@settings(max_examples=200, deadline=None)
@given(a=_json_values, b=_json_values)
def test_json_key_is_equal_exactly_when_json_schema_says_equal(a, b):
    """Enum values are told apart by hashing (`json_key`: thousands of SPDX licenses in a
    uniqueItems enum took seconds pair by pair), and `json_equal` compares their keys: the verdict
    of JSON Schema's equality written out pair by pair, and equal keys hash alike."""
    from brzozowski.json.merge import json_equal, json_key

    assert json_equal(a, b) == _equal_as_json_schema_says(a, b)
    if json_equal(a, b):
        assert hash(json_key(a)) == hash(json_key(b))
    assert json_key(a) == json_key(json.loads(json.dumps(a, sort_keys=True)))  # key order moot


def test_a_long_unique_enum_keeps_its_distinct_values_in_order():
    values = [f"v{i}" for i in range(300)] + ["v7", 1, 1.0, True, {"a": 1, "b": 2}, {"b": 2, "a": 1}]
    schema = {"type": "array", "items": {"enum": values}, "uniqueItems": True, "maxItems": 2}
    lazy = compile_json_schema(schema)
    assert lazy.matches(b'["v0","v299"]') and lazy.matches(b'[1,{"a":1,"b":2}]')
    assert not lazy.matches(b'["v299","v0"]')  # the order of the enum
    assert not lazy.matches(b'[{"a":1,"b":2},{"b":2,"a":1}]')  # one value, two key orders
    assert not lazy.matches(b'[1,1.0]') and not lazy.matches(b'["v7","v7"]') and lazy.matches(b'[1,true]')
