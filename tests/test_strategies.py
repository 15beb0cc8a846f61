"""The shared Hypothesis strategies draw what they promise: schemas that jsonschema accepts as
Draft 2020-12 schemas of the subset (which `json_schema_to_regex` compiles), instances that validate,
vocabularies of the promised shape."""

from __future__ import annotations

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brzozowski import json_schema_to_regex

from .strategies import ALPHABET, instances, subset_schemas, vocabularies


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_subset_schemas_compile_and_their_instances_validate(data):
    schema = data.draw(subset_schemas, label="schema")
    jsonschema.Draft202012Validator.check_schema(schema)
    assert json_schema_to_regex(schema)
    value = data.draw(instances(schema), label="instance")
    assert jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER).is_valid(value)


@settings(max_examples=40, deadline=None)
@given(vocab=vocabularies(max_tokens=14, max_token_len=3, any_bytes=False))
def test_vocabularies_over_the_alphabet(vocab):
    assert 1 <= len(vocab) <= 14
    for token in vocab:
        assert token is None or (len(token) <= 3 and set(token) <= set(ALPHABET))


@settings(max_examples=40, deadline=None)
@given(vocab=vocabularies())
def test_vocabularies_hold_only_bytes_and_specials(vocab):
    assert 1 <= len(vocab) <= 40
    assert all(token is None or isinstance(token, bytes) for token in vocab)
