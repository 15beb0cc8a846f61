"""compile_json_schema against jsonschema (Draft 2020-12 with its FORMAT_CHECKER) as the oracle.

Soundness: documents sampled from the automaton (random walks), their one-byte edits and random JSON
values the automaton accepts all validate. Completeness where promised: valid documents written the
automaton's way (separators, schema order) are accepted. Refusals name keyword and pointer, all at once.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator, Draft202012Validator

from brzozowski import (
    DEAD,
    BrzozowskiError,
    LazyDFA,
    SchemaError,
    TokenIndex,
    compile_json_schema,
    explain_json_schema,
    json_schema_to_regex,
)
from brzozowski.json.compiler import MAX_WHITESPACE, json_schema_term

from .strategies import json_schemas, open_json_values as json_values


def sample(lazy: LazyDFA, rng: random.Random, max_len: int = 400) -> bytes | None:
    """A random document of the automaton: at each state a random *successor state* (so that
    structure, not string content, is explored), then a random byte leading there."""
    state, out = lazy.start, bytearray()
    while len(out) < max_len:
        if lazy.is_accepting(state) and rng.random() < 0.25:
            return bytes(out)
        row = lazy.row(state)
        targets = sorted({int(t) for t in row if t != DEAD})
        if not targets:
            break
        target = rng.choice(targets)
        out.append(rng.choice([b for b in range(256) if row[b] == target]))
        state = target
    return bytes(out) if lazy.is_accepting(state) else None


def parses(doc: bytes, unique: bool = False) -> list:
    """The values a JSON parser may read from `doc`: keeping the last of two equal keys (what
    ``json.loads`` does) and keeping the first. Other properties may repeat a key (the module doc of
    `brzozowski.json.compiler`), so a sound document validates either way; with `unique`
    (``unique_keys=True``) a repeated key is itself a failure."""
    def first_wins(items):
        keys = [k for k, _ in items]
        assert not unique or len(set(keys)) == len(keys), f"duplicate key in {doc!r}"
        return dict(reversed(items))
    return [json.loads(doc), json.loads(doc, object_pairs_hook=first_wins)]


def validator(schema, draft7: bool = False):
    cls = Draft7Validator if draft7 else Draft202012Validator
    return cls(schema, format_checker=cls.FORMAT_CHECKER)  # the draft's own checker (`time` differs)


def oracle_valid(check, value) -> bool:
    """``check.is_valid(value)`` where jsonschema decides it. Through a random schema's chains of
    ``$ref``, ``anyOf`` and ``contains``, jsonschema can recurse past Python's limit while it reads
    one value (a limit of the oracle, not of the language): that example is rejected, another drawn
    (under Hypothesis; elsewhere the rejection is an error)."""
    try:
        return check.is_valid(value)
    except RecursionError:
        reject()


def assert_sound(schema, lazy: LazyDFA, seed: int, walks: int = 30, edits: bool = True,
                 draft7: bool = False, unique: bool = False) -> list[bytes]:
    check = validator(schema, draft7)
    rng = random.Random(seed)
    docs = [d for d in (sample(lazy, rng) for _ in range(walks)) if d is not None]
    for doc in docs:
        for value in parses(doc, unique):
            assert oracle_valid(check, value), (schema, doc)
    if edits:
        for doc in docs[:10]:
            for _ in range(20):
                i = rng.randrange(len(doc) + 1)
                b = bytes([rng.choice(b'{}[],:" \\0123456789.-eEtfnaul\xc3\xa9')])
                edited = rng.choice([doc[:i] + b + doc[i:], doc[:i] + b + doc[i + 1:], doc[:i] + doc[i + 1:]])
                if lazy.matches(edited):
                    assert all(check.is_valid(value) for value in parses(edited, unique)), (schema, edited)
    return docs


# --- a table of schemas: valid documents in the automaton's form are accepted, invalid refused ------

PERSON = {
    "$defs": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "type": "object",
    "properties": {"name": {"$ref": "#/$defs/name"}, "age": {"$ref": "#/$defs/age"},
                   "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 2}},
    "required": ["name"],
}
TREE = {
    "$defs": {"node": {"type": "object", "properties": {
        "v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
        "required": ["v"]}},
    "$ref": "#/$defs/node",
}

CASES = [
    # (schema, options, accepted documents, refused documents)
    (PERSON, {}, [b'{"name":"x"}', b'{"name":"x","age":3,"tags":["a","b"]}'],
     [b'{"age":3}', b'{"name":"x","tags":["a","b","a"]}', b'{"age":3,"name":"x"}', b'{"name":1}']),
    (PERSON, {"separators": (", ", ": ")}, [b'{"name": "x", "age": 3}'], [b'{"name":"x"}']),
    (TREE, {}, [b'{"v":1,"kids":[{"v":2,"kids":[]},{"v":3}]}'], [b'{"kids":[]}', b'{"v":1,"kids":[{}]}']),
    ({}, {}, [b'null', b'[1,{"a":[true]}]', b'"s"', b'-1.5e3', b'{"a":{"a":{}}}'], [b'nul', b'[1,]', b'01']),
    (True, {}, [b'{}'], [b'{']),
    ({"type": ["integer", "null"]}, {}, [b'1', b'null', b'-20'], [b'1.5', b'"1"', b'true']),
    ({"type": "number"}, {}, [b'1', b'1.5', b'-2e-3'], [b'true', b'.5', b'1.']),
    ({"minItems": 2, "properties": {"a": {"type": "null"}}}, {},
     [b'"str"', b'[1,2]', b'{"a":null}', b'{}', b'3'], [b'[1]', b'{"a":1}']),
    ({"enum": ["é", {"k": [1, None]}, 2.5, True]}, {"separators": (", ", ": ")},
     [b'"\\u00e9"', '"é"'.encode(), b'{"k": [1, null]}', b'2.5', b'true'], [b'{"k":[1,null]}', b'false']),
    ({"const": "a", "type": "integer"}, {}, [], []),  # no value left: a SchemaError (checked below)
    ({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": False},
     {}, [b'[]', b'[1]', b'[1,"a"]'], [b'[1,"a",2]', b'["a"]']),
    ({"type": "array", "items": [{"type": "integer"}], "additionalItems": {"type": "string"}},
     {"draft7": True}, [b'[1,"a","b"]', b'[]'], [b'[1,2]']),
    ({"type": "array", "contains": {"type": "integer"}, "minContains": 2, "maxItems": 3}, {},
     [b'[1,2]', b'[1,2,"x"]'], [b'[]', b'[1]', b'[1,2,3,4]']),
    ({"type": "array", "uniqueItems": True, "maxItems": 1}, {}, [b'[]', b'[3]'], [b'[3,3]']),
    ({"type": "object", "properties": {"a": {"type": "integer"}},
      "additionalProperties": {"type": "boolean"}}, {},
     [b'{"a":1,"x":true}', b'{"x":true,"y":false}', b'{}', b'{"x":true,"a":1}'], [b'{"a":1,"a":true}', b'{"x":1}']),
    ({"type": "object", "properties": {"a": {"type": "integer"}}}, {"closed_objects": False},
     [b'{"a":1,"b":[{}]}', b'{"b":"x"}', b'{"b":1,"a":1}'], [b'{"a":"x"}', b'{"a":1,"a":1}']),
    ({"type": "object", "properties": {"a": {"type": "integer"}}}, {},
     [b'{"a":1}', b'{}'], [b'{"a":1,"b":2}']),
    ({"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 1, "maxProperties": 2},
     {}, [b'{"x":1}', b'{"x":1,"y":2}'], [b'{}', b'{"x":1,"y":2,"z":3}', b'{"x":1,"x":2}', b'{"xa":1,"xb":2}']),
    # other keys: any order, any first characters, a key may repeat; unique_keys: distinct, ascending
    ({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"],
      "additionalProperties": {"type": "string"}}, {},
     [b'{"id":1,"zoo":"a","apple":"b","avocado":"c"}', b'{"id":1,"x":"a","x":"b"}', b'{"id":1,"":""}',
      b'{"x":"a","id":1}'],
     [b'{"id":1,"id":"a"}', b'{"id":1,"x":"a","id":"b"}', b'{"x":"a","id":"b"}', b'{"id":1,"x":2}', b'{"id":1,}']),
    ({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"],
      "additionalProperties": {"type": "string"}}, {"unique_keys": True},
     [b'{"id":1,"apple":"b","zoo":"a"}', b'{"id":1}'],
     [b'{"id":1,"zoo":"a","apple":"b"}', b'{"id":1,"x":"a","x":"b"}', b'{"id":1,"apple":"b","avocado":"c"}']),
    ({"type": "object", "additionalProperties": {"type": "null"}, "minProperties": 2}, {},
     [b'{"a":null,"b":null}'], [b'{"a":null,"a":null}', b'{"b":null,"a":null}', b'{"a":null}']),
    ({"type": "object", "properties": {"a": {}, "b": {}, "c": {}},
      "dependentRequired": {"c": ["a"], "a": ["b"]}}, {},
     [b'{"a":1,"b":2}', b'{"a":1,"b":2,"c":3}', b'{"b":1}', b'{}'], [b'{"c":1}', b'{"a":1}', b'{"b":1,"c":3}']),
    ({"type": "object", "properties": {"a": {}, "b": {"type": "integer"}},
      "dependentSchemas": {"a": {"required": ["b"]}}}, {},
     [b'{"a":1,"b":2}', b'{"b":2}', b'{}'], [b'{"a":1}']),
    ({"allOf": [{"$ref": "#/$defs/base"}, {"properties": {"y": {"type": "null"}}, "required": ["y"]}],
      "$defs": {"base": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}}},
     {}, [b'{"x":1,"y":null}'], [b'{"x":1}', b'{"y":null}']),
    ({"allOf": [{"properties": {"a": {}}, "additionalProperties": False},
                {"properties": {"b": {}}}], "type": "object"}, {"closed_objects": False},
     [b'{"a":1}', b'{}'], [b'{"a":1,"b":2}', b'{"b":2}']),
    ({"anyOf": [{"type": "string"}, {"type": "null"}], "title": "Optional"}, {}, [b'"x"', b'null'], [b'1']),
    ({"type": "object", "properties": {"kind": {"const": "a"}},
      "anyOf": [{"required": ["kind"]}, {"properties": {"kind": {"const": "b"}}}]}, {},
     [b'{"kind":"a"}', b'{}'], [b'{"kind":"b"}']),
    ({"oneOf": [{"type": "string"}, {"type": "integer"}]}, {}, [b'"x"', b'3'], [b'null']),
    ({"type": "object", "propertyNames": {"enum": ["a", "b"]}, "additionalProperties": False,
      "properties": {"a": {}, "b": {}, "c": {}}}, {}, [b'{"a":1,"b":2}'], [b'{"c":1}']),
    ({"type": "integer", "not": {}}, {}, [], []),
    ({"if": True, "then": {"type": "integer"}}, {}, [b'3'], [b'"x"']),
    ({"type": "array", "items": {"enum": ["a", "b", 1]}, "uniqueItems": True}, {},
     [b'["a","b",1]', b'["b"]', b'[]'], [b'["a","a"]', b'["b","a"]']),
    ({"type": "array", "items": {"type": ["string", "integer"]}, "uniqueItems": True, "minItems": 2}, {},
     [b'[1,"x"]', b'["ab","b"]'], [b'[1,2]', b'["a","ab"]', b'["x"]']),
    ({"oneOf": [{"$ref": "#/$defs/cat"}, {"$ref": "#/$defs/dog"}], "$defs": {
        "cat": {"type": "object", "properties": {"t": {"const": "cat"}, "n": {"type": "integer"}}, "required": ["t"]},
        "dog": {"type": "object", "properties": {"t": {"enum": ["dog"]}}, "required": ["t"]}}},
     {}, [b'{"t":"cat","n":1}', b'{"t":"dog"}'], [b'{"t":"dog","n":1}', b'{}']),
    ({"type": "object", "properties": {"a": {}}, "unevaluatedProperties": False,
      "allOf": [{"properties": {"b": {"type": "null"}}}]}, {"closed_objects": False},
     [b'{"a":1,"b":null}'], [b'{"a":1,"c":1}']),
    ({"allOf": [{"properties": {"a": {}}, "unevaluatedProperties": False}], "properties": {"b": {}}},
     {"closed_objects": False}, [b'{"a":1}'], [b'{"b":1}']),
    ({"allOf": [{"prefixItems": [{"type": "integer"}]}], "unevaluatedItems": False}, {},
     [b'[1]', b'[]'], [b'[1,2]', b'["a"]']),
    ({"allOf": [{"prefixItems": [{}], "unevaluatedItems": False}], "maxItems": 3}, {},
     [b'[1]'], [b'[1,2]']),
    ({"allOf": [{"pattern": "a"}, {"pattern": "b", "maxLength": 3}], "type": "string"}, {},
     [b'"ab"', b'"ba"', b'"xab"'], [b'"a"', b'"b"', b'"abxy"']),
    ({"allOf": [{"prefixItems": [{"minimum": 3}]}], "items": {"minimum": 5}}, {},
     [b'[5,6]'], [b'[3,5]', b'[3]']),
    ({"type": "object", "x-vendor": 1, "javaType": "Foo", "properties": {"a": {"type": "null"}}},
     {"unknown_keywords": "ignore"}, [b'{"a":null}'], []),
    ({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "null"}}}},
     {"any_whitespace": True},
     [b' { "a" : [ null ,\n\tnull ] } ', b'{"a":[]}', b'{ }', b'{"a":[ ]}'], [b'{"a" :[null,]}']),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_table(case):
    schema, options, accepted, refused = CASES[case]
    options = dict(options)
    draft7 = options.pop("draft7", False)
    check = validator(schema, draft7)
    if not accepted:
        with pytest.raises(SchemaError, match="no document"):
            compile_json_schema(schema, **options)
        return
    lazy = compile_json_schema(schema, **options)
    for doc in accepted:
        assert check.is_valid(json.loads(doc)), doc  # the table itself is right
        assert lazy.matches(doc), doc
    for doc in refused:
        assert not lazy.matches(doc), doc
    assert_sound(schema, lazy, seed=case, draft7=draft7, unique=options.get("unique_keys", False))


def test_whitespace_is_bounded_per_gap():
    lazy = compile_json_schema({"type": "array"}, any_whitespace=True)
    assert lazy.matches(b"[" + b" " * MAX_WHITESPACE + b"]")
    assert not lazy.matches(b"[" + b" " * (MAX_WHITESPACE + 1) + b"]")
    assert lazy.matches(b"\n[1]\n")


def test_depth_bound_makes_deeper_documents_impossible():
    lazy = compile_json_schema(TREE, max_depth=4)
    assert lazy.matches(b'{"v":1,"kids":[{"v":2}]}')  # depth 3
    assert not lazy.matches(b'{"v":1,"kids":[{"v":2,"kids":[{"v":3}]}]}')  # depth 5
    assert not compile_json_schema({}, max_depth=1).matches(b"[[]]")
    assert compile_json_schema({}, max_depth=2).matches(b"[[]]")
    assert any("depth" in line for line in explain_json_schema(TREE, max_depth=4))


@pytest.mark.parametrize("schema", [
    {"$ref": "#"},
    {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},
    {"type": "object", "properties": {"next": {"$ref": "#"}}, "required": ["next"]},
])
def test_never_ending_recursion_is_an_error(schema):
    with pytest.raises(SchemaError):
        compile_json_schema(schema)


def test_references_by_anchor_id_and_definitions():
    schema = {
        "$id": "https://example.com/root.json",
        "definitions": {"pos": {"$anchor": "positive", "type": "integer", "enum": [1, 2]}},
        "$defs": {"inner": {"$id": "inner.json", "$defs": {"n": {"type": "null"}},
                            "anyOf": [{"$ref": "#/$defs/n"}, {"type": "boolean"}]}},
        "type": "array", "prefixItems": [{"$ref": "#positive"}, {"$ref": "inner.json"},
                                         {"$ref": "#/definitions/pos"}],
        "items": False,
    }
    lazy = compile_json_schema(schema)
    assert lazy.matches(b"[1,null,2]") and lazy.matches(b"[2,true]")
    assert not lazy.matches(b"[3]") and not lazy.matches(b'[1,"x"]')
    assert_sound(schema, lazy, seed=1)


def test_remote_references_are_refused():
    with pytest.raises(SchemaError) as info:
        compile_json_schema({"$ref": "https://example.com/other.json"})
    assert info.value.keyword == "$ref" and info.value.pointer == "/$ref"
    assert "remote" in str(info.value)


def test_every_refused_keyword_is_collected_with_pointer_and_advice():
    schema = {"type": "object", "properties": {
        "a": {"type": "array", "prefixItems": [{}], "uniqueItems": True},
        "b": {"not": {"type": "string", "format": "email"}},
        "c": {"x-unknown": 1},
        "d": {"$dynamicRef": "#x"}}}
    with pytest.raises(SchemaError) as info:
        compile_json_schema(schema)
    found = {(p.pointer, p.keyword) for p in info.value.problems}
    assert found == {("/properties/a/uniqueItems", "uniqueItems"), ("/properties/b/not/format", "format"),
                     ("/properties/c/x-unknown", "x-unknown"), ("/properties/d/$dynamicRef", "$dynamicRef")}
    text = str(info.value)
    assert text.startswith("4 problems") and "unknown_keywords='ignore'" in text and "maxItems: 1" in text
    assert isinstance(info.value, BrzozowskiError) and isinstance(info.value, ValueError)


def test_unknown_keywords_ignore_keeps_standard_keywords_refused():
    schema = {"x-foo": 1, "not": {"type": "string", "format": "email"}}
    with pytest.raises(SchemaError) as info:
        compile_json_schema(schema, unknown_keywords="ignore")
    assert [(p.pointer, p.keyword) for p in info.value.problems] == [("/not/format", "format")]
    explained = explain_json_schema({"x-foo": 1, "type": "null"}, unknown_keywords="ignore")
    assert any("/x-foo" in line and "ignored" in line for line in explained)


def test_schema_error_keeps_its_old_signature():
    e = SchemaError("bad", "/a", "pattern")
    assert (e.message, e.pointer, e.keyword, str(e)) == ("bad", "/a", "pattern", "bad at /a")
    assert len(e.problems) == 1


def test_bad_options_are_errors():
    for options in ({"separators": (";", ":")}, {"unknown_keywords": "maybe"}, {"max_depth": -1}):
        with pytest.raises(BrzozowskiError):
            compile_json_schema({}, **options)


def test_explain_names_every_narrowing_with_a_pointer():
    lines = explain_json_schema({"type": "object", "properties": {
        "b": {"type": "object", "properties": {"x": {}}, "additionalProperties": True}, "a": {}}})
    text = "\n".join(lines)
    assert "(root): properties are written in the schema's order: b, a (property_order='schema')" in text
    assert "(root): closed object" in text
    assert "/properties/b: other property names are written as plain ASCII" in text
    assert "whitespace" in text and "depth" in text


def test_strict_front_door_is_unchanged_and_both_agree_on_its_subset():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"enum": ["x", 1]}},
              "required": ["b"]}
    strict = LazyDFA(json_schema_to_regex(schema))
    lazy = compile_json_schema(schema)
    rng = random.Random(3)
    for _ in range(20):
        doc = sample(strict, rng)
        assert doc is None or lazy.matches(doc)


def test_usable_with_token_index():
    lazy = compile_json_schema({"type": "object", "properties": {"ok": {"type": "boolean"}},
                                "required": ["ok"]}, separators=(", ", ": "))
    vocab = [b'{"', b"ok", b'": ', b"true", b"}", b"false", b"x", None]
    index = TokenIndex(lazy, vocab, eos_id=len(vocab) - 1)
    assert list(index.mask(lazy.start).nonzero()[0]) == [0]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=json_schemas, options=st.fixed_dictionaries({
    "separators": st.sampled_from([(",", ":"), (", ", ": ")]),
    "any_whitespace": st.booleans(), "closed_objects": st.booleans(), "max_depth": st.integers(1, 4)}),
    values=st.lists(json_values, max_size=15), seed=st.integers(0, 1000))
def test_random_schemas_are_sound(schema, options, values, seed):
    try:
        lazy = compile_json_schema(schema, **options)
    except SchemaError:
        return
    assert_sound(schema, lazy, seed=seed, walks=8, edits=False)
    check = validator(schema)
    separators = (",", ":") if options["any_whitespace"] else options["separators"]
    for value in values:
        for ascii_only in (True, False):
            if lazy.matches(json.dumps(value, separators=separators, ensure_ascii=ascii_only).encode()):
                assert oracle_valid(check, value), value


def test_enum_values_are_written_with_the_separators():
    assert str(json_schema_term({"const": [1, 2]}, separators=(", ", ": "))) == "\\[1,\\x202\\]"


def test_schema_command_explains_and_samples_valid_documents(tmp_path, capsys):
    from brzozowski.cli import main

    path = tmp_path / "s.json"
    path.write_text(json.dumps(PERSON))
    assert main(["schema", str(path), "--separators", ", ", ": ", "--explain", "-n", "4"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("compile_json_schema(separators=(', ', ': ')")
    assert "  (root): properties are written in the schema's order: name, age, tags (property_order='schema')" in out
    check = validator(PERSON)
    for line in out[-4:]:
        assert line.startswith("  {") and all(check.is_valid(v) for v in parses(line.strip().encode()))
    path.write_text(json.dumps({"$ref": "#/$defs/missing"}))
    assert main(["schema", str(path)]) == 2
    assert "/$ref" in capsys.readouterr().err


def test_schema_command_takes_unique_keys(tmp_path, capsys):
    from brzozowski.cli import main

    path = tmp_path / "s.json"
    path.write_text(json.dumps({"type": "object", "additionalProperties": {"type": "integer"}}))
    assert main(["schema", str(path), "--unique-keys", "--explain", "-n", "0"]) == 0
    out = capsys.readouterr().out
    assert "unique_keys=True" in out and "start with distinct plain-ASCII characters" in out
    assert main(["schema", str(path), "--explain", "-n", "0"]) == 0
    assert "a key may repeat" in capsys.readouterr().out
