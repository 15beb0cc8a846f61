"""The caches that make a schema's first mask cheap give the results of building everything anew.

Oracle: the same compilation with an empty cache (terms are interned, so the same
language built the same way is the same object); the notes ``--explain`` prints are the same too.
Soundness against ``jsonschema`` is test_compile_schema.py's: here only "cached == fresh" is claimed.
"""

from __future__ import annotations

import pytest

from brzozowski import schema_compiler
from brzozowski.schema_compiler import explain_json_schema, json_schema_term

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
        assert json_schema_term(OPEN_SCHEMAS[j], **OPTIONS[i]) is term
        cached_notes = explain_json_schema(OPEN_SCHEMAS[j], **OPTIONS[i])
        assert cached_notes == notes
        assert any(line.startswith("any JSON value (") for line in cached_notes)


def test_any_value_cache_is_bounded():
    schema_compiler._ANY_VALUES.clear()
    for depth in range(schema_compiler.MAX_ANY_VALUES + 5):
        json_schema_term({"type": "array"}, max_depth=depth % 12 + 1, separators=(",", ":" + " " * (depth // 12)))
    assert 0 < len(schema_compiler._ANY_VALUES) <= schema_compiler.MAX_ANY_VALUES


def test_enum_values_are_filtered_as_before_without_the_rest_schema():
    """An enum's values are checked against "any JSON value" of the node's depth: a key order the
    writer cannot produce (descending first characters) is still left out, with its note."""
    notes = explain_json_schema({"enum": [{"z": 1, "a": 2}, {"a": 1, "z": 2}]}, closed_objects=False)
    assert any("/enum/0" in line and "not written" in line for line in notes)
    assert not any("/enum/1" in line for line in notes)
