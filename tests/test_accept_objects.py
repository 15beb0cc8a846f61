"""Objects accept every valid document (issue 37), and stay sound.

Random object schemas with properties, patternProperties, additionalProperties and propertyNames
(`tests.strategies.object_cases`): every valid instance, written in the chosen property order, is
accepted (except where a narrowing that `explain_json_schema` names applies to it), and every
one-byte mutation of it that the automaton accepts is valid (``jsonschema`` with the format
checker is the judge).
"""

from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from brzozowski import StateBudgetError, compile_json_schema, explain_json_schema
from brzozowski.budget import Limits
from brzozowski.errors import SchemaError, TimeBudgetError
from brzozowski.json.leaf_terms import _narrows
from .strategies import FORMAT_CHECKER, in_schema_order, object_cases, valid

_PLAIN = set(range(0x20, 0x7F)) - {0x22, 0x5C}


def _narrowed(schema: dict, instance: dict, notes: list[str]) -> bool:
    """Whether a narrowing that the notes name may refuse `instance`: other keys beside listed
    names are plain ASCII; a propertyNames pattern that reads \\d . $ differently in ECMA-262 and
    Python's re keeps to what both match (a listed name outside it is never written); a key that
    the dialects read differently for a patternProperties pattern takes both readings' schemas."""
    listed = set(schema.get("properties", {}))
    odd = [k for k in instance if any(ord(c) not in _PLAIN for c in k)]
    if any(k not in listed for k in odd) and any("plain ASCII without escapes" in n for n in notes):
        return True
    rule = schema.get("propertyNames", {})
    if odd and isinstance(rule, dict) and _narrows(rule.get("pattern", "")):
        return True
    return bool(odd) and any(_narrows(p) for p in schema.get("patternProperties", {}))


def _mutants(text: bytes):
    for i in range(len(text)):
        yield text[:i] + text[i + 1:]
        for b in b'"1a},:':
            if text[i] != b:
                yield text[:i] + bytes([b]) + text[i + 1:]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(case=object_cases(), order=st.sampled_from(["schema", "any"]))
def test_valid_objects_are_accepted_and_mutants_judged(case, order):
    schema, instance = case
    assume(instance is not None)
    assert jsonschema.Draft202012Validator(schema, format_checker=FORMAT_CHECKER).is_valid(instance)
    notes: list[str] = []
    try:
        lazy = compile_json_schema(schema, closed_objects=False, property_order=order, notes=notes)
    except SchemaError:  # no document: a required name that only Python's re lets through
        assert _narrowed(schema, instance, [])
        return
    doc = instance if order == "any" else in_schema_order(schema, instance)
    texts = {json.dumps(doc, separators=(",", ":"), ensure_ascii=a).encode() for a in (True, False)}
    for text in texts:
        assert lazy.matches(text) or _narrowed(schema, instance, notes), (text, notes)
        for mutant in _mutants(text):
            assert not lazy.matches(mutant) or valid(mutant, schema), mutant


_KUBE = {"type": "object", "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                                          "spec": {"type": "object"}},
         "required": ["kind"], "patternProperties": {"^x-": {"type": "string"}},
         "additionalProperties": {"type": "integer"}}


@pytest.mark.parametrize("text, schema_order, any_order", [
    (b'{"apiVersion":"v1","kind":"K"}', True, True),
    (b'{"x-a":"s","apiVersion":"v1","n":2,"kind":"K","m":3}', True, True),  # others between listed
    (b'{"kind":"K","apiVersion":"v1"}', False, True),                      # listed out of order
    (b'{"apiVersion":"v1","kind":"K","kind":"L"}', False, False),          # a listed name twice
    (b'{"kind":"K","\\u0078-a":"s"}', True, True),                        # "x-a" escaped: a pattern key
    (b'{"kind":"K","\\u0078-a":1}', False, False),                         # ... whose value is no string
    (b'{"kind":"K","\\u006bind":1}', False, False),                        # "kind" escaped: no other key
    (b'{"kind":"K","y":"s"}', False, False),                               # outside the pattern: integer
    (b'{"apiVersion":"v1"}', False, False),                                # required kind missing
])
def test_other_keys_interleave_and_are_exact(text, schema_order, any_order):
    assert compile_json_schema(_KUBE).matches(text) is schema_order
    assert compile_json_schema(_KUBE, property_order="any").matches(text) is any_order
    assert not (schema_order or any_order) or valid(text, _KUBE)


def test_property_names_beside_listed_properties_and_patterns():
    schema = {"type": "object", "properties": {"id": {"type": "integer"}}, "propertyNames": {"maxLength": 3},
              "patternProperties": {"^[0-9]+$": {"type": "integer"}}, "additionalProperties": {"type": "string"}}
    lazy = compile_json_schema(schema)
    assert lazy.matches(b'{"ab":"x","id":3,"12":4}')
    assert not lazy.matches(b'{"abcd":"x"}') and not lazy.matches(b'{"12":"x"}') and not lazy.matches(b'{"ab":1}')
    assert not any("beyond the listed" in n or "complement" in n for n in explain_json_schema(schema))


def test_explain_says_which_order_applies():
    schema = {"type": "object", "properties": {"b": {}, "a": {}}}
    assert "(root): properties are written in the schema's order: b, a (property_order='schema')" \
        in explain_json_schema(schema)
    assert "(root): listed properties in any order, each at most once (property_order='any')" \
        in explain_json_schema(schema, property_order="any")
    with pytest.raises(ValueError, match="property_order must be 'schema' or 'any'"):
        compile_json_schema(schema, property_order="sorted")


def test_any_order_is_bounded_by_the_state_budget():
    schema = {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(14)}}
    with pytest.raises(StateBudgetError, match=r"property_order='any' at \(root\).*max_states=1000"):
        compile_json_schema(schema, property_order="any", max_states=1000)
    with pytest.raises((StateBudgetError, TimeBudgetError)):
        compile_json_schema({"type": "object", "properties": {f"p{i}": {} for i in range(40)}},
                            property_order="any", limits=Limits(compile_seconds=1))
    lazy = compile_json_schema({"type": "object", "properties": {f"p{i}": {} for i in range(6)},
                                "required": ["p5", "p0"]}, property_order="any")
    assert lazy.matches(b'{"p5":1,"p3":2,"p0":3}') and not lazy.matches(b'{"p5":1,"p3":2}')
    assert not lazy.matches(b'{"p5":1,"p0":3,"p5":2}')
