"""Hostile schemas (issue 39): every one ends in a result or the documented error, within its budget.

Each case asserts the error's class *and* that its message names the limit and the JSON pointer.
Depth: a schema nested past `Limits.max_schema_depth` is a `SchemaError` at the pointer where it
went too deep (never a RecursionError), a ``max_depth`` past `Limits.max_document_depth` an
`InputLimitError`; sizes: an `InputLimitError` naming the limit; work that grows without a size to
refuse (numbers with bounds of hundreds of digits, dependentSchemas chains): a `TimeBudgetError`
naming ``compile_seconds`` and the subschema being compiled. A schema at the limits still compiles.
"""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import time

import pytest

from brzozowski import compile_json_schema
from brzozowski.budget import DEFAULT_LIMITS, Limits
from brzozowski.errors import InputLimitError, SchemaError, TimeBudgetError
from brzozowski.json.compiler import explain_json_schema

#: Slack over a budget for what runs after the deadline fires (unwinding) and a loaded machine.
SLACK = 2.0


def nest(keyword, n, leaf=None):
    schema = {} if leaf is None else leaf
    for _ in range(n):
        schema = {keyword: [schema]} if keyword in ("allOf", "anyOf", "oneOf") else {keyword: schema}
    return schema


def deep_list(n):
    value: list = []
    for _ in range(n):
        value = [value]
    return value


def deep_dict(n):
    value: dict = {}
    for _ in range(n):
        value = {"a": value}
    return value


def huge_bounds(rng):
    """A number with bounds near ±1e300: the digit construction of each bound has ~300 levels."""
    return {"type": "number", "minimum": -rng.uniform(1, 9) * 10.0 ** rng.randint(290, 299),
            "maximum": rng.uniform(1, 9) * 10.0 ** rng.randint(290, 299)}


def timed(call):
    start = time.perf_counter()
    try:
        return call(), time.perf_counter() - start
    except Exception as e:  # noqa: BLE001 - returned for the caller's assertions
        return e, time.perf_counter() - start


# --- depth: no recursion the input can deepen ---------------------------------------------------

DEEP = [
    ("allOf", nest("allOf", 5000), "/allOf/0/allOf/0"),
    ("not", nest("not", 5000), "/not/not/not"),
    ("anyOf", nest("anyOf", 5000), "/anyOf/0/anyOf/0"),
    ("oneOf", nest("oneOf", 5000), "/oneOf/0/oneOf/0"),
    ("items", nest("items", 5000), "/items/items"),
    ("const list", {"const": deep_list(5000)}, "/const/0/0/0"),
    ("const dict", {"const": deep_dict(50000)}, "/const/a/a/a"),
    ("enum value", {"enum": [deep_list(5000)]}, "/enum/0/0/0"),
    ("properties", nest("properties", 3000, {}), "/properties/properties"),
]


@pytest.mark.parametrize("name, schema, where", DEEP, ids=[d[0] for d in DEEP])
def test_a_schema_nested_past_the_limit_is_a_schema_error_at_the_pointer(name, schema, where):
    caught, seconds = timed(lambda: compile_json_schema(schema))
    assert isinstance(caught, SchemaError), caught
    assert "max_schema_depth" in str(caught) and caught.pointer.startswith(where), str(caught)[:200]
    depth = caught.pointer.count("/")
    assert DEFAULT_LIMITS.max_schema_depth < depth <= DEFAULT_LIMITS.max_schema_depth + 2  # (a list item: 2 levels)
    assert seconds < 1 + SLACK
    with pytest.raises(SchemaError, match="max_schema_depth"):
        explain_json_schema(schema)


def test_a_schema_that_contains_itself_is_a_schema_error_not_a_hang():
    schema: dict = {"type": "object"}
    schema["properties"] = {"self": schema}
    with pytest.raises(SchemaError, match="max_schema_depth") as caught:
        compile_json_schema(schema)
    assert caught.value.pointer.startswith("/properties/self/properties/self")
    values: list = []
    values.append(values)
    with pytest.raises(SchemaError, match="max_schema_depth") as caught:
        compile_json_schema({"enum": values})
    assert caught.value.pointer.startswith("/enum/0/0/0")


AT_THE_LIMIT = [
    ("allOf", nest("allOf", 31, {"type": "integer"}), b"7"),
    ("anyOf", nest("anyOf", 31, {"type": "integer"}), b"7"),
    ("not", nest("not", 63, {"type": "integer"}), b'"a"'),
    ("not of an object", nest("not", 61, {"properties": {"a": {"type": "integer"}}, "required": ["a"]}),
     b'{"a":"x"}'),
    ("if", nest("if", 63, {"type": "integer"}), b"7"),
    ("items", nest("items", 63, {"type": "integer"}), b"[[[7]]]"),
    ("const list", {"const": deep_list(62)}, b"[" * 63 + b"]" * 63),
    ("const dict", {"const": deep_dict(62)}, b'{"a":' * 62 + b"{}" + b"}" * 62),
]


@pytest.mark.parametrize("name, schema, document", AT_THE_LIMIT, ids=[a[0] for a in AT_THE_LIMIT])
def test_a_schema_at_the_depth_limit_compiles_even_on_a_deeper_stack(name, schema, document):
    """At `max_schema_depth` levels the compile fits in Python's stack with a fifth of it used
    already (a server's frames), and with the deepest documents `max_document_depth` allows."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(800)
    try:
        nesting = document.count(b"[") + document.count(b"{")
        for max_depth in (8, DEFAULT_LIMITS.max_document_depth):
            try:
                lazy = compile_json_schema(schema, max_depth=max_depth)
            except SchemaError as e:  # a const nested deeper than max_depth: nothing to write
                assert max_depth < nesting and "no document satisfies" in str(e)
            else:
                assert lazy.matches(document) == (max_depth >= nesting)
    finally:
        sys.setrecursionlimit(limit)


def test_any_json_value_past_the_document_depth_limit_is_an_input_limit_error():
    with pytest.raises(InputLimitError, match=r"max_document_depth \(100\) exceeded at \(root\)"):
        compile_json_schema({}, max_depth=200)
    lazy = compile_json_schema({}, max_depth=100)
    assert lazy.matches(b"[" * 100 + b"]" * 100) and not lazy.matches(b"[" * 101 + b"]" * 101)
    lazy = compile_json_schema({}, max_depth=120, limits=Limits(max_document_depth=None))  # off: trusted callers
    assert lazy.matches(b"[" * 120 + b"]" * 120)


@pytest.mark.parametrize("chain", [10, 60])
@pytest.mark.parametrize("max_depth", [8, 50, 100])
def test_a_reference_chain_through_arrays_ends_in_a_result_or_a_schema_error(chain, max_depth):
    """Chains of references through arrays at every level, as deep as max_document_depth allows:
    the subschemas nested in one another are bounded (`MAX_ACTIVE_SCHEMAS`), not the stack."""
    from brzozowski.json.compiler.common import MAX_ACTIVE_SCHEMAS
    defs = {f"c{i}": {"$ref": f"#/$defs/c{i + 1}"} for i in range(chain - 1)}
    defs[f"c{chain - 1}"] = {"anyOf": [{"type": "null"}, {"items": {"$ref": "#/$defs/c0"}}]}
    try:
        lazy = compile_json_schema({"$defs": defs, "$ref": "#/$defs/c0"}, max_depth=max_depth)
    except SchemaError as e:
        assert f"more than {MAX_ACTIVE_SCHEMAS} subschemas nest" in str(e) and chain * max_depth > MAX_ACTIVE_SCHEMAS
    else:
        assert lazy.matches(b"[[null]]")


@pytest.mark.parametrize("seed", [1, 2])
def test_a_long_chain_of_refs_and_allofs_merges_without_deepening_the_stack(seed):
    """$ref and allOf parts merged into one schema are flattened on an explicit stack: a chain of
    3,000 of them (each $ref, or allOf of a $ref and a type) compiles, never a RecursionError."""
    rng = random.Random(seed)
    n = 3000
    defs = {f"d{i}": ({"$ref": f"#/$defs/d{i + 1}"} if rng.random() < 0.7 else
                      {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"type": "object"}]}) for i in range(n)}
    defs[f"d{n}"] = {"type": "object", "properties": {"x": {"type": "string", "maxLength": 5}}}
    lazy = compile_json_schema({"$ref": "#/$defs/d0", "$defs": defs})
    assert lazy.matches(b'{"x":"abc"}') and not lazy.matches(b'{"x":"abcdef"}') and not lazy.matches(b"[]")


# --- sizes: refused before any work --------------------------------------------------------------

SIZES = [
    ("10,000 properties", {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(10_000)}},
     "max_properties", "/properties"),
    ("maxContains 10^6", {"type": "array", "contains": {"type": "integer"}, "maxContains": 10**6},
     "max_contains_count", "/maxContains"),
    ("minContains 10^6", {"items": {"contains": {"const": 1}, "minContains": 10**6}},
     "max_contains_count", "/items/minContains"),
    ("enum of 50,000 long strings", {"enum": ["".join(random.Random(i).choices("abcdefghij", k=60)) for i in range(50_000)]},
     "max_enum_members", "/enum"),
    ("a 3 MB const", {"const": "x" * 3_000_000}, "max_literal_length", "/const"),
    ("a long string inside a const", {"properties": {"a": {"const": {"k": ["y" * 20_000]}}}},
     "max_literal_length", "/properties/a/const/k/0"),
    ("a long property name", {"properties": {"n" * 20_000: {}}}, "max_literal_length", "/properties"),
    ("a 3 MB schema", {"anyOf": [{"description": "d" * 9_000} for _ in range(400)]}, "max_schema_bytes", "(root)"),
]


@pytest.mark.parametrize("name, schema, limit, where", SIZES, ids=[s[0] for s in SIZES])
def test_an_input_over_a_size_limit_is_refused_before_any_work(name, schema, limit, where):
    caught, seconds = timed(lambda: compile_json_schema(schema))
    assert isinstance(caught, InputLimitError), caught
    assert f"Limits.{limit} ({getattr(DEFAULT_LIMITS, limit)}) exceeded at {where}:" in str(caught), str(caught)
    assert seconds < 1 + SLACK


def test_a_name_that_is_a_keyword_is_not_read_as_one():
    """A property *named* enum or const holds a schema, not values: its long description is not a
    literal, and its many keys are not enum members."""
    schema = {"properties": {"enum": {"description": "d" * 20_000, "type": "integer"},
                             "const": {"type": "object", "properties": {f"k{i}": {} for i in range(50)}}}}
    lazy = compile_json_schema(schema, closed_objects=False)
    assert lazy.matches(b'{"enum":3}')


def test_limits_are_overridable_and_none_turns_them_off():
    schema = {"enum": list(range(300))}
    with pytest.raises(InputLimitError, match=r"max_enum_members \(200\) exceeded at /enum: enum values \(300\)"):
        compile_json_schema(schema, limits=Limits(max_enum_members=200))
    assert compile_json_schema(schema, limits=Limits(max_enum_members=None)).matches(b"299")
    with pytest.raises(InputLimitError, match="max_literal_length"):
        compile_json_schema({"const": "abcdef"}, limits=Limits(max_literal_length=5))
    assert compile_json_schema({"const": "abcde"}, limits=Limits(max_literal_length=5)).matches(b'"abcde"')


# --- time: work without a size to refuse ends at the deadline, naming where ---------------------

rng = random.Random(39)
NAMES = [f"p{i}" for i in range(31)]
SLOW = [
    ("anyOf of 20 numbers near 1e300", {"anyOf": [huge_bounds(rng) for _ in range(20)]}, "/anyOf/"),
    ("oneOf of 6 numbers near 1e300", {"oneOf": [huge_bounds(rng) for _ in range(6)]}, "/oneOf/"),
    ("oneOf of 2 numbers near 1e300", {"oneOf": [huge_bounds(rng) for _ in range(2)]}, "/oneOf/"),
    ("20 required properties near 1e300", {"type": "object", "required": [f"p{i}" for i in range(20)],
                                           "properties": {f"p{i}": huge_bounds(rng) for i in range(20)}},
     "/properties/p"),
    ("dependentSchemas over 30 properties", {"type": "object", "properties": {n: {"type": "integer"} for n in NAMES},
                                             "dependentSchemas": {NAMES[i]: {"required": [NAMES[i + 1]]}
                                                                  for i in range(30)}}, "(root)"),
    ("const object of 10,000 keys", {"const": {f"key{j}": "v" * 90 for j in range(10_000)}}, "/const"),
]


def names_a_place_of(message: str, limit: str, schema: dict, where: str) -> bool:
    """Whether a deadline's `message` names `limit` and a pointer of `schema` where the work was:
    `where` (the place the time goes), or a place the compiler was at when the time ran out, which
    depends on the machine's speed: the root (the combination of its parts), or a pointer that
    leads to a subschema."""
    prefix = f"{limit} exceeded at "
    if not message.startswith(prefix):
        return False
    pointer = message[len(prefix):].split()[0] if message[len(prefix):].strip() else ""
    if pointer == "(root)" or pointer.startswith(where):
        return True
    node = schema
    for part in pointer.strip("/").split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return False
    return isinstance(node, (dict, bool))


def test_names_a_place_of_refuses_a_pointer_outside_the_schema():
    schema = SLOW[4][1]
    assert names_a_place_of("compile_seconds (1 s) exceeded at /properties/p0", "compile_seconds (1 s)", schema, "(root)")
    assert names_a_place_of("compile_seconds (1 s) exceeded at (root)", "compile_seconds (1 s)", schema, "/oneOf/")
    assert not names_a_place_of("compile_seconds (1 s) exceeded at /properties/q9", "compile_seconds (1 s)", schema, "(root)")
    assert not names_a_place_of("mask_seconds (1 s) exceeded at (root)", "compile_seconds (1 s)", schema, "(root)")


@pytest.mark.parametrize("name, schema, where", SLOW, ids=[s[0] for s in SLOW])
def test_a_compile_that_runs_long_ends_at_its_deadline_naming_the_pointer(name, schema, where):
    budget = 0.3
    caught, seconds = timed(lambda: compile_json_schema(schema, limits=Limits(compile_seconds=budget)))
    assert isinstance(caught, TimeBudgetError), caught
    assert names_a_place_of(str(caught), f"compile_seconds ({budget:g} s)", schema, where), str(caught)
    assert seconds < budget + SLACK
    caught, seconds = timed(lambda: explain_json_schema(schema, limits=Limits(compile_seconds=budget)))
    assert isinstance(caught, TimeBudgetError) and seconds < budget + SLACK


@pytest.mark.slow
@pytest.mark.parametrize("name, schema, where", SLOW, ids=[s[0] for s in SLOW])
def test_with_the_default_limits_in_a_process_of_its_own(name, schema, where, tmp_path):
    """The default budget, in a fresh process (no warm caches) with a hard timeout over it: the
    schema compiles or is refused, within the budget, and a refusal names the pointer."""
    import json
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema))
    code = textwrap.dedent(f"""
        import json, time
        from brzozowski import compile_json_schema
        from brzozowski.errors import TimeBudgetError
        schema = json.load(open({str(path)!r}))
        start = time.perf_counter()
        try:
            compile_json_schema(schema)
        except TimeBudgetError as e:
            print(time.perf_counter() - start, "refused:", e)
        else:
            print(time.perf_counter() - start, "compiled")
    """)
    budget = DEFAULT_LIMITS.compile_seconds
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=budget + 60)
    assert run.returncode == 0, run.stderr[-2000:]
    seconds, outcome = run.stdout.split(" ", 1)
    assert float(seconds) < budget + SLACK
    assert outcome.startswith("compiled") or (
        outcome.startswith("refused: ")
        and names_a_place_of(outcome[len("refused: "):], f"compile_seconds ({budget:g} s)", schema, where)), outcome


def test_a_nested_deadline_of_the_caller_wins():
    from brzozowski.budget import within
    schema = SLOW[2][1]
    with within(0.2, "request_seconds", where="request 7"):
        caught, seconds = timed(lambda: compile_json_schema(schema))
    assert isinstance(caught, TimeBudgetError) and str(caught).startswith("request_seconds (0.2 s) exceeded at /oneOf/")
    assert seconds < 0.2 + SLACK


def test_the_bad_limits_argument_is_an_argument_error():
    from brzozowski.errors import ArgumentError
    with pytest.raises(ArgumentError, match="limits must be"):
        compile_json_schema({}, limits={"compile_seconds": 1})
    with pytest.raises(ArgumentError, match="max_properties"):
        Limits(max_properties=0)
