"""compile_json_schema against the official JSON-Schema-Test-Suite (draft 2020-12): is it sound?

Usage (from the repository root, any environment with jsonschema):

    PYTHONPATH=$PWD python benchmarks/conformance.py [SUITE] [--separators ', ' ': ']
        [--any-whitespace] [--closed-objects] [--unknown-keywords refuse|ignore] [--max-depth N]
        [--property-order schema|any]

SUITE defaults to ``../shared/jsonschema-test-suite`` relative to the repository root; the script
reads ``SUITE/tests/draft2020-12/*.json`` (not ``optional/``). For every test case (one schema and
its instances) it compiles the schema with the given options (default: JSON Schema's own meaning,
``closed_objects=False``) and, when that succeeds, feeds every instance to the automaton, written
the way the options say: ``json.dumps`` with the separators, once with ``ensure_ascii`` and once
without, and with object keys in the instance's order and in sorted order (an automaton must refuse
every spelling of an invalid instance; a valid instance counts as accepted if one spelling is).

Printed per keyword file: cases compiled / refused; valid instances accepted (of those of compiled
cases); invalid instances refused; **invalid instances accepted** (by the suite's label, and by
``jsonschema`` Draft 2020-12 with its own ``FORMAT_CHECKER``, the stricter of the two: the suite
marks ``format`` as an annotation) — the soundness column, which must be 0; then the refusals by keyword.
Exit status 1 if any invalid instance was accepted.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

from jsonschema import Draft202012Validator

from brzozowski import BrzozowskiError, SchemaError, compile_json_schema

ROOT = Path(__file__).resolve().parent.parent


def sorted_keys(value):
    """`value` with every object's keys in sorted order (the second key order the automaton is asked about)."""
    if isinstance(value, dict):
        return {k: sorted_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sorted_keys(v) for v in value]
    return value


def spellings(instance, separators) -> set[bytes]:
    """The JSON texts of `instance` the automaton is asked about."""
    texts = set()
    for value in (instance, sorted_keys(instance)):
        for ascii_only in (True, False):
            try:
                texts.add(json.dumps(value, separators=separators, ensure_ascii=ascii_only,
                                     allow_nan=False).encode("utf-8"))
            except (ValueError, UnicodeEncodeError):
                pass
    return texts


def run(suite: Path, options: dict) -> int:
    separators = options["separators"] if not options["any_whitespace"] else (",", ":")
    tests = suite / "tests" / "draft2020-12"
    if not tests.is_dir():
        print(f"no test suite at {tests}: pass its path (the directory holding tests/)", file=sys.stderr)
        return 2
    rows = []
    refused_by_keyword: collections.Counter = collections.Counter()
    unsound: list[str] = []
    totals = collections.Counter()
    for path in sorted(tests.glob("*.json")):
        row = collections.Counter()
        for case in json.loads(path.read_text()):
            row["cases"] += 1
            try:
                lazy = compile_json_schema(case["schema"], **options)
            except SchemaError as e:
                row["refused"] += 1
                for keyword in sorted({p.keyword or "(schema)" for p in e.problems}):
                    refused_by_keyword[keyword] += 1
                continue
            except BrzozowskiError as e:  # e.g. the state budget
                row["refused"] += 1
                refused_by_keyword[type(e).__name__] += 1
                continue
            row["compiled"] += 1
            validator = Draft202012Validator(case["schema"], format_checker=Draft202012Validator.FORMAT_CHECKER)
            for test in case["tests"]:
                accepted = [t for t in spellings(test["data"], separators) if lazy.matches(t)]
                if test["valid"]:
                    row["valid"] += 1
                    row["valid accepted"] += bool(accepted)
                else:
                    row["invalid"] += 1
                    row["invalid refused"] += not accepted
                    if accepted:
                        row["unsound (label)"] += 1
                        unsound.append(f"{path.name}: {case['description']} / {test['description']}: "
                                       f"{accepted[0][:80]!r}")
                if accepted and not validator.is_valid(test["data"]):
                    row["unsound (jsonschema)"] += 1
                    unsound.append(f"{path.name}: {case['description']} / {test['description']} "
                                   f"(jsonschema+FORMAT_CHECKER): {accepted[0][:80]!r}")
        rows.append((path.stem, row))
        totals.update(row)

    print(f"options: {options}")
    print()
    print("| file | cases | compiled | refused | valid accepted | invalid refused | invalid accepted |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, row in rows + [("**total**", totals)]:
        bad = row["unsound (label)"] + row["unsound (jsonschema)"]
        print(f"| {name} | {row['cases']} | {row['compiled']} | {row['refused']} | "
              f"{row['valid accepted']}/{row['valid']} | {row['invalid refused']}/{row['invalid']} | "
              f"**{bad}** |")
    print()
    print("Refusals by keyword (cases whose SchemaError names it):")
    print()
    print("| keyword | cases |")
    print("|---|---:|")
    for keyword, count in refused_by_keyword.most_common():
        print(f"| `{keyword}` | {count} |")
    if unsound:
        print("\nINVALID INSTANCES ACCEPTED:")
        for line in unsound:
            print("  " + line)
    return 1 if unsound else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("suite", nargs="?", default=str(ROOT.parent / "shared" / "jsonschema-test-suite"))
    parser.add_argument("--separators", nargs=2, default=[",", ":"], metavar=("ITEM", "KEY"))
    parser.add_argument("--any-whitespace", action="store_true")
    parser.add_argument("--closed-objects", action="store_true")
    parser.add_argument("--unknown-keywords", choices=("refuse", "ignore"), default="refuse")
    parser.add_argument("--max-depth", type=int, default=None)
    parser.add_argument("--property-order", choices=("schema", "any"), default=None)
    args = parser.parse_args(argv)
    options = {"separators": tuple(args.separators), "any_whitespace": args.any_whitespace,
               "closed_objects": args.closed_objects, "unknown_keywords": args.unknown_keywords}
    if args.max_depth is not None:
        options["max_depth"] = args.max_depth
    if args.property_order is not None:  # (absent from older trees)
        options["property_order"] = args.property_order
    return run(Path(args.suite), options)


if __name__ == "__main__":
    sys.exit(main())
