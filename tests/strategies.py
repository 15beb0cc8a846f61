"""Shared Hypothesis strategies: random patterns in the supported subset, byte strings over a small
alphabet that those patterns care about (so random strings actually hit the interesting cases),
random vocabularies, and random schemas of the JSON-schema subset with their instances; and `valid`,
the judge of a JSON text against a schema that the tests share.

The schema strategies are written here rather than taken from hypothesis-jsonschema (0.23.1 breaks
on objects with current Hypothesis); every instance they draw is valid for its schema by
construction, and a test should still check it with ``jsonschema`` first.
"""

from __future__ import annotations

import json

import jsonschema
from hypothesis import strategies as st

ATOMS = [
    "a", "b", "c", ".", r"\d", r"\w", r"\s", r"\D", "[a-c]", "[^a]", "[ab0]", r"\x00", r"\n",
    r"[^\n]", r"\.", "(?:)",
]
ALPHABET = b"abc0\n. _"


def _quantify(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    def build(args: tuple[str, str]) -> str:
        body, op = args
        return f"(?:{body}){op}"

    ops = st.sampled_from(["*", "+", "?", "{2}", "{0,2}", "{1,3}", "{2,}", "{,2}"])
    return st.tuples(inner, ops).map(build)


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    concat = st.lists(children, min_size=2, max_size=3).map("".join)
    alternation = st.lists(children, min_size=2, max_size=3).map(lambda xs: "(" + "|".join(xs) + ")")
    return st.one_of(concat, alternation, _quantify(children))


patterns = st.recursive(st.sampled_from(ATOMS), _combine, max_leaves=8)
"""Random patterns of the supported subset (every one has a non-empty language)."""

texts = st.binary(max_size=8).map(lambda bs: bytes(ALPHABET[b % len(ALPHABET)] for b in bs))
"""Short byte strings over the alphabet the patterns use."""


FORMAT_CHECKER = jsonschema.Draft202012Validator.FORMAT_CHECKER


def valid(text: bytes, schema: dict) -> bool:
    """Whether the JSON text is a JSON value that the schema accepts (Draft 2020-12 with its format
    checker; False if it is not JSON)."""
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return jsonschema.Draft202012Validator(schema, format_checker=FORMAT_CHECKER).is_valid(value)


# --- JSON values and schemas, for compile_json_schema ---------------------------------------------

NAMES = ["a", "b", "c", "é"]
"""Property names of the random schemas (one non-ASCII, spelled two ways in JSON)."""

open_json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from([0.5, -1.0, 2.0, 1e3]),
    st.sampled_from(["", "a", "é", "x y", 'q"', "\\"]),
)
open_json_values = st.recursive(
    open_json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(NAMES + ["z"]), inner, max_size=3)),
    max_leaves=6,
)
"""Small JSON values over the names and scalars the random schemas mention."""

_OPEN_TYPES = ["null", "boolean", "integer", "number", "string", "array", "object"]
_open_leaf_schemas = st.one_of(
    st.just({}), st.just(True), st.just(False), st.just({"$ref": "#/$defs/d"}),
    st.sampled_from(_OPEN_TYPES).map(lambda t: {"type": t}),
    st.lists(st.sampled_from(_OPEN_TYPES), min_size=1, max_size=3, unique=True).map(lambda ts: {"type": ts}),
    st.lists(open_json_values, min_size=1, max_size=3).map(lambda vs: {"enum": vs}),
    open_json_values.map(lambda v: {"const": v}),
)


def _open_object_schema(children: st.SearchStrategy) -> st.SearchStrategy:
    @st.composite
    def build(draw) -> dict:
        props = draw(st.dictionaries(st.sampled_from(NAMES), children, max_size=3))
        schema: dict = {"properties": props}
        if draw(st.booleans()):
            schema["type"] = "object"
        names = list(props) + ["c"]
        if draw(st.booleans()):
            schema["required"] = draw(st.lists(st.sampled_from(names), unique=True, max_size=2))
        extra = draw(st.sampled_from(["absent", "false", "true", "schema"]))
        if extra != "absent":
            schema["additionalProperties"] = {"false": False, "true": True}.get(extra) \
                if extra != "schema" else draw(children)
        if draw(st.integers(0, 3)) == 0:
            schema["minProperties"] = draw(st.integers(0, 2))
        if draw(st.integers(0, 3)) == 0:
            schema["maxProperties"] = draw(st.integers(0, 3))
        if draw(st.integers(0, 3)) == 0:
            schema["dependentRequired"] = {draw(st.sampled_from(names)): [draw(st.sampled_from(names))]}
        return schema

    return build()


def _open_array_schema(children: st.SearchStrategy) -> st.SearchStrategy:
    @st.composite
    def build(draw) -> dict:
        schema: dict = {"type": "array"} if draw(st.booleans()) else {}
        if draw(st.booleans()):
            schema["prefixItems"] = draw(st.lists(children, min_size=1, max_size=2))
        choice = draw(st.sampled_from(["absent", "false", "schema"]))
        if choice != "absent":
            schema["items"] = False if choice == "false" else draw(children)
        if draw(st.booleans()):
            schema["minItems"] = draw(st.integers(0, 2))
        if draw(st.booleans()):
            schema["maxItems"] = draw(st.integers(0, 3))
        if draw(st.integers(0, 3)) == 0:
            schema["contains"] = draw(children)
            if draw(st.booleans()):
                schema["minContains"] = draw(st.integers(0, 2))
        return schema

    return build()


def _open_combined(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        _open_object_schema(children), _open_array_schema(children),
        st.lists(children, min_size=1, max_size=3).map(lambda xs: {"anyOf": xs}),
        st.lists(_open_object_schema(children), min_size=2, max_size=2).map(lambda xs: {"allOf": xs}),
        st.tuples(children, children).map(lambda ab: {**(ab[0] if isinstance(ab[0], dict) else {}),
                                                      "anyOf": [ab[1], {"type": "null"}]}),
    )


json_schemas = st.tuples(
    st.recursive(_open_leaf_schemas, _open_combined, max_leaves=5),
    st.recursive(_open_leaf_schemas, _open_combined, max_leaves=3),
).map(lambda pair: {"$defs": {"d": pair[1]}, "allOf": [pair[0]]})
"""Random schemas over the structural keywords of compile_json_schema, with a (maybe recursive) $defs."""

def vocabularies(max_tokens: int = 40, max_token_len: int = 5, any_bytes: bool = True) -> st.SearchStrategy:
    """Vocabularies of 1..`max_tokens` tokens: ``None`` (special), tokens over `ALPHABET` (empty
    ones included) and, with `any_bytes`, 1..3 arbitrary bytes."""
    token = [
        st.none(),
        st.binary(max_size=max_token_len).map(lambda bs: bytes(ALPHABET[b % len(ALPHABET)] for b in bs)),
    ]
    if any_bytes:
        token.append(st.binary(min_size=1, max_size=3))
    return st.lists(st.one_of(token), min_size=1, max_size=max_tokens)


# -- JSON schemas of the supported subset, and their instances --------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-10**6, 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4)
)
json_values = st.recursive(
    json_scalars,
    lambda c: st.lists(c, max_size=2) | st.dictionaries(st.text(max_size=2), c, max_size=2),
    max_leaves=4,
)
SCALAR_TYPES = ["string", "integer", "number", "boolean", "null"]
annotations = st.fixed_dictionaries(
    {}, optional={"title": st.text(max_size=3), "description": st.text(max_size=3), "default": json_scalars}
)
"""Keywords that change nothing about which documents are valid."""


def _with(base: st.SearchStrategy, extra: st.SearchStrategy = annotations) -> st.SearchStrategy:
    return st.tuples(base, extra).map(lambda t: {**t[1], **t[0]})


leaf_schemas = (
    _with(st.sampled_from(SCALAR_TYPES).map(lambda t: {"type": t}))
    | _with(st.lists(st.sampled_from(SCALAR_TYPES), min_size=1, max_size=3, unique=True).map(lambda ts: {"type": ts}))
    | _with(st.lists(json_values, min_size=1, max_size=4).map(lambda vs: {"enum": vs}))
    | _with(json_values.map(lambda v: {"const": v}))
    | st.lists(json_scalars, min_size=1, max_size=4).flatmap(
        lambda vs: st.sampled_from(SCALAR_TYPES).map(lambda t: {"type": t, "enum": vs})
    ).filter(lambda s: any(jsonschema.Draft202012Validator(s).is_valid(v) for v in s["enum"]))
)


def _array_schema(item, lo, span):
    schema = {"type": "array", "items": item}
    if lo:
        schema["minItems"] = lo
    if span is not None:
        schema["maxItems"] = lo + span
    return schema


def _object_schema(members, closed):
    schema = {
        "type": "object",
        "properties": {name: sub for name, sub, _ in members},
        "required": [name for name, _, req in members if req],
    }
    if closed:
        schema["additionalProperties"] = False
    return schema


def _extend(children):
    arrays = st.builds(_array_schema, children, st.integers(0, 2), st.none() | st.integers(0, 2))
    objects = st.builds(
        _object_schema,
        st.lists(st.tuples(st.text(max_size=3), children, st.booleans()), max_size=4, unique_by=lambda m: m[0]),
        st.booleans(),
    )
    any_ofs = st.lists(children, min_size=1, max_size=3).map(lambda bs: {"anyOf": bs})
    return _with(arrays) | _with(objects) | any_ofs


subset_schemas = st.recursive(leaf_schemas, _extend, max_leaves=6)
"""Random schemas of the subset: typed scalars, enum/const, arrays with bounds, objects (open or
closed, with required members), anyOf; each possibly annotated."""


def instances(schema: dict) -> st.SearchStrategy:
    """Instances of a subset schema, objects with their members in property order."""
    if "anyOf" in schema:
        return st.one_of([instances(b) for b in schema["anyOf"]])
    if "const" in schema or "enum" in schema:
        values = [schema["const"]] if "const" in schema else schema["enum"]
        return st.sampled_from([v for v in values if jsonschema.Draft202012Validator(schema).is_valid(v)])
    types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    return st.one_of([_typed_instances(schema, t) for t in types])


def _typed_instances(schema: dict, t: str) -> st.SearchStrategy:
    if t == "string":
        return st.text(max_size=6)
    if t == "integer":
        return st.integers()
    if t == "number":
        return st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    if t == "boolean":
        return st.booleans()
    if t == "null":
        return st.none()
    if t == "array":
        hi = schema.get("maxItems")
        return st.lists(instances(schema["items"]), min_size=schema.get("minItems", 0), max_size=hi if hi is not None else 3)
    props, required = schema["properties"], schema["required"]
    members = [
        st.tuples(st.just(name), instances(sub), st.just(True) if name in required else st.booleans())
        for name, sub in props.items()
    ]
    return st.tuples(*members).map(lambda ms: {name: v for name, v, keep in ms if keep})


# --- object schemas with properties, patternProperties, additionalProperties, propertyNames -------
# Written against a `pick(options) -> one of them` so that Hypothesis (`object_cases`) and a seeded
# `random.Random` (benchmarks/accept.py) draw the same kinds of schemas and instances.

OBJECT_KEYS = ["a", "b", "id", "x-a", "x-b", "xy", "1", "12", "é", "A", "", "a\n", "٣", "kind", "zz"]
"""Keys of the random object schemas and instances: ASCII, non-ASCII (spelled two ways), a digit
that Python's ``\\d`` matches but ECMA's does not, a trailing newline (Python's ``$`` before it)."""

OBJECT_PATTERNS = ["^x-", "^[0-9]+$", "y", "^a$", ".*", "^[a-z]$", "\\d", "^.$", "b|^k"]
"""patternProperties patterns, some overlapping, some where ECMA-262 and Python's re differ."""

OBJECT_VALUE_SCHEMAS = [{"type": "integer"}, {"type": "string"}, {"type": "boolean"}, {}, True, False,
                        {"type": "integer", "minimum": 0}, {"enum": [1, "a", None]}, {"type": ["string", "null"]}]
OBJECT_VALUES = [0, 1, -3, "a", "", True, None, [1], {"k": 1}]
OBJECT_NAME_RULES = [{"maxLength": 2}, {"pattern": "^[a-z0-9-]*$"}, {"enum": ["a", "b", "x-a", "zz", "kind"]},
                     {"minLength": 1}]


def object_schema(pick) -> dict:
    """A random object schema over `OBJECT_KEYS`/`OBJECT_PATTERNS` (`pick` chooses among options),
    as JSON would load it (no subschema object shared by two places)."""
    return json.loads(json.dumps(_picked_object_schema(pick)))


def _picked_object_schema(pick) -> dict:
    schema: dict = {"type": "object"}
    names = [k for k in OBJECT_KEYS if pick([False, False, True])][:4]
    schema["properties"] = {k: pick(OBJECT_VALUE_SCHEMAS) for k in names}
    required = [k for k in names if schema["properties"][k] is not False and pick([False, True])]
    if required:
        schema["required"] = required
    patterns = [p for p in OBJECT_PATTERNS if pick([False, False, False, True])][:3]
    if patterns:
        schema["patternProperties"] = {p: pick(OBJECT_VALUE_SCHEMAS) for p in patterns}
    extra = pick(["absent", "absent", "false", "true", "schema"])
    if extra != "absent":
        schema["additionalProperties"] = {"false": False, "true": True}.get(extra, pick(OBJECT_VALUE_SCHEMAS))
    if pick([False, False, True]):
        schema["propertyNames"] = pick(OBJECT_NAME_RULES)
    return schema


def object_instance(schema: dict, pick) -> dict | None:
    """A random instance of `schema` (from `object_schema`), built key by key with values that
    ``jsonschema`` accepts under that key, in a random key order; None if none was found."""
    check = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    keys = [k for k in OBJECT_KEYS if k in schema.get("required", []) or pick([False, False, True])]
    order = []
    while keys:  # a random order
        order.append(keys.pop(pick(list(range(len(keys))))))
    instance = {}
    for key in order:
        value = pick(OBJECT_VALUES)
        for v in [value] + OBJECT_VALUES:
            if _member_ok(schema, key, v):
                instance[key] = v
                break
    return instance if check.is_valid(instance) else None


def _member_ok(schema: dict, key: str, value) -> bool:
    """Whether the member key: value breaks none of `schema`'s per-key keywords."""
    alone = {k: v for k, v in schema.items() if k != "required"}
    return jsonschema.Draft202012Validator(alone).is_valid({key: value})


@st.composite
def object_cases(draw) -> tuple[dict, dict | None]:
    """(schema, instance): a random object schema (`object_schema`) and a valid instance of it, or
    None where none was found (a required name that propertyNames refuses, ...)."""
    def pick(options):
        return draw(st.sampled_from(options))

    schema = object_schema(pick)
    return schema, object_instance(schema, pick)


def in_schema_order(schema: dict, instance: dict) -> dict:
    """`instance` with its listed properties in the schema's order (others stay where they are)."""
    props = schema.get("properties", {})
    listed = iter([k for k in props if k in instance])
    return {k: instance[k] for k in [next(listed) if k in props else k for k in instance]}
