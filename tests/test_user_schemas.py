"""Tests for brzozowski.json.user_schemas: Pydantic models, OpenAI response_format and tools as schemas.

Oracles: Pydantic itself (``Model.model_validate_json`` / ``TypeAdapter.validate_json`` on every
document sampled from the compiled language), ``jsonschema`` with the draft's format checker (a
tool call's arguments against that tool's own ``parameters``), and the compiled language of the
plain schema (a wrapped schema must compile to the very same start term).
"""

from __future__ import annotations

import enum
import json
import random
from typing import Annotated, Literal, Optional, Union

import jsonschema
import pytest
from pydantic import BaseModel, Field, TypeAdapter

from brzozowski import compile_json_schema, explain_json_schema, json_schema_to_regex, regex_to_dfa
from brzozowski.cli import _lazy_documents
from brzozowski.errors import ArgumentError, InputTypeError, SchemaError
from brzozowski.json.user_schemas import as_json_schema, tool_call_schema

CHECKER = jsonschema.Draft202012Validator.FORMAT_CHECKER


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Size(int, enum.Enum):
    SMALL = 1
    LARGE = 2


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int = Field(ge=0, le=9)


class Dog(BaseModel):
    kind: Literal["dog"]
    name: str = Field(max_length=12, pattern=r"^[A-Z][a-z]+$")


class Address(BaseModel):
    city: str = Field(max_length=20)
    zip: Optional[str] = Field(default=None, pattern=r"^[0-9]{5}$")


class Person(BaseModel):
    name: str = Field(max_length=30)
    age: int = Field(ge=0, le=130)
    height: float = Field(gt=0, lt=3.5)
    color: Color
    size: Size = Size.SMALL
    address: Address
    tags: list[str] = Field(default_factory=list, max_length=3)
    pet: Annotated[Union[Cat, Dog], Field(discriminator="kind")]
    friends: list[Address] = Field(default_factory=list, max_length=2)
    nickname: Optional[str] = None


def documents(lazy, n: int, seed: int = 0) -> list[str]:
    return [doc.decode("utf-8") for doc in _lazy_documents(lazy, random.Random(seed), n)]


def test_a_pydantic_model_compiles_and_every_document_validates_with_the_model():
    docs = documents(compile_json_schema(Person), 150)
    for doc in docs:
        Person.model_validate_json(doc)  # raises on an invalid document
    pets = {Person.model_validate_json(doc).pet.kind for doc in docs}
    assert pets == {"cat", "dog"}  # both branches of the discriminated union are reachable
    assert any(Person.model_validate_json(doc).nickname is None for doc in docs)
    assert any(Person.model_validate_json(doc).nickname is not None for doc in docs)


def test_a_type_adapter_compiles_and_every_document_validates_with_it():
    adapter = TypeAdapter(list[Annotated[Union[Cat, Dog], Field(discriminator="kind")]])
    docs = documents(compile_json_schema(adapter), 100, seed=1)
    for doc in docs:
        adapter.validate_json(doc)
    assert any(doc.count('"kind"') >= 2 for doc in docs)


def test_the_model_schema_without_stripping_the_discriminator_is_refused():
    """What as_json_schema removes is needed: Pydantic's raw schema has the OpenAPI keyword."""
    with pytest.raises(SchemaError, match="unknown keyword 'discriminator'"):
        compile_json_schema(Person.model_json_schema())
    assert "discriminator" in json.dumps(Person.model_json_schema())
    assert "discriminator" not in json.dumps(as_json_schema(Person))


def test_a_model_is_accepted_by_every_schema_entry_point():
    class Point(BaseModel):
        x: int
        y: bool

    regex = json_schema_to_regex(Point)
    assert regex_to_dfa(regex).matches(b'{"x":-3,"y":true}')
    assert explain_json_schema(Point) == explain_json_schema(Point.model_json_schema())


def test_a_user_dict_is_returned_unchanged_and_uncopied():
    schema = {"type": "object", "properties": {"discriminator": {"type": "string"}}}
    assert as_json_schema(schema) is schema
    assert as_json_schema(True) is True


def start_term(schema):
    lazy = compile_json_schema(schema)
    return lazy.term(lazy.start)


def test_response_format_json_schema_is_its_schema():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    fmt = {"type": "json_schema", "json_schema": {"name": "a", "schema": schema, "strict": True}}
    assert as_json_schema(fmt) is schema
    assert start_term(fmt) is start_term(schema)
    fmt_model = {"type": "json_schema", "json_schema": {"name": "p", "schema": Person}}
    assert start_term(fmt_model) is start_term(Person)


def test_response_format_json_object_is_any_object():
    lazy = compile_json_schema({"type": "json_object"})
    assert lazy.term(lazy.start) is start_term({"type": "object"})
    for doc in documents(lazy, 40, seed=2):
        assert isinstance(json.loads(doc), dict)


@pytest.mark.parametrize("bad, error, message", [
    ({"type": "text"}, ArgumentError, "leaves the answer free"),
    ({"type": "json_schema"}, SchemaError, 'needs "json_schema"'),
    ({"type": "json_schema", "json_schema": {"name": "x"}}, SchemaError, 'needs "json_schema"'),
    (42, InputTypeError, r"not 42 \(int\)"),
    ("{}", InputTypeError, r"\(str\)"),
])
def test_what_is_no_schema_is_refused_by_name(bad, error, message):
    with pytest.raises(error, match=message):
        compile_json_schema(bad)


class Forecast(BaseModel):
    city: str = Field(max_length=16)
    days: int = Field(ge=1, le=7)
    unit: Literal["celsius", "fahrenheit"] = "celsius"


TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "the forecast",
                                      "parameters": Forecast.model_json_schema()}},
    {"type": "function", "function": {"name": "add", "parameters": {
        "type": "object", "properties": {"a": {"$ref": "#/$defs/n"}, "b": {"$ref": "#/$defs/n"}},
        "required": ["a", "b"], "additionalProperties": False,
        "$defs": {"n": {"type": "integer", "minimum": -1000, "maximum": 1000}}}}},
    {"type": "function", "name": "tree", "parameters": {  # the flat shape, and a recursive "#" ref
        "type": "object", "properties": {"label": {"enum": ["x", "y"]},
                                          "kids": {"type": "array", "items": {"$ref": "#"}, "maxItems": 2}},
        "required": ["label"]}},
    {"type": "function", "function": {"name": "ping"}},  # no parameters: no arguments
]


def parameters_of(name):
    for tool in TOOLS:
        function = tool.get("function", tool)
        if function["name"] == name:
            return function.get("parameters", {"type": "object", "maxProperties": 0})
    raise AssertionError(name)


def test_a_tool_call_names_one_tool_and_its_arguments_validate_against_that_tool():
    schema = tool_call_schema(TOOLS)
    names = set()
    for doc in documents(compile_json_schema(schema), 300, seed=3):
        call = json.loads(doc)
        assert set(call) == {"name", "arguments"}
        names.add(call["name"])
        jsonschema.validate(call["arguments"], parameters_of(call["name"]), format_checker=CHECKER)
        jsonschema.validate(call, schema, format_checker=CHECKER)
    assert names == {"get_weather", "add", "tree", "ping"}


def test_a_named_tool_choice_allows_that_tool_only():
    for choice in ("add", {"type": "function", "function": {"name": "add"}}):
        docs = documents(compile_json_schema(tool_call_schema(TOOLS, choice)), 40, seed=4)
        assert {json.loads(doc)["name"] for doc in docs} == {"add"}


def test_refs_inside_parameters_are_relocated_not_left_pointing_at_the_root():
    schema = tool_call_schema(TOOLS, "tree")
    relocated = schema["$defs"]["tool:tree"]["properties"]["kids"]["items"]["$ref"]
    assert relocated == "#/$defs/tool:tree"
    add = tool_call_schema(TOOLS, "add")["$defs"]["tool:add"]
    assert add["properties"]["a"]["$ref"] == "#/$defs/tool:add/$defs/n"
    assert TOOLS[1]["function"]["parameters"]["properties"]["a"]["$ref"] == "#/$defs/n"  # not mutated
    nested = [json.loads(d)["arguments"] for d in documents(compile_json_schema(schema), 200, seed=5)]
    assert any(args.get("kids") for args in nested)


@pytest.mark.parametrize("tools, choice, error, message", [
    (TOOLS, "auto", ArgumentError, "free text"),
    (TOOLS, "none", ArgumentError, "free text"),
    (TOOLS, "nope", ArgumentError, "names 'nope', which is none of the tools"),
    (TOOLS, 7, ArgumentError, "tool_choice must be"),
    ([], "required", ArgumentError, "tools is empty"),
    ({"type": "function"}, "required", InputTypeError, "tools must be a list"),
    ([TOOLS[1], TOOLS[1]], "required", SchemaError, "two tools are named 'add'"),
    ([{"type": "code_interpreter"}], "required", SchemaError, "only function tools"),
    ([{"type": "function", "function": {"parameters": {}}}], "required", SchemaError, "no function name"),
    (["add"], "required", SchemaError, "tool 0 is str"),
])
def test_malformed_tools_and_choices_are_refused_by_name(tools, choice, error, message):
    with pytest.raises(error, match=message):
        tool_call_schema(tools, choice)
