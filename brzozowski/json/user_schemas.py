"""Schemas as users hold them: Pydantic models, OpenAI-style ``response_format`` and ``tools``.

Every entry point that takes a JSON schema (`brzozowski.json.compiler.compile_json_schema`,
`~brzozowski.json.compiler.explain_json_schema`, `brzozowski.json.strict.json_schema_to_regex`, the
engine helpers) first passes it through `as_json_schema`, which turns what a user holds into the
schema dict the compilers read:

- a JSON schema (a dict or a bool) stays what it is (the very object: it is never copied or changed);
- a Pydantic v2 model class or a ``pydantic.TypeAdapter``: its validation JSON schema
  (``model_json_schema()`` / ``json_schema()``), without the OpenAPI ``discriminator`` annotation
  Pydantic writes beside a discriminated union's ``oneOf`` (the branches' ``const`` tags are what
  validates; ``discriminator`` is no JSON Schema keyword);
- an OpenAI ``response_format``: ``{"type": "json_schema", "json_schema": {"schema": ...}}`` is its
  schema, ``{"type": "json_object"}`` is any JSON object, ``{"type": "text"}`` is refused (nothing
  to constrain).

`tool_call_schema(tools, tool_choice)` is the language of one call of one of OpenAI-style ``tools``
(``[{"type": "function", "function": {"name", "parameters", ...}}]``): the JSON object
``{"name": <a tool's name>, "arguments": <that tool's parameters>}``. ``tool_choice`` "required"
(the default) allows every tool, ``{"type": "function", "function": {"name": N}}`` (or the name
itself) only N. "auto" and "none" are refused: they let the model answer in free text, which no
constraint describes.

Invariant: what comes out is a JSON schema that the compilers read; a document valid for it is what
the input means (for Pydantic: ``Model.model_validate_json`` accepts every document the compiled
language holds; for tools: the call's ``arguments`` validate against that tool's ``parameters``).
Refs inside a tool's parameters (``#/$defs/...``, ``#``) are rewritten to where the parameters now
stand, so each tool keeps its own ``$defs``.

>>> tools = [{"type": "function", "function": {"name": "add", "parameters": {"type": "object",
...     "properties": {"a": {"type": "integer"}}, "required": ["a"]}}}]
>>> schema = tool_call_schema(tools)
>>> schema["anyOf"][0]["properties"]["name"]
{'const': 'add'}
>>> as_json_schema({"type": "json_object"})
{'type': 'object'}

Reference: OpenAI's Chat Completions API (``response_format``, ``tools``, ``tool_choice``); Pydantic's
JSON Schema generation (``GenerateJsonSchema``).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ArgumentError, InputTypeError, SchemaError, SchemaTypeError

__all__ = ["as_json_schema", "tool_call_schema"]

# Keywords whose value is a map of name -> subschema, and those whose value is a subschema or a list
# of them: where `_strip_discriminators` and `_relocate_refs` look for subschemas.
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SUBSCHEMAS = ("additionalProperties", "unevaluatedProperties", "propertyNames", "contains", "items",
               "prefixItems", "additionalItems", "unevaluatedItems", "not", "if", "then", "else",
               "allOf", "anyOf", "oneOf", "contentSchema")


def as_json_schema(schema: Any) -> Any:
    """The JSON schema that `schema` stands for (see the module doc); a dict or bool is returned as is.

    `SchemaTypeError` (an `InputTypeError` and a `SchemaError` at the root) for anything that is
    none of these (naming its type); `SchemaError` for a
    ``response_format`` without its schema; `ArgumentError` for ``{"type": "text"}``.
    """
    if isinstance(schema, (bool, dict)):
        if isinstance(schema, dict) and schema.get("type") in ("json_schema", "json_object", "text"):
            return _response_format(schema)
        return schema
    pydantic = sys.modules.get("pydantic")
    if pydantic is not None:
        if isinstance(schema, type) and issubclass(schema, pydantic.BaseModel):
            return _strip_discriminators(schema.model_json_schema())
        if isinstance(schema, pydantic.TypeAdapter):
            return _strip_discriminators(schema.json_schema())
    if isinstance(schema, type) and hasattr(schema, "schema") and hasattr(schema, "__fields__"):
        raise InputTypeError(f"{schema.__name__} looks like a Pydantic v1 model: only Pydantic v2 models are read")
    if isinstance(schema, Mapping):
        return as_json_schema(dict(schema))
    raise SchemaTypeError(
        f"a schema is a JSON schema (dict or bool), a Pydantic v2 model class or TypeAdapter, or an "
        f"OpenAI response_format; not {schema!r:.80} ({type(schema).__name__})"
    )


def _response_format(fmt: dict) -> Any:
    kind = fmt["type"]
    if kind == "json_object":
        return {"type": "object"}
    if kind == "text":
        raise ArgumentError('response_format {"type": "text"} leaves the answer free: there is no schema to follow')
    inner = fmt.get("json_schema")
    if not isinstance(inner, Mapping) or "schema" not in inner:
        raise SchemaError('a response_format of type "json_schema" needs "json_schema": {"schema": ...}',
                          "/json_schema", "json_schema")
    return as_json_schema(inner["schema"])


def tool_call_schema(tools: Sequence[Any], tool_choice: Any = "required") -> dict:
    """The JSON schema of one call ``{"name": ..., "arguments": {...}}`` of one of `tools`.

    `tools`: OpenAI-style tool definitions (``{"type": "function", "function": {...}}``, or the
    flat ``{"type": "function", "name": ..., "parameters": ...}``); a tool's ``parameters`` may be
    any schema `as_json_schema` reads (a Pydantic model too); without ``parameters`` a tool takes
    no arguments (``{}``). `tool_choice`: "required", a tool's name, or
    ``{"type": "function", "function": {"name": ...}}``.

    `SchemaError` naming the tool (its index) for a malformed definition or a repeated name;
    `ArgumentError` for "auto"/"none" or a choice naming no tool.
    """
    if isinstance(tools, (str, bytes, Mapping)) or not isinstance(tools, Sequence):
        raise InputTypeError(f"tools must be a list of tool definitions, not {type(tools).__name__}")
    if not tools:
        raise ArgumentError("tools is empty: a tool call needs at least one tool")
    named: dict[str, Any] = {}
    for i, tool in enumerate(tools):
        name, parameters = _tool(tool, i)
        if name in named:
            raise SchemaError(f"two tools are named {name!r}", f"/{i}/function/name", "name")
        named[name] = parameters
    chosen = _chosen(tool_choice, named)
    calls, defs = [], {}
    for name in chosen:
        key = f"tool:{name}"
        defs[key] = _relocate_refs(named[name], "#/$defs/" + _escape(key))
        calls.append({"type": "object",
                      "properties": {"name": {"const": name}, "arguments": {"$ref": "#/$defs/" + _escape(key)}},
                      "required": ["name", "arguments"], "additionalProperties": False})
    return {"anyOf": calls, "$defs": defs}


def _tool(tool: Any, i: int) -> tuple[str, Any]:
    if not isinstance(tool, Mapping):
        raise SchemaError(f"tool {i} is {type(tool).__name__}, not a tool definition (a dict)", f"/{i}")
    if tool.get("type", "function") != "function":
        raise SchemaError(f"tool {i} has type {tool.get('type')!r}: only function tools can be called",
                          f"/{i}/type", "type")
    function, where = (tool["function"], f"/{i}/function") if "function" in tool else (tool, f"/{i}")
    if not isinstance(function, Mapping) or not isinstance(function.get("name"), str) or not function["name"]:
        raise SchemaError(f"tool {i} has no function name (a non-empty string)", f"{where}/name", "name")
    parameters = function.get("parameters")
    if parameters is None:
        return function["name"], {"type": "object", "properties": {}, "additionalProperties": False}
    return function["name"], as_json_schema(parameters)


def _chosen(tool_choice: Any, named: dict[str, Any]) -> list[str]:
    if tool_choice == "required":
        return list(named)
    if tool_choice in ("auto", "none"):
        raise ArgumentError(f"tool_choice {tool_choice!r} lets the model answer in free text: no constraint "
                            "describes it; use 'required' or name a function")
    name = tool_choice
    if isinstance(tool_choice, Mapping):
        function = tool_choice.get("function")
        name = function.get("name") if isinstance(function, Mapping) else tool_choice.get("name")
    if not isinstance(name, str):
        raise ArgumentError(f"tool_choice must be 'required', a tool's name or "
                            f"{{'type': 'function', 'function': {{'name': ...}}}}, not {tool_choice!r:.80}")
    if name not in named:
        raise ArgumentError(f"tool_choice names {name!r}, which is none of the tools ({', '.join(named)})")
    return [name]


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _relocate_refs(schema: Any, base: str) -> Any:
    """A copy of `schema` whose document-local refs (``#``, ``#/...``) point under `base`, the
    pointer where the schema will stand; other refs (URLs, ``$id``-relative) are left alone."""
    def walk(node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        out = dict(node)
        ref = out.get("$ref")
        if isinstance(ref, str) and (ref == "#" or ref.startswith("#/")):
            out["$ref"] = base + ref[1:]
        for keyword in _SCHEMA_MAPS:
            if isinstance(out.get(keyword), dict):
                out[keyword] = {name: walk(sub) for name, sub in out[keyword].items()}
        for keyword in _SUBSCHEMAS:
            value = out.get(keyword)
            if isinstance(value, list):
                out[keyword] = [walk(sub) for sub in value]
            elif isinstance(value, dict):
                out[keyword] = walk(value)
        return out
    return walk(schema)


def _strip_discriminators(schema: Any) -> Any:
    """Pydantic's schema without ``discriminator`` beside ``oneOf``/``anyOf`` (in place: it is ours)."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        if isinstance(node.get("discriminator"), dict) and ("oneOf" in node or "anyOf" in node):
            del node["discriminator"]
        for keyword in _SCHEMA_MAPS:
            if isinstance(node.get(keyword), dict):
                stack.extend(node[keyword].values())
        for keyword in _SUBSCHEMAS:
            value = node.get(keyword)
            stack.extend(value if isinstance(value, list) else [value])
    return schema
