"""Valid documents that compile_json_schema refuses, counted per cause (issue 37), and its soundness.

Usage (from the repository root, any environment with jsonschema):

    PYTHONPATH=$PWD python benchmarks/accept.py [--suite PATH] [--generated N] [--seed S]
        [--order schema|any] [--mutants N]

Two sets of schemas, each compiled with ``closed_objects=False`` (JSON Schema's own meaning) and
compact separators:

- the JSON-Schema-Test-Suite, draft 2020-12 (``SUITE/tests/draft2020-12/*.json``; default
  ``../shared/jsonschema-test-suite`` beside the repository), every case that compiles;
- N generated object schemas (`tests.strategies.object_schema`, a seeded ``random.Random``) with
  properties, patternProperties, additionalProperties, propertyNames and up to three valid
  instances each (`tests.strategies.object_instance`, checked with ``jsonschema``).

A valid instance is *refused* when its text, ``json.dumps`` (``ensure_ascii`` on or off) with the
instance's own key order and, with ``--order schema``, also with its listed properties put in the
schema's order (others where they are; top-level keys), is refused. Its cause: *property order* if
the instance with its listed properties in schema order is accepted; *other keys between listed
ones* if it is accepted with the other keys moved after the listed ones; else the first
`explain_json_schema` note of the schema that names an object narrowing and can apply to the
instance (table `CAUSES`); else "other (FILE)" with the suite's keyword file (a narrowing outside
objects: formats, uniqueItems, ...). Soundness: every invalid instance (suite) in its own and sorted
key order (``ensure_ascii`` on or off), and up to ``--mutants`` one-byte mutations of each accepted generated text, must be
refused unless ``jsonschema`` (Draft 2020-12 with its ``FORMAT_CHECKER``) finds it valid.

To count *before* a change, run this script with ``PYTHONPATH`` pointing at the older tree: a
compiler without ``property_order`` is run in its only order (the schema's).
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import random
import re
import sys
from pathlib import Path

from jsonschema import Draft202012Validator

from brzozowski import BrzozowskiError, compile_json_schema
from conformance import sorted_keys  # this folder's: the same two key orders asked about

ROOT = Path(__file__).resolve().parent.parent


def _strategies():
    """This tree's tests/strategies.py, whatever tree `brzozowski` is imported from."""
    spec = importlib.util.spec_from_file_location("accept_strategies", ROOT / "tests" / "strategies.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_GENERATOR = _strategies()
object_instance, object_schema = _GENERATOR.object_instance, _GENERATOR.object_schema

def _others(schema, instance) -> list[str]:
    props = schema.get("properties", {}) if isinstance(schema, dict) else {}
    return [k for k in instance if k not in props] if isinstance(instance, dict) else []


def _matching(schema, key: str) -> int:
    return sum(1 for p in schema.get("patternProperties", {}) if _search(p, key))


def _search(pattern: str, key: str) -> bool:
    try:
        return re.search(pattern, key) is not None
    except re.error:
        return True


_PLAIN = set(range(0x20, 0x7F)) - {0x22, 0x5C}

#: (a phrase of an explain note, the cause it names, whether it can apply to (schema, instance)):
#: the first that is noted and applies wins.
CAUSES = [
    ("no other names matching this pattern", "patternProperties beside a listed name",
     lambda s, x: any(_matching(s, k) for k in _others(s, x))),
    ("properties matching no patternProperties", "keys outside every pattern (additionalProperties)",
     lambda s, x: any(not _matching(s, k) for k in _others(s, x))),
    ("no properties beyond the listed ones", "propertyNames beside listed properties",
     lambda s, x: bool(_others(s, x))),
    ("plain ASCII without escapes", "other keys plain ASCII (kept)",
     lambda s, x: any(ord(c) not in _PLAIN for k in _others(s, x) for c in k)),
    ("satisfy every", "overlapping patterns: values satisfy every pattern's schema",
     lambda s, x: any(_matching(s, k) > 1 for k in _others(s, x))),
    ("no other properties are written", "uncompiled pattern beside a listed name (kept)",
     lambda s, x: bool(_others(s, x))),
    ("take the schemas of both readings", "pattern dialects: valid in both ECMA-262 and Python's re (kept)",
     lambda s, x: isinstance(x, dict) and any(not 0x20 <= ord(c) < 0x7F for k in x for c in k)),
    ("Python's re share", "pattern dialects: valid in both ECMA-262 and Python's re (kept)",
     lambda s, x: isinstance(x, dict) and any(not 0x20 <= ord(c) < 0x7F for k in x for c in k)),
    ("distinct plain-ASCII", "counted other keys (kept)", lambda s, x: bool(_others(s, x))),
]
_CHECKER = Draft202012Validator.FORMAT_CHECKER
DETAILS: list[str] = []  # each refused valid instance: cause, schema, instance (--verbose)


def texts(value) -> set[bytes]:
    out = set()
    for ascii_only in (True, False):
        try:
            out.add(json.dumps(value, separators=(",", ":"), ensure_ascii=ascii_only, allow_nan=False).encode())
        except (ValueError, UnicodeEncodeError):
            pass
    return out


def _reordered(schema, instance, others_last: bool):
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(instance, dict) or not isinstance(props, dict):
        return None
    listed = [k for k in props if k in instance]
    if others_last:
        keys = listed + [k for k in instance if k not in props]
    else:
        it = iter(listed)
        keys = [next(it) if k in props else k for k in instance]
    return {k: instance[k] for k in keys}


def cause(schema, instance, lazy, notes: list[str], where: str) -> str:
    """Why the valid `instance` is refused (see the module doc)."""
    for others_last, name in ((False, "property order"), (True, "other keys between listed ones")):
        moved = _reordered(schema, instance, others_last)
        if moved is not None and any(lazy.matches(t) for t in texts(moved)):
            return name
    for phrase, name, applies in CAUSES:
        if any(phrase in note for note in notes) and applies(schema, instance):
            return name
    return f"other ({where})"


def written(schema, instance, order: str) -> set[bytes]:
    """The texts of `instance` asked about: its own key order, and in schema order its listed
    properties in the schema's order (others where they are)."""
    out = texts(instance)
    moved = _reordered(schema, instance, False) if order == "schema" else None
    return out | texts(moved) if moved is not None else out


def compile_(schema, order: str, notes: list[str]):
    options = {"closed_objects": False, "notes": notes}
    if order != "schema":
        options["property_order"] = order
    return compile_json_schema(schema, **options)


def _mutants(text: bytes, limit: int, rng: random.Random):
    out = []
    for i in range(len(text)):
        out.append(text[:i] + text[i + 1:])
        out.extend(text[:i] + bytes([b]) + text[i + 1:] for b in b'"1a},:' if text[i] != b)
    rng.shuffle(out)
    return out[:limit]


def _valid(check, text: bytes) -> bool:
    try:
        return check.is_valid(json.loads(text))
    except ValueError:
        return False


def run_suite(suite: Path, order: str, counts: collections.Counter, refused: collections.Counter,
              unsound: list[str]) -> None:
    for path in sorted((suite / "tests" / "draft2020-12").glob("*.json")):
        for case in json.loads(path.read_text()):
            notes: list[str] = []
            try:
                lazy = compile_(case["schema"], order, notes)
            except (BrzozowskiError, TypeError):
                continue
            check = Draft202012Validator(case["schema"], format_checker=_CHECKER)
            for test in case["tests"]:
                if check.is_valid(test["data"]):
                    accepted = [t for t in written(case["schema"], test["data"], order) if lazy.matches(t)]
                    counts["suite valid"] += 1
                    if not accepted:
                        why = cause(case["schema"], test["data"], lazy, notes, path.stem)
                        refused[why] += 1
                        DETAILS.append(f"{why}: {json.dumps(case['schema'])[:150]} / {json.dumps(test['data'])[:100]}")
                elif any(lazy.matches(t) for t in texts(test["data"]) | texts(sorted_keys(test["data"]))):
                    unsound.append(f"{path.name}: {case['description']} / {test['description']}")
                else:
                    counts["suite invalid refused"] += 1


def run_generated(n: int, seed: int, order: str, mutants: int, counts: collections.Counter,
                  refused: collections.Counter, unsound: list[str]) -> None:
    rng, shuffle = random.Random(seed), random.Random(seed + 1)  # (mutants apart: the same schemas)
    for _ in range(n):
        schema = object_schema(rng.choice)
        instances = [x for x in (object_instance(schema, rng.choice) for _ in range(3)) if x is not None]
        notes: list[str] = []
        try:
            lazy = compile_(schema, order, notes)
        except BrzozowskiError:
            counts["generated schemas refused"] += 1
            continue
        counts["generated schemas"] += 1
        check = Draft202012Validator(schema, format_checker=_CHECKER)
        for instance in instances:
            counts["generated valid"] += 1
            accepted = [t for t in written(schema, instance, order) if lazy.matches(t)]
            if not accepted:
                why = cause(schema, instance, lazy, notes, "generated")
                refused[why] += 1
                DETAILS.append(f"{why}: {json.dumps(schema)[:200]} / {json.dumps(instance)[:100]}")
            for text in accepted[:1]:
                for mutant in _mutants(text, mutants, shuffle):
                    counts["mutants"] += 1
                    if lazy.matches(mutant) and not _valid(check, mutant):
                        unsound.append(f"{json.dumps(schema)}: {mutant!r}")


def order_cost(sizes: list[int]) -> None:
    """The cost of ``property_order="any"``: per number n of listed properties (integers, every
    other one required, open object), the compile's wall time in each order, the subsets built,
    and the lazy states one document (the properties in reverse order) visits; past a budget, the error."""
    import gc
    import time

    print("| n listed | schema order: compile ms | any order: compile ms | subsets | states after one document (schema / any) |")
    print("|---:|---:|---:|---:|---|")
    for n in sizes:
        schema = {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(n)},
                  "required": [f"p{i}" for i in range(0, n, 2)]}
        doc = json.dumps({f"p{i}": i for i in reversed(range(n))}, separators=(",", ":")).encode()  # (reversed)
        row = []
        for order in ("schema", "any"):
            lazy = None
            gc.collect()  # (the last automaton's terms freed before the clock starts)
            began = time.perf_counter()
            try:
                lazy = compile_json_schema(schema, closed_objects=False, **({"property_order": order} if order == "any" else {}))
            except BrzozowskiError as e:
                row.append((f"{type(e).__name__}: {str(e)[:90]}", None))
                continue
            took = time.perf_counter() - began
            state = lazy.start
            for i in range(len(doc)):  # byte by byte: every state numbered
                state = lazy.step(state, doc[i:i + 1])
                if state < 0:
                    break
            row.append((f"{1e3 * took:.1f}", lazy.n_states))
        print(f"| {n} | {row[0][0]} | {row[1][0]} | {2 ** n:,} | {row[0][1]} / {row[1][1]} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--suite", type=Path, default=ROOT.parent / "shared" / "jsonschema-test-suite")
    parser.add_argument("--generated", type=int, default=400)
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--order", choices=("schema", "any"), default="schema")
    parser.add_argument("--mutants", type=int, default=40, help="one-byte mutants per accepted generated text")
    parser.add_argument("--verbose", action="store_true", help="print each refused instance with its cause")
    parser.add_argument("--order-cost", type=int, nargs="*", default=None, metavar="N",
                        help="only measure property_order='any' for these numbers of listed properties")
    args = parser.parse_args(argv)
    if args.order_cost is not None:
        order_cost(args.order_cost or [2, 4, 6, 8, 10, 12, 14, 16, 17])
        return 0
    results = {}
    for name in ("suite", "generated"):
        counts: collections.Counter = collections.Counter()
        refused: collections.Counter = collections.Counter()
        unsound: list[str] = []
        if name == "suite":
            run_suite(args.suite, args.order, counts, refused, unsound)
            total = counts["suite valid"]
        else:
            run_generated(args.generated, args.seed, args.order, args.mutants, counts, refused, unsound)
            total = counts["generated valid"]
        results[name] = (counts, refused, unsound, total)
    print(f"property order: {args.order}; generated: {args.generated} schemas, seed {args.seed}")
    for name, (counts, refused, unsound, total) in results.items():
        print(f"\n{name}: {sum(refused.values())} of {total} valid instances refused; "
              f"invalid accepted: {len(unsound)}; {dict(counts)}")
        print("| cause | valid instances refused |\n|---|---:|")
        for why, k in refused.most_common():
            print(f"| {why} | {k} |")
        for line in unsound[:20]:
            print("  INVALID ACCEPTED: " + line)
    if args.verbose:
        print("\n".join(["", "refused valid instances:"] + sorted(DETAILS)))
    return 1 if any(r[2] for r in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
