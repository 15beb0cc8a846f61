"""Shared Hypothesis strategies: random patterns in the supported subset, and byte strings over a
small alphabet that those patterns care about (so random strings actually hit the interesting cases).
"""

from __future__ import annotations

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


# --- JSON values and schemas, for compile_json_schema ---------------------------------------------

NAMES = ["a", "b", "c", "é"]
"""Property names of the random schemas (one non-ASCII, spelled two ways in JSON)."""

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from([0.5, -1.0, 2.0, 1e3]),
    st.sampled_from(["", "a", "é", "x y", 'q"', "\\"]),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(NAMES + ["z"]), inner, max_size=3)),
    max_leaves=6,
)
"""Small JSON values over the names and scalars the random schemas mention."""

_TYPES = ["null", "boolean", "integer", "number", "string", "array", "object"]
_leaf_schemas = st.one_of(
    st.just({}), st.just(True), st.just(False), st.just({"$ref": "#/$defs/d"}),
    st.sampled_from(_TYPES).map(lambda t: {"type": t}),
    st.lists(st.sampled_from(_TYPES), min_size=1, max_size=3, unique=True).map(lambda ts: {"type": ts}),
    st.lists(json_values, min_size=1, max_size=3).map(lambda vs: {"enum": vs}),
    json_values.map(lambda v: {"const": v}),
)


def _object_schema(children: st.SearchStrategy) -> st.SearchStrategy:
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


def _array_schema(children: st.SearchStrategy) -> st.SearchStrategy:
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


def _combined(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        _object_schema(children), _array_schema(children),
        st.lists(children, min_size=1, max_size=3).map(lambda xs: {"anyOf": xs}),
        st.lists(_object_schema(children), min_size=2, max_size=2).map(lambda xs: {"allOf": xs}),
        st.tuples(children, children).map(lambda ab: {**(ab[0] if isinstance(ab[0], dict) else {}),
                                                      "anyOf": [ab[1], {"type": "null"}]}),
    )


json_schemas = st.tuples(
    st.recursive(_leaf_schemas, _combined, max_leaves=5),
    st.recursive(_leaf_schemas, _combined, max_leaves=3),
).map(lambda pair: {"$defs": {"d": pair[1]}, "allOf": [pair[0]]})
"""Random schemas over the structural keywords of compile_json_schema, with a (maybe recursive) $defs."""
